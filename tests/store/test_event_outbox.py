"""The event outbox: how an event's row is written, and which events are stored already dispatched.

Events no enabled webhook wants are marked dispatched (no workflow, never delivered later).
"""

from __future__ import annotations

from datetime import datetime

import pytest
from sqlalchemy import event as sa_event
from sqlalchemy.orm.exc import UnmappedInstanceError
from sqlmodel import col, select

from switchboard.models.base import utcnow
from switchboard.models.events import Event, WebhookEndpoint
from switchboard.models.tenancy import Tenant
from switchboard.store import events
from switchboard.store.database import create_engine, session_factory, unit_of_work
from switchboard.store.webhooks.deliveries import plan_recorded_deliveries


@pytest.fixture
async def sessions(database_url):
    engine = create_engine(database_url)
    factory = session_factory(engine)
    async with unit_of_work(factory) as session:
        session.add(Tenant(id="ten_a", name="A"))
        session.add(Tenant(id="ten_b", name="B"))
    yield factory
    await engine.dispose()


async def _webhook(sessions, **fields) -> None:
    async with unit_of_work(sessions) as session:
        session.add(
            WebhookEndpoint(tenant_id="ten_a", url="https://x.test/h", secret_encrypted="s", **fields)
        )


async def _record(
    sessions, kind: str = "channel.message.received", phone: str | None = "111"
) -> datetime | None:
    async with unit_of_work(sessions) as session:
        event = await events.record_event(
            session,
            tenant_id="ten_a",
            kind=kind,
            payload={"event": kind},
            occurred_at=utcnow(),
            phone_number_id=phone,
        )
    async with sessions() as session:
        pending = await events.awaiting_dispatch(session, [event.id])
    assert (pending == [event.id]) == (event.dispatched_at is None)
    return event.dispatched_at


async def test_no_webhook_means_stored_dispatched(sessions):
    assert await _record(sessions) is not None


@pytest.mark.parametrize(
    ("fields", "kind", "phone", "wanted"),
    [
        ({}, "channel.message.received", "111", True),
        ({"events": ["channel.message.read"]}, "channel.message.received", "111", False),
        ({"phone_number_id": "222"}, "channel.message.received", "111", False),
        ({"phone_number_id": "111"}, "channel.message.received", "111", True),
        ({"enabled": False}, "channel.message.received", "111", False),
        ({"auto_disabled_at": utcnow()}, "channel.message.received", "111", False),
    ],
    ids=["all-events", "other-kind", "other-phone", "same-phone", "disabled", "auto-disabled"],
)
async def test_dispatch_only_when_an_enabled_webhook_wants_it(sessions, fields, kind, phone, wanted):
    await _webhook(sessions, **fields)
    assert (await _record(sessions, kind, phone) is None) is wanted


async def test_webhook_test_events_always_dispatch(sessions):
    assert await _record(sessions, "webhook.test", None) is None


# How an event's row is written: one Core INSERT, the returned copy equal to the stored row.


@pytest.fixture
def inserts(sessions):
    """The INSERTs into events the engine runs from here on: (rows in the call, executemany)."""
    engine = sessions.kw["bind"]
    seen: list[tuple[int, bool]] = []

    def note(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        if statement.lstrip().lower().startswith("insert into events"):
            seen.append((len(parameters) if executemany else 1, executemany))

    sa_event.listen(engine.sync_engine, "before_cursor_execute", note)
    yield seen
    sa_event.remove(engine.sync_engine, "before_cursor_execute", note)


async def _stored(sessions, event_ids: list[str]) -> dict[str, dict]:
    async with sessions() as session:
        rows = (await session.execute(select(Event).where(col(Event.id).in_(event_ids)))).scalars().all()
        return {row.id: row.model_dump() for row in rows}


async def _add(session, kind: str, *, flush: bool = True) -> Event:
    return await events.record_event(
        session,
        tenant_id="ten_a",
        kind=kind,
        payload={"event": kind, "n": [1, 2]},
        occurred_at=utcnow(),
        phone_number_id="111",
        flush=flush,
    )


async def test_an_event_is_one_insert_and_its_copy_is_the_stored_row(sessions, inserts):
    await _webhook(sessions)
    async with unit_of_work(sessions) as session:
        event = await _add(session, "channel.message.sent")
        assert inserts == [(1, False)]  # written at once, before the commit
    stored = await _stored(sessions, [event.id])
    assert stored == {event.id: event.model_dump()}
    assert stored[event.id]["payload"] == {"event": "channel.message.sent", "n": [1, 2]}
    assert inserts == [(1, False)]
    async with sessions() as session:
        with pytest.raises(UnmappedInstanceError):  # no session tracks the copy, nor can one
            session.add(event)


async def test_an_unflushed_event_goes_in_with_the_next_one(sessions, inserts):
    async with unit_of_work(sessions) as session:
        first = await _add(session, "channel.conversation.created", flush=False)
        assert inserts == []
        second = await _add(session, "channel.message.received")
        assert inserts == [(2, True)]  # both rows in one call
    assert set(await _stored(sessions, [first.id, second.id])) == {first.id, second.id}


async def test_an_unflushed_event_is_written_by_the_commit(sessions, inserts):
    async with unit_of_work(sessions) as session:
        event = await _add(session, "channel.conversation.created", flush=False)
    assert inserts == [(1, False)]
    assert set(await _stored(sessions, [event.id])) == {event.id}


async def test_a_rolled_back_event_is_neither_written_nor_held(sessions, inserts):
    async with sessions() as session:
        dropped = await _add(session, "channel.conversation.created", flush=False)
        written = await _add(session, "channel.message.received")
        await session.rollback()
        assert events.recorded_here(session, written.id) is None
        kept = await _add(session, "channel.message.read")
        await session.commit()
    assert set(await _stored(sessions, [dropped.id, written.id, kept.id])) == {kept.id}


async def test_planning_writes_the_unflushed_events_first(sessions):
    await _webhook(sessions)
    async with unit_of_work(sessions) as session:
        event = await _add(session, "channel.conversation.created", flush=False)
        planned = await plan_recorded_deliveries(session, [event.id])
    assert [(e.id, len(hooks)) for e, hooks in planned] == [(event.id, 1)]
    assert set(await _stored(sessions, [event.id])) == {event.id}
