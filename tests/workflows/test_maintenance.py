"""Housekeeping workflows run on a real Temporal server through the real worker."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select
from temporalio.client import Client

from switchboard.api.rate_limiter import RateLimiter
from switchboard.domain.rate_limits import Limits
from switchboard.models.ratelimit import RateLimitCounter
from switchboard.store.database import create_engine
from switchboard.workflows.maintenance import PruneRateLimitCountersWorkflow


async def test_prune_workflow_deletes_only_ended_windows(settings, temporal_env, worker):
    engine = create_engine(settings.database_url)
    old = datetime.now(UTC) - timedelta(days=3)
    limiter = RateLimiter(engine)
    try:
        await limiter.check("key_old", Limits(10, 100), now=old.timestamp())
        await limiter.check("key_new", Limits(10, 100), now=datetime.now(UTC).timestamp())
    finally:
        await limiter.aclose()
    client: Client = temporal_env.client
    result = await client.execute_workflow(
        PruneRateLimitCountersWorkflow.run,
        id=f"prune-{settings.temporal_task_queue}",
        task_queue=settings.temporal_task_queue,
    )
    assert result.deleted == 2
    async with engine.connect() as conn:
        remaining = (await conn.execute(select(func.count()).select_from(RateLimitCounter))).scalar_one()
    assert remaining == 2
    await engine.dispose()


async def test_worker_creates_the_housekeeping_schedule_once(settings, temporal_env):
    from switchboard.worker import ensure_schedules

    await ensure_schedules(temporal_env.client, settings)
    await ensure_schedules(temporal_env.client, settings)
    handle = temporal_env.client.get_schedule_handle(f"{settings.temporal_task_queue}-prune-rate-limits")
    description = await handle.describe()
    assert description.schedule.spec.intervals[0].every == timedelta(minutes=1)
    await handle.delete()
