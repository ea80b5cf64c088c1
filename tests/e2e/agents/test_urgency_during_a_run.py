"""An urgent message that arrives while a run is in progress, on a thread that run's time ends muted.

The run's model call is held at the fake provider, so the run is in progress for as long as the test
needs: the customer writes an emergency (queued for the next run, the thread still active), then the
thread mutes for another reason (a person writes from the business app, or the run's next model call
passes the tenant's daily cap). No run will read the emergency, yet the thread ends handed off, with a
``thread.muted`` event that reaches GET /v1/agent-events and the tenant's webhook.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from fastapi import Request

from switchboard.models.agent_runtime import AgentTurn
from switchboard.settings import Settings
from tests.e2e.agents.support import (
    ADMIN,
    deploy_agent,
    eventually,
    finished_runs,
    runs,
    say,
    text_envelope,
    tool_declaration,
)
from tests.fakes.scripting import FakeProvider, FakeToolCall, Reply, TextReply, ToolCallReply
from tests.fixtures.channel import USER_PHONE, load
from tests.support.fake_channel import FakeChannel
from tests.support.http_server import serve_app
from tests.support.inbound import rows
from tests.support.tenants import TenantFixture
from tests.workflows.test_webhook_support import Receiver

URGENT = "AYUDA se desmayó mi hijo y no reacciona"


class HeldCall:
    """Holds the fake provider's first answer until ``release``: a run in progress, without sleeps."""

    def __init__(self, fake: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> None:
        self.arrived = asyncio.Event()
        self.released = asyncio.Event()
        receive = fake.receive

        async def held(request: Request) -> tuple[Any, Reply]:
            answer = await receive(request)
            if not self.arrived.is_set():
                self.arrived.set()
                await self.released.wait()
            return answer

        monkeypatch.setattr(fake, "receive", held)

    async def wait(self) -> None:
        await asyncio.wait_for(self.arrived.wait(), timeout=20)

    def release(self) -> None:
        self.released.set()


@pytest.fixture
def held(fakes: dict[str, FakeProvider], monkeypatch: pytest.MonkeyPatch) -> Iterator[HeldCall]:
    """The Anthropic fake's first answer, held (and let go at teardown, so no server is left waiting)."""
    call = HeldCall(fakes["anthropic"], monkeypatch)
    yield call
    call.release()


@pytest.fixture
async def hook(app_client: httpx.AsyncClient, bound_tenant: TenantFixture) -> AsyncIterator[Receiver]:
    """A tenant webhook subscribed to agent.thread.muted."""
    endpoint = Receiver()
    async with serve_app(endpoint.app()) as base_url:
        response = await app_client.post(
            "/v1/webhooks",
            json={"url": f"{base_url}/hook", "events": ["agent.thread.muted"]},
            headers=bound_tenant.headers(),
        )
        assert response.status_code == 201, response.text
        yield endpoint


async def _thread(client: httpx.AsyncClient, tenant: TenantFixture) -> dict[str, Any]:
    [thread] = (await client.get("/v1/agent-threads", headers=tenant.headers())).json()["data"]
    return dict(thread)


async def _muted_as(client: httpx.AsyncClient, tenant: TenantFixture, reason: str) -> dict[str, Any]:
    async def check() -> dict[str, Any] | None:
        thread = await _thread(client, tenant)
        return thread if thread["muted_reason"] == reason else None

    return dict(await eventually(check))


async def _inbound(client: httpx.AsyncClient, tenant: TenantFixture, count: int) -> list[str]:
    """Wait until ``count`` inbound messages are stored (each with its turn); their ids, oldest first."""

    async def check() -> list[str] | None:
        response = await client.get(
            "/v1/messages", params={"direction": "inbound", "per_page": 100}, headers=tenant.headers()
        )
        data = sorted(response.json()["data"], key=lambda m: m["created_at"])
        return [m["id"] for m in data] if len(data) >= count else None

    return list(await eventually(check))


async def _muted_events(
    client: httpx.AsyncClient, tenant: TenantFixture, thread_id: str
) -> list[dict[str, Any]]:
    response = await client.get(
        "/v1/agent-events", params={"thread_id": thread_id, "type": "thread.muted"}, headers=tenant.headers()
    )
    assert response.status_code == 200, response.text
    return list(reversed(response.json()["data"]))


async def _assert_handed_off(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    settings: Settings,
    hook: Receiver,
    *,
    first_reason: str,
    urgent_ids: list[str],
) -> dict[str, Any]:
    """The thread ends handoff: one more thread.muted event, in the API and at the webhook; that event."""
    thread = await _muted_as(client, tenant, "handoff")
    first, handoff = await _muted_events(client, tenant, thread["id"])
    assert first["properties"]["muted_reason"] == first_reason
    assert handoff["run_id"] is None
    urgency = handoff["properties"].pop("urgency")
    assert handoff["properties"] == {"muted_reason": "handoff", "run_id": None}
    assert urgency["category"] and urgency["matched"] and urgency["message_ids"] == urgent_ids

    async def delivered() -> list[dict[str, Any]] | None:
        bodies = [json.loads(r.body)["agent_event"] for r in hook.at("/hook")]
        return bodies if len(bodies) >= 2 else None

    bodies = {body["id"]: body for body in await eventually(delivered)}
    assert bodies.keys() == {first["id"], handoff["id"]}
    assert bodies[first["id"]]["properties"]["muted_reason"] == first_reason
    assert bodies[handoff["id"]]["properties"] == {
        "muted_reason": "handoff",
        "run_id": None,
        "urgency": urgency,
    }
    turns = await rows(settings, AgentTurn, AgentTurn.thread_id == thread["id"])
    assert {t.skipped_reason for t in turns if t.message_id in urgent_ids} == {"muted:handoff"}
    return handoff


async def test_an_emergency_during_a_run_the_business_app_takes_over(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    settings: Settings,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
    hook: Receiver,
    held: HeldCall,
) -> None:
    fake = fakes["anthropic"]
    fake.script(TextReply("¡Hola! ¿En qué te ayudo?"))
    await deploy_agent(app_client, bound_tenant, provider="anthropic", tool_base_url=tools_url)
    await say(app_client, text_envelope("hola"))
    await held.wait()

    # During the run: two messages for the next run, an emergency among them (the thread is active).
    await say(app_client, text_envelope("una consulta más"))
    await say(app_client, text_envelope(URGENT))
    _, *queued = await _inbound(app_client, bound_tenant, 3)
    assert (await _thread(app_client, bound_tenant))["muted"] is False
    # A person answers from the business app: the thread mutes as human_detected at once.
    echo = load("smb_message_echoes")
    echo["entry"][0]["changes"][0]["value"]["message_echoes"][0]["timestamp"] = str(int(time.time()))
    await say(app_client, json.dumps(echo).encode())
    await _muted_as(app_client, bound_tenant, "human_detected")
    held.release()

    [run] = await finished_runs(app_client, bound_tenant)
    assert run["status"] == "completed", run
    await _assert_handed_off(
        app_client, bound_tenant, settings, hook, first_reason="human_detected", urgent_ids=queued
    )
    assert len(await runs(app_client, bound_tenant)) == 1 and len(fake.requests) == 1

    # A later emergency on the handed-off thread changes nothing and raises no second event.
    await say(app_client, text_envelope("me duele mucho el pecho y no puedo respirar"))
    *_, later = await _inbound(app_client, bound_tenant, 4)

    async def skipped() -> str | None:
        [turn] = await rows(settings, AgentTurn, AgentTurn.message_id == later)
        return turn.skipped_reason

    assert await eventually(skipped) == "muted:handoff"
    thread = await _thread(app_client, bound_tenant)
    assert len(await _muted_events(app_client, bound_tenant, thread["id"])) == 2
    assert channel.sends_to(USER_PHONE)[0]["text"]["body"] == "¡Hola! ¿En qué te ayudo?"


async def test_an_emergency_during_a_run_that_reaches_the_day_cap(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    settings: Settings,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
    hook: Receiver,
    held: HeldCall,
) -> None:
    fake = fakes["anthropic"]
    fake.script(ToolCallReply([FakeToolCall("slots", {"date": "2026-12-01"}, id="call_s")]))
    await deploy_agent(
        app_client,
        bound_tenant,
        provider="anthropic",
        tool_base_url=tools_url,
        tools={"slots": tool_declaration()},
    )
    await say(app_client, text_envelope("¿hay turno el martes?"))
    await held.wait()

    await say(app_client, text_envelope(URGENT))
    _, urgent = await _inbound(app_client, bound_tenant, 2)
    # The run's next model call will not fit under the tenant's daily cap.
    patched = await app_client.patch(
        f"/v1/admin/tenants/{bound_tenant.id}", json={"cost_cap_day_usd": "0.0001"}, headers=ADMIN
    )
    assert patched.status_code == 200, patched.text
    held.release()

    [run] = await finished_runs(app_client, bound_tenant)
    assert run["status"] == "escalated" and "cost cap reached (tenant_day)" in run["errorMessage"], run
    handoff = await _assert_handed_off(
        app_client, bound_tenant, settings, hook, first_reason="cost_cap_tenant_day", urgent_ids=[urgent]
    )
    [cap] = (await _muted_events(app_client, bound_tenant, handoff["thread_id"]))[:1]
    assert cap["run_id"] == run["id"]
    assert len(await runs(app_client, bound_tenant)) == 1 and len(fake.requests) == 1
    assert channel.sends_to(USER_PHONE) == []
