"""The guardrails floor end to end through /channel/webhook: urgency, human takeover, output safety, cost caps."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx

from tests.conftest import ADMIN_KEY
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
from tests.fakes.scripting import FakeProvider, FakeToolCall, TextReply, ToolCallReply
from tests.fixtures.channel import USER_PHONE, load
from tests.support.fake_channel import FakeChannel
from tests.support.tenants import TenantFixture

ADMIN = {"X-Admin-Key": ADMIN_KEY}


async def _thread(client: httpx.AsyncClient, tenant: TenantFixture) -> dict[str, Any]:
    data = (await client.get("/v1/agent-threads", headers=tenant.headers())).json()["data"]
    assert len(data) == 1, data
    return dict(data[0])


async def _events(client: httpx.AsyncClient, tenant: TenantFixture, thread_id: str) -> list[dict[str, Any]]:
    response = await client.get("/v1/agent-events", params={"thread_id": thread_id}, headers=tenant.headers())
    return list(reversed(response.json()["data"]))


async def _first_turn(
    client: httpx.AsyncClient, tenant: TenantFixture, fake: FakeProvider, channel: FakeChannel, tools_url: str
) -> dict[str, Any]:
    fake.script(TextReply("¡Hola! ¿En qué te ayudo?"))
    await deploy_agent(client, tenant, provider="anthropic", tool_base_url=tools_url)
    await say(client, text_envelope("hola"))
    [run] = await finished_runs(client, tenant)
    assert run["status"] == "completed", run
    return await _thread(client, tenant)


async def test_urgency_hands_off_before_any_model_call(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
) -> None:
    await deploy_agent(app_client, bound_tenant, provider="anthropic", tool_base_url=tools_url)

    await say(
        app_client, text_envelope("Hola, mi papá tiene un dolor fuerte en el pecho y le cuesta respirar")
    )

    [run] = await finished_runs(app_client, bound_tenant)
    assert run["status"] == "escalated" and "urgency" in run["errorMessage"], run
    assert fakes["anthropic"].requests == [] and channel.sends_to(USER_PHONE) == []
    detail = await run_detail(app_client, bound_tenant, run["id"])
    [urgency] = [s for s in detail["steps"] if s["kind"] == "guardrail" and s["name"] == "urgency"]
    assert urgency["status"] == "handoff" and urgency["data"]["category"]
    thread = await _thread(app_client, bound_tenant)
    assert thread["muted_reason"] == "handoff" and thread["muted_at"]
    events = await _events(app_client, bound_tenant, thread["id"])
    assert [(e["type"], e["properties"]["muted_reason"]) for e in events] == [("thread.muted", "handoff")]


async def test_urgency_on_a_thread_muted_for_another_reason_turns_it_into_handoff(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
) -> None:
    thread = await _first_turn(app_client, bound_tenant, fakes["anthropic"], channel, tools_url)
    reply = await app_client.post(
        f"/v1/inbox-embed/conversations/{thread['conversation_id']}/messages",
        json={"text": "Hola, soy Ana de recepción"},
        headers=bound_tenant.headers(),
    )
    assert reply.status_code in (201, 202), reply.text

    async def muted_by_human() -> bool:
        return (await _thread(app_client, bound_tenant))["muted_reason"] == "human_detected"

    await eventually(muted_by_human)
    await say(app_client, text_envelope("AYUDA se desmayó mi hijo y no reacciona"))

    async def handed_off() -> bool:
        return (await _thread(app_client, bound_tenant))["muted_reason"] == "handoff"

    await eventually(handed_off)
    assert len(await runs(app_client, bound_tenant)) == 1, "a muted thread starts no run"
    # No run made the decision: the event says what matched.
    handoff = (await _events(app_client, bound_tenant, thread["id"]))[-1]
    assert handoff["run_id"] is None and handoff["properties"]["muted_reason"] == "handoff"
    assert handoff["properties"]["urgency"]["category"] == "child_symptom"


async def test_a_business_app_echo_mutes_the_thread_at_once(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
) -> None:
    thread = await _first_turn(app_client, bound_tenant, fakes["anthropic"], channel, tools_url)
    echo = load("smb_message_echoes")
    message = echo["entry"][0]["changes"][0]["value"]["message_echoes"][0]
    message["timestamp"] = str(int(time.time()))
    await say(app_client, json.dumps(echo).encode())

    async def muted() -> dict[str, Any] | None:
        current = await _thread(app_client, bound_tenant)
        return current if current["muted_reason"] == "human_detected" else None

    muted_thread = await eventually(muted)
    assert muted_thread["id"] == thread["id"]
    await say(app_client, text_envelope("¿siguen ahí?"))
    assert len(await runs(app_client, bound_tenant)) == 1


async def test_a_human_reply_before_the_turn_is_found_by_the_scan(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
) -> None:
    # A person answers in the inbox before the agent was ever deployed: no thread to mute yet.
    await say(app_client, text_envelope("hola, ¿hay alguien?"))

    async def conversation() -> str | None:
        data = (await app_client.get("/v1/inbox-embed/conversations", headers=bound_tenant.headers())).json()
        return data["data"][0]["id"] if data.get("data") else None

    conversation_id = await eventually(conversation)
    reply = await app_client.post(
        f"/v1/inbox-embed/conversations/{conversation_id}/messages",
        json={"text": "Sí, te escucho", "requireAgentLogin": True, "agent_id": "ana"},
        headers=bound_tenant.headers(),
    )
    assert reply.status_code in (201, 202), reply.text
    await deploy_agent(app_client, bound_tenant, provider="anthropic", tool_base_url=tools_url)

    await say(app_client, text_envelope("quería un turno"))

    [run] = await finished_runs(app_client, bound_tenant)
    assert run["status"] == "escalated" and "a person wrote" in run["errorMessage"], run
    assert fakes["anthropic"].requests == []
    assert (await _thread(app_client, bound_tenant))["muted_reason"] == "human_detected"


async def test_a_claimed_booking_without_a_tool_call_is_blocked(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
) -> None:
    fakes["openai"].script(TextReply("¡Listo! Tu turno quedó reservado para el martes a las 10."))
    await deploy_agent(app_client, bound_tenant, provider="openai", tool_base_url=tools_url)

    await say(app_client, text_envelope("reservame el martes a las 10"))

    [run] = await finished_runs(app_client, bound_tenant)
    assert run["status"] == "escalated" and "output safety" in run["errorMessage"], run
    assert channel.sends_to(USER_PHONE) == []
    detail = await run_detail(app_client, bound_tenant, run["id"])
    [safety] = [s for s in detail["steps"] if s["name"] == "output_safety"]
    assert safety["status"] == "block" and safety["data"]["action"] == "booked"
    assert (await _thread(app_client, bound_tenant))["muted_reason"] == "handoff"


async def test_a_claimed_booking_after_a_successful_post_is_sent(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools: ToolServer,
    tools_url: str,
) -> None:
    tools.script("/bookings", (201, {"data": {"id": "bk_1"}}))
    fakes["openai"].script(
        ToolCallReply([FakeToolCall("book", {"date": "2026-12-01"}, id="call_b")]),
        TextReply("¡Listo! Tu turno quedó reservado para el martes a las 10."),
    )
    await deploy_agent(
        app_client,
        bound_tenant,
        provider="openai",
        tool_base_url=tools_url,
        tools={"book": tool_declaration(method="POST", path="/bookings")},
    )

    await say(app_client, text_envelope("reservame el martes a las 10"))

    [run] = await finished_runs(app_client, bound_tenant)
    assert run["status"] == "completed", run
    assert tools.calls[0]["json"] == {"date": "2026-12-01", "phone": USER_PHONE}

    async def replied() -> list[dict[str, Any]]:
        return channel.sends_to(USER_PHONE)

    assert (await eventually(replied))[0]["text"]["body"].startswith("¡Listo!")


async def test_the_tenant_day_cap_stops_the_call_and_mutes(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
) -> None:
    patched = await app_client.patch(
        f"/v1/admin/tenants/{bound_tenant.id}", json={"cost_cap_day_usd": "0.0001"}, headers=ADMIN
    )
    assert patched.status_code == 200, patched.text
    await deploy_agent(app_client, bound_tenant, provider="anthropic", tool_base_url=tools_url)

    await say(app_client, text_envelope("hola"))

    [run] = await finished_runs(app_client, bound_tenant)
    assert run["status"] == "escalated" and "cost cap reached (tenant_day)" in run["errorMessage"], run
    assert fakes["anthropic"].requests == [] and channel.sends_to(USER_PHONE) == []
    thread = await _thread(app_client, bound_tenant)
    assert thread["muted_reason"] == "cost_cap_tenant_day"
    events = await _events(app_client, bound_tenant, thread["id"])
    assert [(e["type"], e["properties"]["muted_reason"]) for e in events] == [
        ("thread.muted", "cost_cap_tenant_day")
    ]
