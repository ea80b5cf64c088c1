"""Runs that end without an automated reply (escalated, the thread muted as handoff) and the ones that do not.

Everything goes through the signed channel webhook and the public API, with a
real worker on the session's Temporal dev server; providers, the upstream and
the tenant's tool API are fakes on loopback.
"""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal
from typing import Any

import httpx
import pytest

from switchboard.models.agent_runtime import AgentTurn
from switchboard.settings import Settings
from tests.e2e.agents.support import (
    ToolServer,
    deploy_agent,
    eventually,
    finished_runs,
    run_detail,
    runs,
    say,
    text_envelope,
    tool_declaration,
)
from tests.fakes.scripting import (
    ErrorReply,
    FakeProvider,
    FakeToolCall,
    SlowReply,
    TextReply,
    ToolCallReply,
)
from tests.fixtures.channel import USER_PHONE
from tests.support.fake_channel import FakeChannel
from tests.support.inbound import rows
from tests.support.tenants import TenantFixture

INTERNAL_ERROR = "db-primary-7 connection refused (internal stack trace)"
HINT = "Ese horario ya fue tomado; ofrecé otro."


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """This module's settings: no Mistral key is configured (the other providers keep theirs)."""
    return settings.model_copy(update={"mistral_api_key": None})


# --------------------------------------------------------------------------- helpers


async def only_thread(client: httpx.AsyncClient, tenant: TenantFixture) -> dict[str, Any]:
    response = await client.get("/v1/agent-threads", headers=tenant.headers())
    assert response.status_code == 200, response.text
    [thread] = response.json()["data"]
    return dict(thread)


async def agent_events(
    client: httpx.AsyncClient, tenant: TenantFixture, thread_id: str, event_type: str | None = None
) -> list[dict[str, Any]]:
    params = {"thread_id": thread_id}
    if event_type is not None:
        params["type"] = event_type
    response = await client.get("/v1/agent-events", params=params, headers=tenant.headers())
    assert response.status_code == 200, response.text
    return list(response.json()["data"])


async def replies(channel: FakeChannel, count: int = 1) -> list[dict[str, Any]]:
    """Wait until the customer got ``count`` replies; the sends."""

    async def sent() -> list[dict[str, Any]] | None:
        sends = channel.sends_to(USER_PHONE)
        return sends if len(sends) >= count else None

    return list(await eventually(sent))


async def assert_escalated(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    channel: FakeChannel,
    run: dict[str, Any],
    *reasons: str,
) -> dict[str, Any]:
    """The run escalated saying why, nothing reached the customer, the thread is muted as handoff; the thread."""
    assert run["status"] == "escalated", run
    message = run["errorMessage"]
    assert isinstance(message, str) and message.strip(), run
    for reason in reasons:
        assert reason in message, message
    detail = await run_detail(client, tenant, run["id"])
    assert not [step for step in detail["steps"] if step["kind"] == "reply" and step["status"] == "queued"]
    assert detail["reply_message_id"] is None
    assert channel.sends_to(USER_PHONE) == []
    response = await client.get(f"/v1/agent-threads/{run['thread_id']}", headers=tenant.headers())
    assert response.status_code == 200, response.text
    thread = dict(response.json())
    assert thread["muted"] is True
    assert thread["muted_reason"] == "handoff"
    assert thread["muted_at"] is not None
    muted = await agent_events(client, tenant, thread["id"], "thread.muted")
    assert [event["run_id"] for event in muted] == [run["id"]], muted
    assert muted[0]["properties"]["muted_reason"] == "handoff"
    return thread


def model_calls(detail: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for step in detail["steps"] if step["kind"] == "model_call"]


def tool_names(body: dict[str, Any]) -> list[str]:
    """The tools an OpenAI Chat Completions or Anthropic Messages request declares."""
    names = []
    for tool in body.get("tools") or []:
        names.append(tool["function"]["name"] if "function" in tool else tool["name"])
    return names


