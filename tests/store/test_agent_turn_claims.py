"""Claiming turns on a muted thread: the skipped turns are checked for urgency first (CONTRACTS 7a).

On a real database (SQLite, and PostgreSQL in CI): a thread muted for another reason whose skipped
turns hold an emergency is handed off, with one ``thread.muted`` event (and its outbox event) saying
what matched; routine turns, or a thread handed off already, change nothing and raise nothing.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from switchboard.models.agent_runtime import AgentEvent, AgentThread, AgentTurn
from switchboard.models.base import utcnow
from switchboard.models.events import Event
from switchboard.models.messaging import Message
from switchboard.models.tenancy import Customer, Tenant
from switchboard.store.agents.threads import claim_turns
from switchboard.store.database import create_engine, session_factory, unit_of_work
from tests.support.agent_threads import new_thread

URGENT = "AYUDA se desmayó mi hijo y no reacciona"
PHONE_NUMBER_ID = "1"


@dataclass
class Muted:
    """A muted thread with pending turns, and the sessions to read it with."""

    sessions: async_sessionmaker[AsyncSession]
    thread_id: str
    message_ids: list[str]


@pytest.fixture
async def sessions(database_url: str) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    engine = create_engine(database_url)
    yield session_factory(engine)
    await engine.dispose()


async def _muted_thread(sessions: async_sessionmaker[AsyncSession], reason: str, texts: list[str]) -> Muted:
    """A thread muted as ``reason`` with one pending turn per text, oldest first."""
    now = utcnow()
    async with unit_of_work(sessions) as session:
        tenant = Tenant(name="claims")
        session.add(tenant)
        await session.flush()
        customer = Customer(tenant_id=tenant.id, name="c")
        session.add(customer)
        await session.flush()
        thread = await new_thread(
            session,
            tenant_id=tenant.id,
            customer_id=customer.id,
            phone_number_id=PHONE_NUMBER_ID,
            muted_at=now - timedelta(minutes=5),
            muted_reason=reason,
        )
        ids = []
        for n, text in enumerate(texts):
            message = Message(
                tenant_id=tenant.id,
                phone_number_id=PHONE_NUMBER_ID,
                direction="inbound",
                message_type="text",
                status="received",
                conversation_id=thread.conversation_id,
                content=text,
                payload={"text": {"body": text}},
            )
            session.add(message)
            await session.flush()
            at = now - timedelta(seconds=len(texts) - n)
            session.add(
                AgentTurn(message_id=message.id, tenant_id=tenant.id, thread_id=thread.id, created_at=at)
            )
            ids.append(message.id)
    return Muted(sessions, thread.id, ids)


async def _claim(muted: Muted, message_ids: list[str]) -> tuple[str | None, list[str]]:
    event_ids: list[str] = []
    async with unit_of_work(muted.sessions) as session:
        run, claimed, why = await claim_turns(
            session,
            thread_id=muted.thread_id,
            message_ids=message_ids,
            now=utcnow(),
            workflow_id_prefix="agent-run-",
            event_ids=event_ids,
        )
    assert run is None and claimed == []
    return why, event_ids


async def _state(muted: Muted) -> tuple[AgentThread, list[AgentEvent], list[AgentTurn], list[Event]]:
    async with muted.sessions() as session:
        thread = await session.get(AgentThread, muted.thread_id)
        assert thread is not None
        events = (
            await session.execute(select(AgentEvent).where(AgentEvent.thread_id == muted.thread_id))
        ).scalars()
        turns = (
            await session.execute(select(AgentTurn).where(AgentTurn.thread_id == muted.thread_id))
        ).scalars()
        outbox = (await session.execute(select(Event).where(Event.tenant_id == thread.tenant_id))).scalars()
        return thread, list(events), list(turns), list(outbox)


@pytest.mark.parametrize("reason", ["human_detected", "cost_cap_thread", "cost_cap_tenant_day"])
async def test_an_emergency_among_skipped_turns_hands_the_thread_off(
    sessions: async_sessionmaker[AsyncSession], reason: str
) -> None:
    muted = await _muted_thread(sessions, reason, ["gracias", URGENT, "¿siguen ahí?"])

    why, event_ids = await _claim(muted, muted.message_ids)

    assert why == "thread muted (handoff)"
    thread, events, turns, outbox = await _state(muted)
    assert thread.muted_reason == "handoff" and thread.muted_at is not None
    [event] = events
    assert event.type == "thread.muted" and event.run_id is None
    urgency = event.properties.pop("urgency")
    assert event.properties == {"muted_reason": "handoff", "run_id": None}
    assert urgency["category"] == "child_symptom" and urgency["matched"]
    assert urgency["message_ids"] == muted.message_ids
    assert {turn.skipped_reason for turn in turns} == {"muted:handoff"}
    [webhook_event] = outbox
    assert event_ids == [webhook_event.id] and webhook_event.kind == "agent.thread.muted"
    assert webhook_event.payload["agent_event"]["id"] == event.id
    assert webhook_event.payload["agent_event"]["properties"]["urgency"] == urgency

    # Once handed off, a later emergency changes nothing and raises no second event.
    later = await _muted_thread(sessions, "handoff", [URGENT])
    assert await _claim(later, later.message_ids) == ("thread muted (handoff)", [])
    assert (await _state(later))[1] == []


@pytest.mark.parametrize("reason", ["human_detected", "cost_cap_tenant_month"])
async def test_routine_skipped_turns_keep_the_mute(
    sessions: async_sessionmaker[AsyncSession], reason: str
) -> None:
    muted = await _muted_thread(sessions, reason, ["hola", "¿tienen turno el martes?"])

    assert await _claim(muted, muted.message_ids) == (f"thread muted ({reason})", [])

    thread, events, turns, outbox = await _state(muted)
    assert thread.muted_reason == reason
    assert events == [] and outbox == []
    assert {turn.skipped_reason for turn in turns} == {f"muted:{reason}"}
