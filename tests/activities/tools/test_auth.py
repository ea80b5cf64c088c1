"""Each authentication type reaches the tool's server as the header it expects."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from temporalio.testing import ActivityEnvironment

from switchboard.activities.tools import ToolActivities
from switchboard.settings import Settings
from tests.activities.tools.builders import SECRETS, call, declaration
from tests.activities.tools.fake_api import FakeApi, json_reply

BASIC = base64.b64encode(f"switchboard:{SECRETS['password']}".encode()).decode()


@pytest.mark.parametrize(
    ("auth", "header", "expected"),
    [
        ({"type": "none"}, "authorization", None),
        ({"type": "bearer", "token": "{{binding.secret.api_token}}"}, "authorization", "Bearer s3cr3t-token"),
        (
            {"type": "api_key_header", "header": "X-Api-Key", "key": "{{binding.secret.api_key}}"},
            "x-api-key",
            "k3y-value",
        ),
        (
            {
                "type": "basic",
                "username": "{{binding.params.client_id}}",
                "password": "{{binding.secret.password}}",
            },
            "authorization",
            f"Basic {BASIC}",
        ),
    ],
    ids=["none", "bearer", "api_key_header", "basic"],
)
async def test_single_step_auth_sends_its_header(
    executor: ToolActivities,
    settings: Settings,
    api: tuple[FakeApi, str],
    auth: dict[str, Any],
    header: str,
    expected: str | None,
) -> None:
    fake, url = api
    fake.respond = lambda rec: json_reply(200, {"seen": rec.headers.get(header)})
    result = await ActivityEnvironment().run(
        executor.execute_tool_call, call(settings, url, declaration(auth=auth, pick="seen"))
    )
    assert result.call_class == "ok"
    assert result.data == expected
    assert fake.requests[0].headers.get(header) == expected
    assert fake.requests[0].path == "/patients/p-1"
    assert result.token == "none"
    assert fake.token_requests == []


async def test_request_carries_query_and_body_from_the_declaration(
    executor: ToolActivities, settings: Settings, api: tuple[FakeApi, str]
) -> None:
    fake, url = api
    decl = declaration(
        method="POST",
        query={"clinic": "{{binding.params.client_id}}", "id": "{{input.patient_id}}", "flag": True},
        body={"patient": "{{input.patient_id}}", "phone": "{{context.contact_phone}}", "n": 2},
    )
    result = await executor.execute_tool_call(call(settings, url, decl, input={"patient_id": "a b"}))
    assert result.call_class == "ok"
    sent = fake.requests[0]
    assert sent.method == "POST"
    assert sent.path == "/patients/a b"
    assert sorted(sent.query) == [("clinic", "switchboard"), ("flag", "true"), ("id", "a b")]
    assert sent.body == {"patient": "a b", "phone": "5491155550000", "n": 2}
    assert sent.headers["content-type"] == "application/json"