async def inbound_ids(client: httpx.AsyncClient, tenant: TenantFixture) -> list[str]:
    """Stored inbound message ids, oldest first."""
    response = await client.get(
        "/v1/messages", params={"direction": "inbound", "per_page": 100}, headers=tenant.headers()
    )
    assert response.status_code == 200, response.text
    return [message["id"] for message in sorted(response.json()["data"], key=lambda m: m["created_at"])]


async def stored_inbound(client: httpx.AsyncClient, tenant: TenantFixture, count: int) -> list[str]:
    async def check() -> list[str] | None:
        ids = await inbound_ids(client, tenant)
        return ids if len(ids) >= count else None

    return list(await eventually(check))


# --------------------------------------------------------------------------- tool classification


@pytest.mark.parametrize(
    ("status", "errors"),
    [(503, None), (429, {"negocio": [404]}), (404, {"infra": [404]})],
    ids=["5xx", "429-always-infra", "declared-infra"],
)
async def test_infra_tool_answer_escalates_and_the_model_never_sees_it(
    status: int,
    errors: dict[str, Any] | None,
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools: ToolServer,
    tools_url: str,
) -> None:
    tools.script("/slots", (status, {"error": INTERNAL_ERROR}))
    fakes["anthropic"].script(
        ToolCallReply([FakeToolCall("slots", {"date": "2026-12-01"}, id="toolu_1")]),
        TextReply("No debería llegar nunca."),
    )
    declaration = tool_declaration()
    if errors is not None:
        declaration["errors"] = errors
    await deploy_agent(
        app_client, bound_tenant, provider="anthropic", tool_base_url=tools_url, tools={"slots": declaration}
    )

    await say(app_client, text_envelope("¿hay turno el 1 de diciembre?"))

    [run] = await finished_runs(app_client, bound_tenant)
    await assert_escalated(app_client, bound_tenant, channel, run, "slots", str(status))
    # The internal text is kept for the operator, never sent to the model: only the first call happened.
    assert INTERNAL_ERROR in run["errorMessage"]
    assert len(fakes["anthropic"].requests) == 1
    assert INTERNAL_ERROR not in json.dumps(fakes["anthropic"].requests[0].body)
    assert len(tools.calls) == 1
    detail = await run_detail(app_client, bound_tenant, run["id"])
    [tool_step] = [step for step in detail["steps"] if step["kind"] == "tool_call"]
    assert tool_step["status"] == "infra" and tool_step["data"]["status_code"] == status


@pytest.mark.parametrize(
    ("answer", "errors", "call_class"),
    [
        ((409, {"error": INTERNAL_ERROR}), {"negocio": {"409": HINT}}, "negocio"),
        (
            (200, {"status_code": "SLOT_TAKEN", "detail": INTERNAL_ERROR}),
            {"semantic": {"SLOT_TAKEN": HINT}},
            "semantic",
        ),
    ],
    ids=["negocio", "semantic"],
)
async def test_business_answer_reaches_the_model_as_a_hint(
    answer: tuple[int, Any],
    errors: dict[str, Any],
    call_class: str,
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools: ToolServer,
    tools_url: str,
) -> None:
    tools.script("/book", answer)
    fakes["openai"].script(
        ToolCallReply([FakeToolCall("book", {"date": "2026-12-01"}, id="call_1")]),
        TextReply("Ese horario no está disponible, ¿te sirve otro día?"),
    )
    await deploy_agent(
        app_client,
        bound_tenant,
        provider="openai",
        tool_base_url=tools_url,
        tools={"book": tool_declaration(method="POST", path="/book", errors=errors)},
    )

    await say(app_client, text_envelope("reservame el 1 de diciembre"))

    [sent] = await replies(channel)
    assert sent["text"]["body"] == "Ese horario no está disponible, ¿te sirve otro día?"
    [run] = await finished_runs(app_client, bound_tenant)
    assert run["status"] == "completed", run
    assert run["errorMessage"] is None
    assert len(fakes["openai"].requests) == 2
    second = json.dumps(fakes["openai"].requests[1].body, ensure_ascii=False)
    assert HINT in second and INTERNAL_ERROR not in second
    detail = await run_detail(app_client, bound_tenant, run["id"])
    [tool_step] = [step for step in detail["steps"] if step["kind"] == "tool_call"]
    assert tool_step["status"] == call_class and tool_step["data"]["status_code"] == answer[0]
    thread = await only_thread(app_client, bound_tenant)
    assert thread["muted"] is False and thread["muted_reason"] is None and thread["muted_at"] is None
    assert await agent_events(app_client, bound_tenant, thread["id"], "thread.muted") == []


