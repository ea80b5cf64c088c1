"""Recording a delivery attempt: the attempt once, its count (settling a success), the webhook's clock.

PostgreSQL writes the three as one statement (data-modifying CTEs), SQLite as three in a
transaction; these tests hold both to the same answers, row by row.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import delete, update

from switchboard.models.events import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from switchboard.store.database import create_engine, session_factory, unit_of_work
from switchboard.store.webhooks.deliveries import CLOCK_GRANULARITY, RecordedAttempt, record_attempt
from tests.support.webhook_rows import one_delivery

AT = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
async def engine(database_url):
    engine = create_engine(database_url)
    yield engine
    await engine.dispose()


async def _record(engine, delivery_id: str, *, attempt: int, success: bool, at: datetime = AT):
    async with unit_of_work(session_factory(engine)) as session:
        return await record_attempt(
            session,
            delivery_id=delivery_id,
            attempt=attempt,
            success=success,
            status_code=200 if success else 503,
            latency_ms=12,
            error=None if success else "HTTP 503",
            at=at,
        )


async def _rows(engine, delivery_id: str, webhook_id: str):
    async with session_factory(engine)() as session:
        delivery = await session.get(WebhookDelivery, delivery_id)
        webhook = await session.get(WebhookEndpoint, webhook_id)
        attempts = (
            await session.execute(
                WebhookAttempt.__table__.select().where(WebhookAttempt.__table__.c.delivery_id == delivery_id)
            )
        ).all()
    return delivery, webhook, attempts


async def _set(engine, model, row_id: str, **values) -> None:
    async with unit_of_work(session_factory(engine)) as session:
        await session.execute(update(model).where(model.id == row_id).values(**values))


async def test_a_success_settles_its_pending_delivery_and_resets_the_clock(engine):
    delivery_id, _, webhook_id = await one_delivery(engine)
    await _set(engine, WebhookEndpoint, webhook_id, failing_since=AT - timedelta(hours=1))

    assert await _record(engine, delivery_id, attempt=1, success=True) == RecordedAttempt(settled=True)

    delivery, webhook, attempts = await _rows(engine, delivery_id, webhook_id)
    assert (delivery.status, delivery.attempts, delivery.completed_at) == ("succeeded", 1, AT)
    assert (webhook.failing_since, webhook.last_success_at, webhook.exhausted_since_success) == (None, AT, 0)
    [row] = attempts
    assert (row.attempt, row.success, row.status_code, row.tenant_id, row.webhook_id) == (
        1,
        True,
        200,
        delivery.tenant_id,
        webhook_id,
    )


async def test_the_same_attempt_again_records_nothing_and_changes_nothing(engine):
    delivery_id, _, webhook_id = await one_delivery(engine)
    assert await _record(engine, delivery_id, attempt=1, success=False) == RecordedAttempt(settled=False)
    later = AT + timedelta(hours=1)

    assert await _record(engine, delivery_id, attempt=1, success=True, at=later) is None

    delivery, webhook, attempts = await _rows(engine, delivery_id, webhook_id)
    assert (delivery.status, delivery.attempts, delivery.completed_at) == ("pending", 1, None)
    assert (webhook.failing_since, webhook.last_failure_at, webhook.last_success_at) == (AT, AT, None)
    assert [(row.attempt, row.success) for row in attempts] == [(1, False)]


async def test_a_failure_counts_and_starts_the_clock_and_a_second_keeps_its_start(engine):
    delivery_id, _, webhook_id = await one_delivery(engine)
    second = AT + CLOCK_GRANULARITY + timedelta(seconds=1)

    assert await _record(engine, delivery_id, attempt=1, success=False) == RecordedAttempt(settled=False)
    assert await _record(engine, delivery_id, attempt=2, success=False, at=second) == RecordedAttempt(
        settled=False
    )

    delivery, webhook, attempts = await _rows(engine, delivery_id, webhook_id)
    assert (delivery.status, delivery.attempts) == ("pending", 2)
    assert (webhook.failing_since, webhook.last_failure_at) == (AT, second)
    assert len(attempts) == 2


async def test_a_success_on_a_settled_delivery_counts_without_settling_it_again(engine):
    delivery_id, _, webhook_id = await one_delivery(engine)
    await _set(engine, WebhookDelivery, delivery_id, status="failed", completed_at=AT - timedelta(minutes=1))

    assert await _record(engine, delivery_id, attempt=1, success=True) == RecordedAttempt(settled=False)

    delivery, webhook, _ = await _rows(engine, delivery_id, webhook_id)
    assert (delivery.status, delivery.attempts, delivery.completed_at) == (
        "failed",
        1,
        AT - timedelta(minutes=1),
    )
    assert webhook.last_success_at == AT


async def test_a_healthy_webhooks_clock_is_left_alone_within_the_granularity(engine):
    delivery_id, _, webhook_id = await one_delivery(engine)
    recent = AT - CLOCK_GRANULARITY / 2
    await _set(engine, WebhookEndpoint, webhook_id, last_success_at=recent)

    assert await _record(engine, delivery_id, attempt=1, success=True) == RecordedAttempt(settled=True)

    _, webhook, _ = await _rows(engine, delivery_id, webhook_id)
    assert webhook.last_success_at == recent


async def test_a_vanished_delivery_records_nothing(engine):
    delivery_id, _, webhook_id = await one_delivery(engine)
    async with unit_of_work(session_factory(engine)) as session:
        await session.execute(delete(WebhookDelivery).where(WebhookDelivery.id == delivery_id))

    assert await _record(engine, delivery_id, attempt=1, success=True) is None

    delivery, webhook, attempts = await _rows(engine, delivery_id, webhook_id)
    assert (delivery, attempts, webhook.last_success_at) == (None, [], None)
