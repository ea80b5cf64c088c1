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
PHONE = "111"


@pytest.fixture
async def engine(database_url):
    engine = create_engine(database_url)
    async with unit_of_work(session_factory(engine)) as session:
        session.add(Tenant(id="ten_a", name="A"))
        session.add(Tenant(id="ten_b", name="B"))
    async with unit_of_work(session_factory(engine)) as session:
        for tenant, url, fields in [
            ("ten_a", "https://a.test/all", {}),
            ("ten_a", "https://a.test/received", {"events": [RECEIVED]}),
            ("ten_a", "https://a.test/off", {"enabled": False}),
            ("ten_a", "https://a.test/auto-off", {"auto_disabled_at": utcnow()}),
            ("ten_a", "https://a.test/other-number", {"phone_number_id": "222"}),
            ("ten_a", "https://a.test/this-number", {"phone_number_id": PHONE}),
            ("ten_b", "https://b.test/all", {}),
        ]:
            session.add(WebhookEndpoint(tenant_id=tenant, url=url, secret_encrypted="s", **fields))
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


async def _record_two(session, tenant_id: str = "ten_a") -> list[str]:
    """What an inbound message from a new user records: conversation.created, then message.received.

    Only the ids are kept, as the inbound code keeps them: the event objects are let go.
    """
    ids = []
    for kind in (CREATED, RECEIVED):
        recorded = await events.record_event(
            session,
            tenant_id=tenant_id,
            kind=kind,
            payload={"event": kind},
            occurred_at=utcnow(),
            phone_number_id=PHONE,
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
    # Not the disabled, auto-disabled or other number's webhooks, nor the other tenant's.
    expected = {
        CREATED: sorted([hooks["https://a.test/all"], hooks["https://a.test/this-number"]]),
        RECEIVED: sorted(
            [
                hooks["https://a.test/all"],
                hooks["https://a.test/received"],
                hooks["https://a.test/this-number"],
            ]
        ),
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
    assert len(rows) == 5
    assert hooks["https://a.test/off"] not in {row.webhook_id for row in rows}


async def test_each_tenant_gets_its_own_webhooks_in_one_transaction(engine, statements):
    hooks = await _webhook_ids(engine)
    async with unit_of_work(session_factory(engine)) as session:
        read_webhooks_once(session)
        statements.clear()
        ids_a = await _record_two(session, "ten_a")
        ids_b = await _record_two(session, "ten_b")
        planned = await plan_recorded_deliveries(session, ids_b + ids_a)
    assert _reads_of(statements, "webhook_endpoints") == 2  # once per tenant
    by_event = {event.id: (event.tenant_id, sorted(webhooks)) for event, webhooks in planned}
    assert [by_event[event_id] for event_id in ids_b] == [("ten_b", [hooks["https://b.test/all"]])] * 2
    for event_id in ids_a:
        tenant, found = by_event[event_id]
        assert tenant == "ten_a" and found and hooks["https://b.test/all"] not in found


async def test_an_event_named_twice_is_planned_once(engine, statements):
    async with unit_of_work(session_factory(engine)) as session:
        read_webhooks_once(session)
        [created, received] = await _record_two(session)
        planned = await plan_recorded_deliveries(session, [received, created, received])
    assert [event.id for event, _ in planned] == [received, created]
