"""The curl examples of docs/agents.md run against the API in order and answer what the guide shows."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx

from tests.api.agent_catalog_support import ok
from tests.conftest import ADMIN_KEY
from tests.support.tenants import TenantFixture

GUIDE = (Path(__file__).parents[2] / "docs" / "agents.md").read_text()
# The catalog's reference sections (the walkthrough before them runs against `make dev`).
CATALOG = GUIDE[GUIDE.index("## Providers and models") : GUIDE.index("## How a turn starts")]
# The guide splices shell variables into bodies ('"$VERSION2"'); read them as plain "$VERSION2"
# strings, which the test replaces with the ids it created.
UNSPLICED = re.sub(r"'\"(\$\w+)\"'", r"\1", CATALOG)
BODIES = [json.loads(body) for body in re.findall(r"-d '(.*?)'", UNSPLICED, flags=re.S)]


async def test_the_guides_examples_work_in_sequence(app_client: httpx.AsyncClient, tenant: TenantFixture):
    agent_body, tool_body, tool_patch, version_body, binding_body, secrets_body = BODIES
    headers = tenant.headers()
    agent = ok(await app_client.post("/v1/agents", json=agent_body, headers=headers), 201)
    tool = ok(await app_client.post("/v1/agent-tools", json=tool_body, headers=headers), 201)
    assert tool["declaration"]["request"]["timeout_ms"] == 10_000
    ok(
        await app_client.post("/v1/agent-tools", json={**tool_body, "slug": "book_visit"}, headers=headers),
        201,
    )
    patched = ok(await app_client.patch(f"/v1/agent-tools/{tool['slug']}", json=tool_patch, headers=headers))
    assert (patched["revision"], patched["enabled"]) == (2, False)

    version = ok(
        await app_client.post(f"/v1/agents/{agent['id']}/versions", json=version_body, headers=headers), 201
    )
    binding_body = {
        **binding_body,
        "agent_version_id": version["id"],
        "phone_number_id": tenant.phone_number_id,
    }
    binding = ok(await app_client.post("/v1/agent-bindings", json=binding_body, headers=headers), 201)
    assert binding["effective_params"]["wizardReserveToolSlug"] == "book_visit"
    # The guide sends the spec's params.base_url; the answer shows the one value in both places.
    assert binding["base_url"] == binding["params"]["base_url"] == binding_body["params"]["base_url"]

    answer = ok(
        await app_client.post(
            f"/v1/admin/agent-bindings/{binding['id']}/secrets",
            json=secrets_body,
            headers={**headers, "X-Admin-Key": ADMIN_KEY},
        )
    )
    assert answer == {
        "binding_id": binding["id"],
        "has_secrets": True,
        "secret_names": sorted(secrets_body["secrets"]),
    }