async def test_tool_configuration_error_escalates_without_telling_the_model(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools: ToolServer,
    tools_url: str,
) -> None:
    # The pick expects an array and finds a string: ToolResponseExtractError, an escalation.
    tools.script("/slots", (200, {"data": {"items": "10:00"}}))
    fakes["openai"].script(
        ToolCallReply([FakeToolCall("slots", {"date": "2026-12-01"}, id="call_1")]),
        TextReply("No debería llegar nunca."),
    )
    await deploy_agent(
        app_client,
        bound_tenant,
        provider="openai",
        tool_base_url=tools_url,
        tools={"slots": tool_declaration(pick="data.items[]")},
    )

    await say(app_client, text_envelope("¿hay turno el 1 de diciembre?"))

    [run] = await finished_runs(app_client, bound_tenant)
    await assert_escalated(app_client, bound_tenant, channel, run, "slots", "ToolResponseExtractError")
    assert len(fakes["openai"].requests) == 1


# --------------------------------------------------------------------------- provider failures


async def test_permanent_provider_error_escalates(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
) -> None:
    fakes["anthropic"].script(ErrorReply(400, "max_tokens: too large for this model"))
    await deploy_agent(app_client, bound_tenant, provider="anthropic", tool_base_url=tools_url)

    await say(app_client, text_envelope("hola"))

    [run] = await finished_runs(app_client, bound_tenant)
    await assert_escalated(app_client, bound_tenant, channel, run, "permanent provider error")
    # A 400 is not retried.
    assert len(fakes["anthropic"].requests) == 1


async def test_rate_limited_provider_is_retried_by_temporal(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
) -> None:
    fakes["openai"].script(
        ErrorReply(429, "Rate limit reached", headers={"retry-after": "1"}),
        TextReply("¡Hola! ¿En qué te ayudo?"),
    )
    await deploy_agent(app_client, bound_tenant, provider="openai", tool_base_url=tools_url)

    await say(app_client, text_envelope("hola"))

    [sent] = await replies(channel)
    assert sent["text"]["body"] == "¡Hola! ¿En qué te ayudo?"
    [run] = await finished_runs(app_client, bound_tenant)
    assert run["status"] == "completed", run
    assert run["errorMessage"] is None
    assert len(fakes["openai"].requests) == 2
    assert fakes["openai"].requests[0].body == fakes["openai"].requests[1].body
    detail = await run_detail(app_client, bound_tenant, run["id"])
    assert len(model_calls(detail)) == 1


async def test_provider_without_a_key_escalates_without_calling_it(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
) -> None:
    await deploy_agent(app_client, bound_tenant, provider="mistral", tool_base_url=tools_url)

    await say(app_client, text_envelope("hola"))

    [run] = await finished_runs(app_client, bound_tenant)
    await assert_escalated(app_client, bound_tenant, channel, run, "permanent provider error", "mistral")
    assert "ProviderNotConfigured" in run["errorMessage"] or "key" in run["errorMessage"].lower()
    assert fakes["mistral"].requests == []


