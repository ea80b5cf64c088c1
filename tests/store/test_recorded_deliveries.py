"""Planning the deliveries of events recorded in the same transaction: what is read, and what is planned.

An inbound message records two events and plans their deliveries in one
transaction. With ``read_webhooks_once`` the tenant's active webhooks are read
once for all of that, and the events themselves are never read back; without
it, every question reads again. The planned deliveries are the same either way.
"""

from __future__ import annotations

import gc

import pytest
from sqlalchemy import event as sa_event

from switchboard.models.base import utcnow
from switchboard.models.events import WebhookEndpoint
from switchboard.models.tenancy import Tenant
from switchboard.store import events
from switchboard.store.database import create_engine, session_factory, unit_of_work
from switchboard.store.webhooks.active import read_webhooks_once
from switchboard.store.webhooks.deliveries import delivery_id_for, plan_recorded_deliveries

RECEIVED = "channel.message.received"
CREATED = "channel.conversation.created"


@pytest.fixture
async def engine(database_url):
    engine = create_engine(database_url)
    async with unit_of_work(session_factory(engine)) as session:
        session.add(Tenant(id="ten_a", name="A"))
        session.add(Tenant(id="ten_b", name="B"))
    async with unit_of_work(session_factory(engine)) as session:
        for tenant, url, kinds, enabled in [
            ("ten_a", "https://a.test/all", None, True),
            ("ten_a", "https://a.test/received", [RECEIVED], True),
            ("ten_a", "https://a.test/off", None, False),
            ("ten_b", "https://b.test/all", None, True),
        ]:
            session.add(
                WebhookEndpoint(
                    tenant_id=tenant, url=url, events=kinds, enabled=enabled, secret_encrypted="s"
                )
            )
    yield engine
    await engine.dispose()


@pytest.fixture
def statements(engine):
    """The SQL the engine runs from here on, lower-cased on one line."""
    seen: list[str] = []

    def note(conn, cursor, statement, parameters, context, executemany):
        seen.append(" ".join(statement.split()).lower())

    sa_event.listen(engine.sync_engine, "before_cursor_execute", note)
    yield seen
    sa_event.remove(engine.sync_engine, "before_cursor_execute", note)


async def _record_two(session) -> list[str]:
    """What an inbound message from a new user records: conversation.created, then message.received.

    Only the ids are kept, as the inbound code keeps them: the event objects are let go.
    """
    ids = []
    for kind in (CREATED, RECEIVED):
        recorded = await events.record_event(
            session, tenant_id="ten_a", kind=kind, payload={"event": kind}, occurred_at=utcnow()
        )
        ids.append(recorded.id)
    gc.collect()
    return ids


def _reads_of(statements: list[str], table: str) -> int:
    return sum(1 for s in statements if s.startswith("select") and f" from {table} " in f"{s} ")


async def _plan(engine, statements, *, once: bool) -> dict[str, list[str]]:
    async with unit_of_work(session_factory(engine)) as session:
        if once:
            read_webhooks_once(session)
        ids = await _record_two(session)
        statements.clear()
        planned = await plan_recorded_deliveries(session, ids)
    return {event.kind: sorted(webhooks) for event, webhooks in planned}


async def _webhook_ids(engine) -> dict[str, str]:
    async with session_factory(engine)() as session:
        rows = (await session.execute(WebhookEndpoint.__table__.select())).all()  # type: ignore[attr-defined]
    return {row.url: row.id for row in rows}


async def test_one_webhook_read_and_no_event_read_back(engine, statements):
    async with unit_of_work(session_factory(engine)) as session:
        read_webhooks_once(session)
        statements.clear()
        ids = await _record_two(session)
        planned = await plan_recorded_deliveries(session, ids)
    assert _reads_of(statements, "webhook_endpoints") == 1
    assert _reads_of(statements, "events") == 0
    assert [event.id for event, _ in planned] == ids


async def test_without_opting_in_every_question_reads(engine, statements):
    async with unit_of_work(session_factory(engine)) as session:
        statements.clear()
        ids = await _record_two(session)
        await plan_recorded_deliveries(session, ids)
    # One read per event recorded (is it wanted?) and one per event planned (by whom?).
    assert _reads_of(statements, "webhook_endpoints") == 4


async def test_same_deliveries_either_way(engine, statements):
    hooks = await _webhook_ids(engine)
    expected = {
        CREATED: sorted([hooks["https://a.test/all"]]),
        RECEIVED: sorted([hooks["https://a.test/all"], hooks["https://a.test/received"]]),
    }
    assert await _plan(engine, statements, once=True) == expected
    assert await _plan(engine, statements, once=False) == expected


async def test_an_event_recorded_elsewhere_is_read(engine, statements):
    async with unit_of_work(session_factory(engine)) as session:
        [created, received] = await _record_two(session)
    async with unit_of_work(session_factory(engine)) as session:
        read_webhooks_once(session)
        statements.clear()
        planned = await plan_recorded_deliveries(session, [received])
    assert _reads_of(statements, "events") == 1
    assert [event.id for event, _ in planned] == [received]
    assert created != received


async def test_planning_twice_inserts_each_delivery_once(engine, statements):
    hooks = await _webhook_ids(engine)
    async with unit_of_work(session_factory(engine)) as session:
        read_webhooks_once(session)
        ids = await _record_two(session)
        await plan_recorded_deliveries(session, ids)
        again = await plan_recorded_deliveries(session, ids)
    async with session_factory(engine)() as session:
        rows = (
            await session.execute(
                WebhookEndpoint.metadata.tables["webhook_deliveries"].select()  # type: ignore[union-attr]
            )
        ).all()
    assert sorted(row.id for row in rows) == sorted(
        delivery_id_for(event.id, webhook_id) for event, webhook_ids in again for webhook_id in webhook_ids
    )
    assert len(rows) == 3
    assert hooks["https://a.test/off"] not in {row.webhook_id for row in rows}
