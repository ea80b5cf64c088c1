"""Loading a delivery for an attempt: the delivery, its event and its webhook in one statement.

Every webhook attempt starts with this read. It answers None when the delivery is gone, hands back a
webhook that another session changed (the attempt decides on its current state), and reads nothing else.
"""

from __future__ import annotations

import pytest
from sqlalchemy import delete, update
from sqlalchemy import event as sa_event

from switchboard.models.events import WebhookDelivery, WebhookEndpoint
from switchboard.store.database import create_engine, session_factory, unit_of_work
from switchboard.store.webhooks.deliveries import load_delivery
from tests.support.webhook_rows import one_delivery


@pytest.fixture
async def engine(database_url):
    engine = create_engine(database_url)
    yield engine
    await engine.dispose()


async def test_the_delivery_its_event_and_its_webhook_come_in_one_statement(engine):
    delivery_id, event_id, webhook_id = await one_delivery(engine)
    seen: list[str] = []

    def note(conn, cursor, statement, parameters, context, executemany):
        seen.append(statement)

    sa_event.listen(engine.sync_engine, "before_cursor_execute", note)
    try:
        async with unit_of_work(session_factory(engine)) as session:
            context = await load_delivery(session, delivery_id)
    finally:
        sa_event.remove(engine.sync_engine, "before_cursor_execute", note)
    assert context is not None
    assert (context.delivery.id, context.event.id, context.event.payload) == (delivery_id, event_id, {"n": 1})
    assert context.webhook is not None and context.webhook.id == webhook_id
    assert context.delivery.status == "pending"
    assert len(seen) == 1, seen


async def test_the_rows_are_copies_no_session_tracks_typed_as_the_orm_reads_them(engine):
    delivery_id, _, _ = await one_delivery(engine)
    async with unit_of_work(session_factory(engine)) as session:
        context = await load_delivery(session, delivery_id)
        assert context is not None and context.webhook is not None
        # Nothing loaded into the session: the attempt writes with statements, nothing is flushed back.
        assert len(session.identity_map) == 0
    # The column types' own conversions applied: aware UTC times, JSON as Python values.
    assert context.event.occurred_at.tzinfo is not None
    assert context.delivery.created_at.tzinfo is not None
    assert isinstance(context.event.payload, dict)
    assert context.webhook.enabled is True and context.webhook.auto_disabled_at is None


async def test_a_webhook_changed_elsewhere_is_read_as_it_is_now(engine):
    delivery_id, _, webhook_id = await one_delivery(engine)
    sessions = session_factory(engine)
    async with unit_of_work(sessions) as session:
        first = await load_delivery(session, delivery_id)
        assert first is not None and first.webhook is not None and first.webhook.enabled
        async with unit_of_work(sessions) as other:
            await other.execute(
                update(WebhookEndpoint).where(WebhookEndpoint.id == webhook_id).values(enabled=False)
            )
        again = await load_delivery(session, delivery_id)
    assert again is not None and again.webhook is not None
    assert again.webhook.enabled is False


async def test_a_delivery_that_is_gone_loads_as_none(engine):
    delivery_id, _, webhook_id = await one_delivery(engine)
    async with unit_of_work(session_factory(engine)) as session:
        assert await load_delivery(session, "whd_missing") is None
    async with unit_of_work(session_factory(engine)) as session:
        # Deleting the webhook takes its deliveries with it (ON DELETE CASCADE, on both databases).
        await session.execute(delete(WebhookEndpoint).where(WebhookEndpoint.id == webhook_id))
    async with unit_of_work(session_factory(engine)) as session:
        assert await session.get(WebhookDelivery, delivery_id) is None
        assert await load_delivery(session, delivery_id) is None