# --------------------------------------------------------------------------- the loop's own limits


async def test_model_calling_an_unknown_tool_escalates(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools: ToolServer,
    tools_url: str,
) -> None:
    fakes["openai"].script(ToolCallReply([FakeToolCall("borrar_todo", {"date": "x"}, id="call_1")]))
    await deploy_agent(
        app_client,
        bound_tenant,
        provider="openai",
        tool_base_url=tools_url,
        tools={"slots": tool_declaration()},
    )

    await say(app_client, text_envelope("hola"))

    [run] = await finished_runs(app_client, bound_tenant)
    await assert_escalated(app_client, bound_tenant, channel, run, "borrar_todo")
    assert tools.calls == []
    assert len(fakes["openai"].requests) == 1


async def test_cap_execucion_escalates_after_that_many_model_turns(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools: ToolServer,
    tools_url: str,
) -> None:
    tools.script("/slots", (200, {"data": ["10:00"]}))
    fakes["anthropic"].script(
        *[
            ToolCallReply([FakeToolCall("slots", {"date": f"2026-12-0{i}"}, id=f"toolu_{i}")])
            for i in (1, 2, 3)
        ]
    )
    await deploy_agent(
        app_client,
        bound_tenant,
        provider="anthropic",
        tool_base_url=tools_url,
        tools={"slots": tool_declaration()},
        guardrails_config={"capExecucion": 2},
    )

    await say(app_client, text_envelope("¿qué turnos hay?"))

    [run] = await finished_runs(app_client, bound_tenant)
    await assert_escalated(app_client, bound_tenant, channel, run, "capExecucion")
    assert len(fakes["anthropic"].requests) == 2
    detail = await run_detail(app_client, bound_tenant, run["id"])
    assert len(model_calls(detail)) == 2
    assert len(tools.calls) == 2
    guardrails = [s for s in detail["steps"] if s["kind"] == "guardrail" and s["name"] == "capExecucion"]
    assert [s["status"] for s in guardrails] == ["escalate"]


async def test_cap_conversacion_escalates_before_any_model_call(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
) -> None:
    fakes["openai"].script(TextReply("¡Hola!"), TextReply("No debería llegar nunca."))
    # The binding's params override the version's value.
    await deploy_agent(
        app_client,
        bound_tenant,
        provider="openai",
        tool_base_url=tools_url,
        params={"capConversacion": 1},
        guardrails_config={"capConversacion": 5},
    )

    await say(app_client, text_envelope("hola"))
    await replies(channel)
    [first] = await finished_runs(app_client, bound_tenant)
    assert first["status"] == "completed", first
    channel.sends.clear()

    await say(app_client, text_envelope("¿y mañana?"))
    second, _ = await finished_runs(app_client, bound_tenant, count=2)
    assert second["id"] != first["id"]
    await assert_escalated(app_client, bound_tenant, channel, second, "capConversacion")
    assert len(fakes["openai"].requests) == 1
    detail = await run_detail(app_client, bound_tenant, second["id"])
    assert model_calls(detail) == []
    assert Decimal(detail["costUsd"]) == 0


# --------------------------------------------------------------------------- muted threads


