"""Worker composition root: builds clients and activities, runs the Temporal worker.

Every workflow and activity of the service is registered here on
``TEMPORAL_TASK_QUEUE``. Run it as ``switchboard worker`` or ``python worker.py``;
run as many as the load needs.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine
from temporalio.client import (
    Client,
    Schedule,
    ScheduleActionStartWorkflow,
    ScheduleAlreadyRunningError,
    ScheduleIntervalSpec,
    ScheduleSpec,
)
from temporalio.worker import Worker

from activities.maintenance import MaintenanceActivities
from api.app import connect_temporal
from logs import configure_logging
from settings import Settings
from store.database import create_engine
from workflows.maintenance import PruneRateLimitCountersWorkflow

log = logging.getLogger("switchboard.worker")

WORKFLOWS: Sequence[type] = (PruneRateLimitCountersWorkflow,)


def activities_for(engine: AsyncEngine) -> list[Any]:
    """Every activity callable, bound to its clients."""
    maintenance = MaintenanceActivities(engine)
    return [maintenance.prune_rate_limit_counters]


def build_worker(client: Client, settings: Settings, engine: AsyncEngine, *, max_concurrent: int = 50) -> Worker:
    """A worker on the configured task queue with every workflow and activity."""
    return Worker(
        client,
        task_queue=settings.temporal_task_queue,
        workflows=list(WORKFLOWS),
        activities=activities_for(engine),
        max_concurrent_activities=max_concurrent,
    )


async def ensure_schedules(client: Client, settings: Settings) -> None:
    """Create the housekeeping schedules once; later calls are no-ops."""
    schedule = Schedule(
        action=ScheduleActionStartWorkflow(
            PruneRateLimitCountersWorkflow.run,
            id="maintenance-prune-rate-limits",
            task_queue=settings.temporal_task_queue,
        ),
        spec=ScheduleSpec(intervals=[ScheduleIntervalSpec(every=timedelta(minutes=1))]),
    )
    try:
        await client.create_schedule(f"{settings.temporal_task_queue}-prune-rate-limits", schedule)
    except ScheduleAlreadyRunningError:
        pass


async def run_worker(settings: Settings, *, stop: asyncio.Event | None = None) -> None:
    """Connect, make sure schedules exist, and run until ``stop`` is set (or forever)."""
    engine = create_engine(settings.database_url)
    client = await connect_temporal(settings, lazy=False)
    await ensure_schedules(client, settings)
    worker = build_worker(client, settings, engine)
    log.info("worker started", extra={"task_queue": settings.temporal_task_queue})
    try:
        if stop is None:
            await worker.run()
        else:
            async with worker:
                await stop.wait()
    finally:
        await engine.dispose()


def main() -> None:
    settings = Settings()
    configure_logging(settings.log_level)
    asyncio.run(run_worker(settings))


if __name__ == "__main__":
    main()
