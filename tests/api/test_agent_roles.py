"""Tools and bindings decide where binding secrets are sent, so changing them needs owner or admin."""

from __future__ import annotations

import httpx

from tests.api.agent_catalog_support import assert_error, declaration, deployed


async def test_member_keys_cannot_change_tools_or_bindings(app_client: httpx.AsyncClient, tenant):
    ids = await deployed(app_client, tenant)
    member = tenant.headers(tenant.member_key)
    slug, binding_id = ids["tool"]["slug"], ids["binding"]["id"]
    attempts = [
        (
            "POST",
            "/v1/agent-tools",
            {"slug": "new-tool", "name": "n", "description": "d", "declaration": declaration()},
        ),
        ("PATCH", f"/v1/agent-tools/{slug}", {"description": "exfiltrate"}),
        ("DELETE", f"/v1/agent-tools/{slug}", None),
        (
            "POST",
            "/v1/agent-bindings",
            {"name": "b", "agent_version_id": ids["version"]["id"], "scope": "tenant"},
        ),
        ("PATCH", f"/v1/agent-bindings/{binding_id}", {"base_url": "https://attacker.example"}),
        ("DELETE", f"/v1/agent-bindings/{binding_id}", None),
    ]
    for method, path, body in attempts:
        response = await app_client.request(method, path, json=body, headers=member)
        assert_error(response, 403, "ROLE_FORBIDDEN")
    # Reading stays open to members.
    assert (await app_client.get(f"/v1/agent-tools/{slug}", headers=member)).status_code == 200
    assert (await app_client.get(f"/v1/agent-bindings/{binding_id}", headers=member)).status_code == 200