async def test_muted_thread_starts_no_run_until_reactivated(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    settings: Settings,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
) -> None:
    fakes["anthropic"].script(ErrorReply(400, "bad request"), TextReply("¡Hola de nuevo!"))
    await deploy_agent(app_client, bound_tenant, provider="anthropic", tool_base_url=tools_url)
    await say(app_client, text_envelope("hola"))
    [escalated] = await finished_runs(app_client, bound_tenant)
    thread = await assert_escalated(app_client, bound_tenant, channel, escalated, "permanent provider error")

    await say(app_client, text_envelope("¿hay alguien?"))
    _, muted_message = await stored_inbound(app_client, bound_tenant, 2)

    # The thread workflow looked at the turn and left it unanswered because of the mute.
    async def skipped() -> str | None:
        [turn] = await rows(settings, AgentTurn, AgentTurn.message_id == muted_message)
        return turn.skipped_reason

    assert await eventually(skipped) == "muted:handoff"
    assert [run["id"] for run in await runs(app_client, bound_tenant)] == [escalated["id"]]
    assert len(fakes["anthropic"].requests) == 1
    assert channel.sends_to(USER_PHONE) == []

    response = await app_client.post(
        f"/v1/agent-threads/{thread['id']}/reactivate",
        json={"reason": "x"},
        headers=bound_tenant.headers(),
    )
    assert response.status_code == 200, response.text
    assert response.json()["muted"] is False

    await say(app_client, text_envelope("hola otra vez"))
    [sent] = await replies(channel)
    assert sent["text"]["body"] == "¡Hola de nuevo!"
    latest, _ = await finished_runs(app_client, bound_tenant, count=2)
    assert latest["status"] == "completed", latest
    *_, last_message = await inbound_ids(app_client, bound_tenant)
    # The message that arrived while muted is not answered later.
    assert latest["message_ids"] == [last_message]


async def test_message_on_a_muted_thread_moves_updated_at(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    settings: Settings,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
) -> None:
    fakes["anthropic"].script(ErrorReply(400, "bad request"))
    await deploy_agent(app_client, bound_tenant, provider="anthropic", tool_base_url=tools_url)
    await say(app_client, text_envelope("hola"))
    [escalated] = await finished_runs(app_client, bound_tenant)
    thread = await assert_escalated(app_client, bound_tenant, channel, escalated)

    await say(app_client, text_envelope("¿hay alguien?"))
    _, muted_message = await stored_inbound(app_client, bound_tenant, 2)

    async def skipped() -> str | None:
        [turn] = await rows(settings, AgentTurn, AgentTurn.message_id == muted_message)
        return turn.skipped_reason

    assert await eventually(skipped) == "muted:handoff"
    assert (await only_thread(app_client, bound_tenant))["updated_at"] > thread["updated_at"]


# --------------------------------------------------------------------------- deployments change between runs


async def test_disabled_binding_and_repointed_version(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    settings: Settings,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
) -> None:
    headers = bound_tenant.headers()
    fakes["openai"].script(TextReply("Respuesta uno."), TextReply("Respuesta dos."))
    binding = await deploy_agent(
        app_client,
        bound_tenant,
        provider="openai",
        tool_base_url=tools_url,
        system_prompt="PROMPT-VERSION-UNO",
    )
    old_version = binding["agent_version_id"]

    response = await app_client.patch(
        f"/v1/agent-bindings/{binding['id']}", json={"enabled": False}, headers=headers
    )
    assert response.status_code == 200 and response.json()["enabled"] is False, response.text

    await say(app_client, text_envelope("¿están?"))
    [ignored] = await stored_inbound(app_client, bound_tenant, 1)
    # The turn would have been recorded with the message: no thread, no run.
    threads = (await app_client.get("/v1/agent-threads", headers=headers)).json()
    assert threads["total"] == 0 and threads["data"] == []
    assert await runs(app_client, bound_tenant) == []
    assert await rows(settings, AgentTurn, AgentTurn.message_id == ignored) == []

    response = await app_client.patch(
        f"/v1/agent-bindings/{binding['id']}", json={"enabled": True}, headers=headers
    )
    assert response.status_code == 200, response.text
    await say(app_client, text_envelope("hola"))
    await replies(channel)
    [first] = await finished_runs(app_client, bound_tenant)
    assert first["status"] == "completed" and first["agent_version_id"] == old_version, first
    assert ignored not in first["message_ids"]
    assert "PROMPT-VERSION-UNO" in json.dumps(fakes["openai"].requests[0].body)

    version = await app_client.post(
        f"/v1/agents/{binding['agent_id']}/versions",
        json={"system_prompt": "PROMPT-VERSION-DOS", "tools": [], "guardrails_config": {}},
        headers=headers,
    )
    assert version.status_code == 201, version.text
    new_version = version.json()["id"]
    response = await app_client.patch(
        f"/v1/agent-bindings/{binding['id']}", json={"agent_version_id": new_version}, headers=headers
    )
    assert response.status_code == 200 and response.json()["agent_version_id"] == new_version

    await say(app_client, text_envelope("¿y ahora?"))
    await replies(channel, 2)
    second, _ = await finished_runs(app_client, bound_tenant, count=2)
    assert second["status"] == "completed", second
    assert second["agent_version_id"] == new_version
    body = json.dumps(fakes["openai"].requests[-1].body)
    assert "PROMPT-VERSION-DOS" in body and "PROMPT-VERSION-UNO" not in body


