"""A client that follows the spec to the letter: the binding body it sends and the declarations it may write.

The binding carries its base URL where the spec puts deployment config (``params.base_url``, no
top-level ``base_url``), and a tool lists 429 under ``errors.negocio``, which the spec allows
("infra regardless of declaration"). Everything goes through the public API and the signed channel
webhook, with a real worker; providers, the upstream and the tenant's tool API are loopback fakes.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from tests.e2e.agents.support import (
    PROVIDERS,
    ToolServer,
    eventually,
    finished_runs,
    run_detail,
    say,
    text_envelope,
    tool_declaration,
)
from tests.fakes.scripting import FakeProvider, FakeToolCall, TextReply, ToolCallReply
from tests.fixtures.channel import PHONE_NUMBER_ID, USER_PHONE
from tests.support.fake_channel import FakeChannel
from tests.support.tenants import TenantFixture

PROVIDER = "anthropic"
BUSINESS_HINT = "Demasiados pedidos; probá en un rato."


async def _post(client: httpx.AsyncClient, tenant: TenantFixture, path: str, body: dict[str, Any]) -> Any:
    response = await client.post(path, json=body, headers=tenant.headers())
    assert response.status_code == 201, response.text
    return response.json()


async def _deploy_spec_style(
    client: httpx.AsyncClient, tenant: TenantFixture, *, declaration: dict[str, Any], params: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The spec's bodies only: tool, agent, version, then a binding of name, agent_version_id, scope,
    phone_number_id, params and reglas; the tool and the binding as answered."""
    tool = await _post(
        client,
        tenant,
        "/v1/agent-tools",
        {"slug": "slots", "name": "slots", "description": "slots", "declaration": declaration},
    )
    agent = await _post(
        client, tenant, "/v1/agents", {"name": "a", "provider": PROVIDER, "model": PROVIDERS[PROVIDER][1]}
    )
    version = await _post(
        client,
        tenant,
        f"/v1/agents/{agent['id']}/versions",
        {"system_prompt": "Sos el asistente.", "tools": ["slots"], "guardrails_config": {}},
    )
    binding = await _post(
        client,
        tenant,
        "/v1/agent-bindings",
        {
            "name": "spec client",
            "agent_version_id": version["id"],
            "scope": "phone_number",
            "phone_number_id": PHONE_NUMBER_ID,
            "params": params,
            "reglas": {"Horarios": "9 a 18"},
        },
    )
    return tool, binding


async def test_a_binding_with_params_base_url_reaches_the_tool_server_at_that_url(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools: ToolServer,
    tools_url: str,
) -> None:
    tools.script("/clinic/v2/slots", (200, {"data": ["10:00", "11:30"]}))
    fakes[PROVIDER].script(
        ToolCallReply([FakeToolCall("slots", {"date": "2026-12-01"}, id="toolu_1")]),
        TextReply("Hay turnos a las 10:00 y 11:30."),
    )
    _, binding = await _deploy_spec_style(
        app_client,
        bound_tenant,
        declaration=tool_declaration(),
        params={"base_url": f"{tools_url}/clinic/v2/", "clinic_id": "norte"},
    )
    assert binding["params"] == {"base_url": f"{tools_url}/clinic/v2", "clinic_id": "norte"}

    await say(app_client, text_envelope("¿hay turno el 1 de diciembre?"))

    async def replied() -> list[dict[str, Any]]:
        return channel.sends_to(USER_PHONE)

    [sent] = await eventually(replied)
    assert sent["text"]["body"] == "Hay turnos a las 10:00 y 11:30."
    [call] = tools.calls
    assert (call["method"], call["path"], call["query"]) == (
        "GET",
        "/clinic/v2/slots",
        {"date": "2026-12-01"},
    )
    [run] = await finished_runs(app_client, bound_tenant)
    assert run["status"] == "completed", run
    detail = await run_detail(app_client, bound_tenant, run["id"])
    [tool_step] = [step for step in detail["steps"] if step["kind"] == "tool_call"]
    assert (tool_step["status"], tool_step["data"]["status_code"]) == ("ok", 200)


async def test_a_429_declared_negocio_is_infra_and_escalates(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools: ToolServer,
    tools_url: str,
) -> None:
    tools.script("/slots", (429, {"error": "slow down"}))
    fakes[PROVIDER].script(
        ToolCallReply([FakeToolCall("slots", {"date": "2026-12-01"}, id="toolu_1")]),
        TextReply("No debería llegar nunca."),
    )
    declaration = tool_declaration(errors={"negocio": {"409": "Ya está tomado.", "429": BUSINESS_HINT}})
    tool, _ = await _deploy_spec_style(
        app_client, bound_tenant, declaration=declaration, params={"base_url": tools_url}
    )
    assert tool["declaration"]["errors"]["negocio"] == declaration["errors"]["negocio"]
    assert [(w["code"], w["field"]) for w in tool["warnings"]] == [
        ("NEGOCIO_ALWAYS_INFRA", "declaration.errors.negocio.429")
    ]

    await say(app_client, text_envelope("¿hay turno el 1 de diciembre?"))

    [run] = await finished_runs(app_client, bound_tenant)
    assert run["status"] == "escalated", run
    assert "429" in run["errorMessage"] and "always infra" in run["errorMessage"]
    detail = await run_detail(app_client, bound_tenant, run["id"])
    [tool_step] = [step for step in detail["steps"] if step["kind"] == "tool_call"]
    assert (tool_step["status"], tool_step["data"]["status_code"]) == ("infra", 429)
    # The loop stopped at the tool: one model call, which never saw the declared hint; no reply was sent.
    assert len(fakes[PROVIDER].requests) == 1
    assert BUSINESS_HINT not in json.dumps(fakes[PROVIDER].requests[0].body)
    assert channel.sends_to(USER_PHONE) == []
    thread = (
        await app_client.get(f"/v1/agent-threads/{run['thread_id']}", headers=bound_tenant.headers())
    ).json()
    assert (thread["muted"], thread["muted_reason"]) == (True, "handoff")
