"""Tenant events, deliveries and attempts are pruned after EVENT_RETENTION_DAYS, never while in flight."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio.client import Client

from switchboard.activities.event_retention import EventRetentionActivities
from switchboard.models.events import Event, WebhookAttempt, WebhookDelivery, WebhookEndpoint
from switchboard.models.inbound import HousekeepingInput
from switchboard.models.tenancy import Tenant
from switchboard.settings import Settings
from switchboard.store.database import create_engine, session_factory, unit_of_work
from switchboard.store.event_retention import prune_events
from switchboard.workflows.maintenance import PruneRateLimitCountersWorkflow
from tests.conftest import make_settings

NOW = datetime(2026, 6, 1, tzinfo=UTC)


@pytest.fixture
async def sessions(database_url: str) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    engine = create_engine(database_url)
    factory = session_factory(engine)
    async with unit_of_work(factory) as session:
        session.add(Tenant(id="ten_a", name="A"))
        await session.flush()
        session.add(
            WebhookEndpoint(id="wh_a", tenant_id="ten_a", url="https://x.test/h", secret_encrypted="s")
        )
        session.add(
            WebhookEndpoint(id="wh_b", tenant_id="ten_a", url="https://y.test/h", secret_encrypted="s")
        )
    yield factory
    await engine.dispose()


async def seed(
    sessions: async_sessionmaker[AsyncSession],
    name: str,
    *,
    age_days: float,
    deliveries: tuple[str, ...] = ("succeeded",),
    dispatched: bool = True,
    at: datetime = NOW,
) -> str:
    """An event ``age_days`` old with one delivery per status (webhooks wh_a, wh_b) and two attempts each."""
    created = at - timedelta(days=age_days)
    event_id = f"evt_{name}"
    async with unit_of_work(sessions) as session:
        session.add(
            Event(
                id=event_id,
                tenant_id="ten_a",
                kind="channel.message.received",
                payload={"event": "channel.message.received"},
                occurred_at=created,
                created_at=created,
                dispatched_at=created if dispatched else None,
            )
        )
        await session.flush()
        for webhook_id, status in zip(("wh_a", "wh_b"), deliveries, strict=False):
            delivery_id = f"dlv_{name}_{webhook_id}"
            session.add(
                WebhookDelivery(
                    id=delivery_id,
                    tenant_id="ten_a",
                    event_id=event_id,
                    webhook_id=webhook_id,
                    status=status,
                    attempts=2,
                    created_at=created,
                )
            )
            await session.flush()
            for attempt in (1, 2):
                session.add(
                    WebhookAttempt(
                        tenant_id="ten_a",
                        webhook_id=webhook_id,
                        delivery_id=delivery_id,
                        attempt=attempt,
                        success=attempt == 2,
                        attempted_at=created + timedelta(minutes=attempt),
                    )
                )
    return event_id


async def remaining(sessions: async_sessionmaker[AsyncSession]) -> tuple[set[str], set[str], int]:
    async with sessions() as session:
        events = set((await session.execute(select(Event.id))).scalars())
        deliveries = set((await session.execute(select(WebhookDelivery.id))).scalars())
        attempts = len((await session.execute(select(WebhookAttempt.id))).all())
    return events, deliveries, attempts


async def test_old_settled_events_go_with_their_deliveries_and_attempts(sessions):
    old = await seed(sessions, "old", age_days=31, deliveries=("succeeded", "failed"))
    gone = await seed(sessions, "gone_webhook", age_days=40, deliveries=("gone",))
    no_webhook = await seed(sessions, "unwanted", age_days=45, deliveries=())
    retrying = await seed(sessions, "retrying", age_days=60, deliveries=("succeeded", "pending"))
    undispatched = await seed(sessions, "undispatched", age_days=60, deliveries=(), dispatched=False)
    recent = await seed(sessions, "recent", age_days=29, deliveries=("succeeded", "canceled"))

    async with unit_of_work(sessions) as session:
        pruned = await prune_events(session, created_before=NOW - timedelta(days=30), batch=100)

    assert (pruned.events, pruned.deliveries, pruned.attempts) == (3, 3, 6)
    events, deliveries, attempts = await remaining(sessions)
    assert events == {retrying, undispatched, recent}
    assert old not in events and gone not in events and no_webhook not in events
    # An event still being retried keeps every delivery (and attempt), settled or not.
    assert deliveries == {
        "dlv_retrying_wh_a",
        "dlv_retrying_wh_b",
        "dlv_recent_wh_a",
        "dlv_recent_wh_b",
    }
    assert attempts == 8


async def test_pruning_goes_oldest_first_in_batches(sessions):
    ages = [90, 80, 70, 60, 50]
    ids = [await seed(sessions, f"e{age}", age_days=age) for age in ages]
    cutoff = NOW - timedelta(days=30)
    rounds = []
    while True:
        async with unit_of_work(sessions) as session:
            pruned = await prune_events(session, created_before=cutoff, batch=2)
        if not pruned.events:
            break
        rounds.append(pruned.events)
        events, _, _ = await remaining(sessions)
        assert events == set(ids[sum(rounds) :])
    assert rounds == [2, 2, 1]
    assert await remaining(sessions) == (set(), set(), 0)


AGES = (6, 20, 29.5, 40, 89, 91)


@pytest.mark.parametrize(
    ("days", "kept"), [(None, (6, 20, 29.5)), (7, (6,)), (30, (6, 20, 29.5)), (90, (6, 20, 29.5, 40, 89))]
)
async def test_the_activity_applies_the_configured_retention(sessions, database_url, days, kept):
    for n, age in enumerate(AGES):
        await seed(sessions, f"age{n}", age_days=age)
    overrides = {} if days is None else {"event_retention_days": days}
    settings = make_settings(database_url, "127.0.0.1:1", **overrides)
    from switchboard.worker import build_deps, close_deps

    engine = create_engine(database_url)
    deps = build_deps(None, settings, engine)  # type: ignore[arg-type]
    try:
        result = await EventRetentionActivities(deps).prune_tenant_events(HousekeepingInput(now=NOW))
    finally:
        await close_deps(deps)
        await engine.dispose()
    events, _, _ = await remaining(sessions)
    assert sorted(AGES[int(e.removeprefix("evt_age"))] for e in events) == sorted(kept)
    assert (result.retention_days, result.events_deleted) == (days or 30, len(AGES) - len(kept))
    assert result.deliveries_deleted == result.events_deleted
    assert result.attempts_deleted == 2 * result.events_deleted


@pytest.mark.parametrize("days", [6, 91, 0])
def test_retention_outside_7_to_90_days_is_refused(days):
    with pytest.raises(ValidationError):
        Settings(event_retention_days=days)  # type: ignore[call-arg]


def test_retention_defaults_to_30_days():
    assert Settings().event_retention_days == 30  # type: ignore[call-arg]


async def test_the_maintenance_schedule_prunes_events(settings, temporal_env, worker, sessions):
    now = datetime.now(UTC)
    old = await seed(sessions, "old", age_days=31, at=now)
    kept = await seed(sessions, "kept", age_days=1, at=now)
    retrying = await seed(sessions, "retrying", age_days=31, deliveries=("pending",), at=now)
    client: Client = temporal_env.client
    await client.execute_workflow(
        PruneRateLimitCountersWorkflow.run,
        id=f"prune-events-{settings.temporal_task_queue}",
        task_queue=settings.temporal_task_queue,
    )
    events, deliveries, _ = await remaining(sessions)
    assert events == {kept, retrying} and old not in events
    assert deliveries == {"dlv_kept_wh_a", "dlv_retrying_wh_a"}