async def test_disabled_tool_is_left_out_and_noted(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools: ToolServer,
    tools_url: str,
) -> None:
    fakes["openai"].script(TextReply("Hoy no puedo consultar turnos."))
    await deploy_agent(
        app_client,
        bound_tenant,
        provider="openai",
        tool_base_url=tools_url,
        tools={"slots": tool_declaration(), "prices": tool_declaration(path="/prices")},
    )
    response = await app_client.patch(
        "/v1/agent-tools/slots", json={"enabled": False}, headers=bound_tenant.headers()
    )
    assert response.status_code == 200 and response.json()["enabled"] is False, response.text

    await say(app_client, text_envelope("¿hay turnos?"))

    await replies(channel)
    [run] = await finished_runs(app_client, bound_tenant)
    assert run["status"] == "completed", run
    assert tool_names(fakes["openai"].requests[0].body) == ["prices"]
    assert any("slots" in note and "disabled" in note for note in run["notes"]), run["notes"]
    assert tools.calls == []


# --------------------------------------------------------------------------- milestone tools


async def test_milestone_tool_success_clears_the_history(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools: ToolServer,
    tools_url: str,
) -> None:
    tools.script("/book", (200, {"data": {"id": "bk_1"}}))
    fakes["anthropic"].script(
        ToolCallReply([FakeToolCall("book", {"date": "2026-12-01"}, id="toolu_1")]),
        TextReply("Listo, quedó reservado para el 1 de diciembre."),
    )
    await deploy_agent(
        app_client,
        bound_tenant,
        provider="anthropic",
        tool_base_url=tools_url,
        tools={"book": tool_declaration(method="POST", path="/book", terminates_thread=True)},
    )

    await say(app_client, text_envelope("reservame el 1 de diciembre"))

    [sent] = await replies(channel)
    assert sent["text"]["body"] == "Listo, quedó reservado para el 1 de diciembre."
    [run] = await finished_runs(app_client, bound_tenant)
    assert run["status"] == "completed", run
    assert tools.calls[0]["method"] == "POST"
    thread = await only_thread(app_client, bound_tenant)
    assert thread["messages"] == [] and thread["message_count"] == 0
    assert thread["muted"] is False
    [event] = await agent_events(app_client, bound_tenant, thread["id"], "thread.messages_auto_reset")
    # user, assistant (tool call), tool result, assistant (reply)
    assert event["properties"] == {"milestone_tool": "book", "previous_message_count": 4}
    assert event["run_id"] == run["id"]


