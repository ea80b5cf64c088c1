"""Worker composition root: builds clients and activities, runs the Temporal worker.

Every workflow (workflows/all_workflows.py) and activity (activities/all_activities.py)
of the service is registered here on ``TEMPORAL_TASK_QUEUE``. Run it as
``switchboard worker`` or ``python -m switchboard.worker``; run as many as the load needs.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from datetime import timedelta
from typing import Any

import httpx
from sqlalchemy.ext.asyncio import AsyncEngine
from temporalio.client import (
    Client,
    Schedule,
    ScheduleActionStartWorkflow,
    ScheduleAlreadyRunningError,
    ScheduleIntervalSpec,
    ScheduleSpec,
)
from temporalio.types import MethodAsyncNoParam
from temporalio.worker import UnsandboxedWorkflowRunner, Worker, WorkflowRunner
from temporalio.worker.workflow_sandbox import SandboxRestrictions

from switchboard import metrics, tracing
from switchboard.activities.all_activities import build_activities
from switchboard.activities.deps import ActivityDeps
from switchboard.activities.tools.http_client import egress_client
from switchboard.heap import freeze_startup_heap
from switchboard.http_pool import reserving_client
from switchboard.logs import configure_logging
from switchboard.settings import Settings
from switchboard.store.database import create_engine, session_factory
from switchboard.temporal_client import connect_temporal
from switchboard.temporal_namespace import NamespaceNotReady, ensure_search_attributes
from switchboard.workflow_sandbox import DirectContextSandbox
from switchboard.workflows.all_workflows import WORKFLOWS
from switchboard.workflows.event_dispatch import SweepEventOutboxWorkflow
from switchboard.workflows.inbound_housekeeping import InboundHousekeepingWorkflow
from switchboard.workflows.maintenance import (
    PruneRateLimitCountersWorkflow,
    SweepAgentTurnsWorkflow,
    SweepQueuedSendsWorkflow,
)
from switchboard.workflows.template_sync import SyncTemplatesWorkflow

log = logging.getLogger("switchboard.worker")


def build_deps(client: Client, settings: Settings, engine: AsyncEngine) -> ActivityDeps:
    """The clients activities share (one HTTP pool, one engine)."""
    http = reserving_client(timeout=httpx.Timeout(10.0, connect=5.0), follow_redirects=False)
    egress_http = egress_client(allow_private=settings.tool_egress_allow_private)
    autocommit_engine = None if settings.is_sqlite else create_engine(settings.database_url, autocommit=True)
    return ActivityDeps(
        settings=settings,
        engine=engine,
        sessions=session_factory(engine),
        http=http,
        temporal=client,
        egress_http=egress_http,
        autocommit_engine=autocommit_engine,
        autocommit=session_factory(autocommit_engine) if autocommit_engine is not None else None,
    )


async def close_deps(deps: ActivityDeps) -> None:
    """Close the HTTP pools and the autocommit engine (the main engine is the caller's)."""
    await deps.http.aclose()
    await deps.egress_http.aclose()
    if deps.providers is not None:
        await deps.providers.aclose()
    if deps.autocommit_engine is not None:
        await deps.autocommit_engine.dispose()


# The sandbox re-imports a workflow's module, and what that module imports outside
# `imports_passed_through()`, for every workflow run it starts. The policies module is
# constants only (timeouts and retry policies), so it is shared instead of rebuilt per run
# through the sandbox's restricted `datetime` and `temporalio.common`: about a fifth of the
# cost of starting a sandboxed run such as ProcessInbound (docs/decisions/0002-workflow-sandbox-cost.md).
SANDBOX = DirectContextSandbox(
    restrictions=SandboxRestrictions.default.with_passthrough_modules("switchboard.workflows.policies")
)


def workflow_runner(settings: Settings) -> WorkflowRunner:
    """The sandbox (the default), or none when TEMPORAL_WORKFLOW_SANDBOX is off.

    Workflows defined with ``sandboxed=False`` (SendMessage, DeliverWebhook) run outside it either way.
    """
    return SANDBOX if settings.temporal_workflow_sandbox else UnsandboxedWorkflowRunner()


# How long a stopping worker lets its activities finish before cancelling them: longer than a send try's
# timeout (15 s, workflows/policies.py), so a try the upstream already accepted reports its id instead of
# failing and being sent again.
GRACEFUL_SHUTDOWN = timedelta(seconds=20)


def build_worker(
    client: Client,
    deps: ActivityDeps,
    *,
    max_concurrent: int | None = None,
    graceful_shutdown: timedelta = timedelta(),
) -> Worker:
    """A worker on the configured task queue with every workflow and activity.

    Slots come from the WORKER_* settings; ``max_concurrent`` overrides the activity slots (tests, benches).
    ``graceful_shutdown`` is how long activities may finish after shutdown starts (the SDK's default, none,
    for tests; ``GRACEFUL_SHUTDOWN`` for the worker process).
    """
    settings = deps.settings
    return Worker(
        client,
        task_queue=settings.temporal_task_queue,
        workflows=list(WORKFLOWS),
        activities=build_activities(deps),
        max_concurrent_activities=max_concurrent or settings.worker_max_concurrent_activities,
        max_concurrent_local_activities=settings.worker_max_concurrent_local_activities,
        max_concurrent_workflow_tasks=settings.worker_max_concurrent_workflow_tasks,
        max_cached_workflows=settings.worker_max_cached_workflows,
        workflow_runner=workflow_runner(settings),
        graceful_shutdown_timeout=graceful_shutdown,
    )


# (schedule id suffix, workflow run method, interval). Add one line per schedule.
SCHEDULES: list[tuple[str, MethodAsyncNoParam[Any, Any], timedelta]] = [
    ("prune-rate-limits", PruneRateLimitCountersWorkflow.run, timedelta(minutes=1)),
    ("resume-queued-sends", SweepQueuedSendsWorkflow.run, timedelta(seconds=30)),
    ("webhook-outbox-sweep", SweepEventOutboxWorkflow.run, timedelta(seconds=30)),
    ("inbound-housekeeping", InboundHousekeepingWorkflow.run, timedelta(minutes=1)),
    ("agent-turn-sweep", SweepAgentTurnsWorkflow.run, timedelta(seconds=30)),
    # Safety net behind template status webhooks (docs/messaging.md, "Template approvals").
    ("template-sync", SyncTemplatesWorkflow.run, timedelta(hours=1)),
]


async def ensure_schedules(client: Client, settings: Settings) -> None:
    """Create the housekeeping schedules once; later calls are no-ops."""
    for suffix, run, every in SCHEDULES:
        schedule = Schedule(
            action=ScheduleActionStartWorkflow(
                run, id=f"maintenance-{suffix}", task_queue=settings.temporal_task_queue
            ),
            spec=ScheduleSpec(intervals=[ScheduleIntervalSpec(every=every)]),
        )
        try:
            await client.create_schedule(f"{settings.temporal_task_queue}-{suffix}", schedule)
        except ScheduleAlreadyRunningError:
            pass


async def run_worker(settings: Settings, *, stop: asyncio.Event | None = None) -> None:
    """Connect, make sure schedules exist, and run until ``stop`` is set (or forever)."""
    client = await connect_temporal(settings, lazy=False)
    await ensure_search_attributes(client, settings)
    engine = create_engine(settings.database_url)
    await ensure_schedules(client, settings)
    deps = build_deps(client, settings, engine)
    worker = build_worker(client, deps, graceful_shutdown=GRACEFUL_SHUTDOWN)
    metrics.count_log_messages()
    listener = metrics.serve(settings.worker_metrics_host, settings.worker_metrics_port)
    freeze_startup_heap()
    log.info("worker started", extra={"task_queue": settings.temporal_task_queue})
    try:
        if stop is None:
            await worker.run()
        else:
            async with worker:
                await stop.wait()
    finally:
        if listener is not None:
            listener.shutdown()
        await close_deps(deps)
        await engine.dispose()


async def run_until_signalled(settings: Settings) -> None:
    """Run until SIGTERM (a deploy, a supervisor stopping it) or SIGINT, then shut down cleanly.

    Without handlers either signal ends the process on the spot (a traceback for Ctrl-C), and the
    activities it held are retried only once their timeouts pass on the server. The worker's shutdown
    stops polling, lets its activities finish for ``GRACEFUL_SHUTDOWN``, fails what is still running
    then (Temporal retries it at once elsewhere), and closes the pools.
    """
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await run_worker(settings, stop=stop)
    log.info("worker stopped")


def main() -> None:
    settings = Settings()
    configure_logging(settings.log_level, settings.log_format)
    run_or_exit(settings)


def run_or_exit(settings: Settings) -> None:
    """Run until signalled; a namespace the service cannot run on ends the process with its fix (exit 2)."""
    tracing.configure(settings, service="switchboard-worker")
    try:
        asyncio.run(run_until_signalled(settings))
    except NamespaceNotReady as exc:
        print(f"switchboard worker: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