async def test_milestone_tool_negocio_keeps_the_history(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools: ToolServer,
    tools_url: str,
) -> None:
    tools.script("/book", (422, {"error": "slot taken"}))
    fakes["anthropic"].script(
        ToolCallReply([FakeToolCall("book", {"date": "2026-12-01"}, id="toolu_1")]),
        TextReply("Ese día no hay lugar, ¿probamos otro?"),
    )
    declaration = tool_declaration(
        method="POST", path="/book", terminates_thread=True, errors={"negocio": [422]}
    )
    await deploy_agent(
        app_client, bound_tenant, provider="anthropic", tool_base_url=tools_url, tools={"book": declaration}
    )

    await say(app_client, text_envelope("reservame el 1 de diciembre"))

    await replies(channel)
    [run] = await finished_runs(app_client, bound_tenant)
    assert run["status"] == "completed", run
    thread = await only_thread(app_client, bound_tenant)
    assert [entry["role"] for entry in thread["messages"]][0] == "user"
    assert thread["message_count"] == 4
    assert await agent_events(app_client, bound_tenant, thread["id"], "thread.messages_auto_reset") == []


# --------------------------------------------------------------------------- bursts and oversized replies


async def test_burst_is_answered_by_one_run(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
) -> None:
    fakes["openai"].script(TextReply("Sí, atendemos los sábados de 9 a 13."), TextReply("segunda respuesta"))
    await deploy_agent(app_client, bound_tenant, provider="openai", tool_base_url=tools_url)

    await asyncio.gather(
        say(app_client, text_envelope("hola, una consulta")),
        say(app_client, text_envelope("¿atienden los sábados?")),
    )

    [sent] = await replies(channel)
    assert sent["text"]["body"] == "Sí, atendemos los sábados de 9 a 13."
    [run] = await finished_runs(app_client, bound_tenant)
    assert run["status"] == "completed", run
    assert sorted(run["message_ids"]) == sorted(await inbound_ids(app_client, bound_tenant))
    assert len(run["message_ids"]) == 2
    [request] = fakes["openai"].requests
    body = json.dumps(request.body, ensure_ascii=False)
    assert "hola, una consulta" in body and "¿atienden los sábados?" in body
    assert len(await runs(app_client, bound_tenant)) == 1


async def test_message_during_a_run_is_answered_by_the_next_run(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
) -> None:
    fakes["anthropic"].script(
        SlowReply(1.5, TextReply("Primera respuesta.")), TextReply("Segunda respuesta.")
    )
    await deploy_agent(app_client, bound_tenant, provider="anthropic", tool_base_url=tools_url)

    await say(app_client, text_envelope("primer mensaje"))

    async def first_call_started() -> bool:
        return len(fakes["anthropic"].requests) == 1

    await eventually(first_call_started)
    await say(app_client, text_envelope("segundo mensaje"))

    sends = await replies(channel, 2)
    assert [send["text"]["body"] for send in sends] == ["Primera respuesta.", "Segunda respuesta."]
    second, first = await finished_runs(app_client, bound_tenant, count=2)
    assert first["status"] == second["status"] == "completed"
    first_id, second_id = await inbound_ids(app_client, bound_tenant)
    assert first["message_ids"] == [first_id] and second["message_ids"] == [second_id]
    # Turns never overlap: the second run saw the first exchange as history.
    body = json.dumps(fakes["anthropic"].requests[1].body, ensure_ascii=False)
    assert "primer mensaje" in body and "Primera respuesta." in body and "segundo mensaje" in body
    assert "segundo mensaje" not in json.dumps(fakes["anthropic"].requests[0].body, ensure_ascii=False)


async def test_reply_over_the_channel_limit_is_not_sent(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
) -> None:
    fakes["anthropic"].script(TextReply("turnos " * 700))  # 4,900 characters (4,899 once stripped)
    await deploy_agent(app_client, bound_tenant, provider="anthropic", tool_base_url=tools_url)

    await say(app_client, text_envelope("contame todo"))

    [run] = await finished_runs(app_client, bound_tenant)
    await assert_escalated(app_client, bound_tenant, channel, run, "refused")
    detail = await run_detail(app_client, bound_tenant, run["id"])
    [reply] = [step for step in detail["steps"] if step["kind"] == "reply"]
    assert reply["status"] == "refused"
    assert channel.sends == [] or all(send.get("status") == "read" for send in channel.sends)
