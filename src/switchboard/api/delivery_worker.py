"""A worker inside each API process: runs the DeliverWebhook and SendMessage runs this process starts, eagerly.

The API applies an inbound message in the request and then starts one DeliverWebhook run per planned
delivery, and a live send starts its SendMessage run, each asking for an eager start. When a worker on
the task queue is registered with the starting client and has a free workflow-task slot, the server
hands the run's first workflow task back in the start's answer and this process runs it at once: no
trip through Temporal's matching service, no poll. A send's first try and a delivery's first attempt
(local activities) POST from here, the upstream's or the tenant's, and record the outcome. Past
``API_DELIVERY_SLOTS`` runs at once, or without such a worker, the server queues the task for the
worker processes. Sends
with a media link start on the shared queue: their first step is a regular activity (the link's
download and upload), and the task after it would wait out the sticky timeout below.

This worker takes nothing else. Its workflow-task slots are granted only to eager starts
(``EagerOnlySlots``): its pollers wait for a slot forever, so it never takes a task from the shared
queue, where other workflow types wait that it does not run, nor from its own sticky queue. A run
that needs a second workflow task (a delivery's second attempt or a send's retry, after a timer; a
send whose phone's throughput second is full) has it moved to the shared queue after
``STICKY_TIMEOUT``, for a worker process. It runs no regular activity either (``finish_delivery``,
owner notifications, a send's regular retries and its media transfer go to the worker processes).

Nothing is lost if the process dies holding a task: the workflow task times out on the server and a
worker process runs it again; a delivery attempt already recorded is returned, not posted again, and
a send whose try the upstream took but that was not recorded may be sent a second time, as when a
worker process dies mid-send. A process that stops cleanly waits for its attempts in flight: the SDK
lets local activities finish (its graceful period covers regular activities only), and each attempt
ends within its timeout (``WEBHOOK_REQUEST_TIMEOUT_SECONDS``, 10 s by default, for a delivery; the
upstream try's 15 s for a send), recorded like any other.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading
from datetime import timedelta

from temporalio.api.workflowservice.v1 import DescribeNamespaceRequest
from temporalio.client import Client
from temporalio.worker import (
    CustomSlotSupplier,
    FixedSizeSlotSupplier,
    PollerBehaviorSimpleMaximum,
    SlotMarkUsedContext,
    SlotPermit,
    SlotReleaseContext,
    SlotReserveContext,
    UnsandboxedWorkflowRunner,
    Worker,
    WorkerTuner,
)

from switchboard.activities.channel import ChannelActivities
from switchboard.activities.deps import ActivityDeps
from switchboard.activities.sends import SendRecordActivities
from switchboard.activities.tools.http_client import egress_client
from switchboard.activities.webhooks.config import config_from_settings
from switchboard.activities.webhooks.delivery import WebhookDeliveryActivities
from switchboard.api.state import AppState
from switchboard.temporal_client import connect_temporal
from switchboard.workflows.send_message import SendMessageWorkflow
from switchboard.workflows.webhook_delivery import DeliverWebhookWorkflow

log = logging.getLogger("switchboard.api.delivery_worker")

# Pause before building the worker again after Temporal could not be reached or the worker stopped.
RETRY_SECONDS = 2.0
# A retry's task waits this long on the sticky queue nobody polls, then goes to the worker processes.
STICKY_TIMEOUT = timedelta(seconds=1)
# The identity of the API's connected client and of its worker ends with this. Temporal records the
# worker's on each workflow task it polls, and the client's on a task it was handed by an eager start.
IDENTITY_SUFFIX = "switchboard-api"


def api_identity() -> str:
    """``pid@host switchboard-api``: the SDK's default identity, marked as this process's role."""
    return f"{os.getpid()}@{socket.gethostname()} {IDENTITY_SUFFIX}"


class EagerOnlySlots(CustomSlotSupplier):
    """Workflow-task slots for eager starts only; a poll never gets one.

    Up to ``size`` eager runs at once; a start beyond that is declined, and the server queues its task
    for a worker process. ``try_reserve_slot`` (an eager start) and ``release_slot`` are called from
    the SDK's own threads, hence the lock. ``reserve_slot`` is what a poller awaits before it polls: it
    waits until cancelled (the worker's shutdown), so this worker polls neither the shared queue, where
    other workflow types wait that it does not run, nor its sticky queue.
    """

    def __init__(self, size: int) -> None:
        self._size = size
        self._used = 0
        self._lock = threading.Lock()

    @property
    def in_use(self) -> int:
        """Slots held by eagerly started runs right now."""
        with self._lock:
            return self._used

    async def reserve_slot(self, ctx: SlotReserveContext) -> SlotPermit:
        await asyncio.Event().wait()  # never set: only the worker's shutdown cancels this
        raise AssertionError("unreachable")

    def try_reserve_slot(self, ctx: SlotReserveContext) -> SlotPermit | None:
        with self._lock:
            if self._used >= self._size:
                return None
            self._used += 1
        return SlotPermit()

    def mark_slot_used(self, ctx: SlotMarkUsedContext) -> None:
        return None

    def release_slot(self, ctx: SlotReleaseContext) -> None:
        with self._lock:
            self._used = max(0, self._used - 1)


def build_delivery_worker(deps: ActivityDeps, slots: EagerOnlySlots) -> Worker:
    """The worker: DeliverWebhook and SendMessage with their local activities, eager tasks only, no remote activities.

    Every local activity SendMessage's code may call is registered, the one older runs call
    (``channel_acquire_slot``) too: this worker runs only the runs this process starts, which take the
    current path (``channel_send``, then ``record_send_outcome`` when the try could not record), but a
    local activity the worker lacked would fail the task.

    It caches runs (``API_DELIVERY_SLOTS`` of them): without a cache, tests saw some deliveries posted twice (the cause
    was not pinned down); with one, each is posted once.
    A cached run's next task (a second attempt, after its timer) goes to this worker's sticky queue,
    which it never polls: after ``STICKY_TIMEOUT`` the server moves the task to the shared queue.
    """
    settings = deps.settings
    size = settings.api_delivery_slots
    delivery = WebhookDeliveryActivities(deps, config_from_settings(settings))
    channel = ChannelActivities(deps)
    records = SendRecordActivities(deps)
    return Worker(
        deps.temporal,
        task_queue=settings.temporal_task_queue,
        workflows=[DeliverWebhookWorkflow, SendMessageWorkflow],
        activities=[delivery.attempt_delivery, channel.send, channel.acquire_slot, records.record_outcome],
        identity=api_identity(),
        no_remote_activities=True,
        disable_eager_activity_execution=True,
        max_cached_workflows=size,
        sticky_queue_schedule_to_start_timeout=STICKY_TIMEOUT,
        workflow_task_poller_behavior=PollerBehaviorSimpleMaximum(2),
        tuner=WorkerTuner.create_composite(
            workflow_supplier=slots,
            activity_supplier=FixedSizeSlotSupplier(1),
            local_activity_supplier=FixedSizeSlotSupplier(size),
            nexus_supplier=FixedSizeSlotSupplier(1),
        ),
        workflow_runner=UnsandboxedWorkflowRunner(),
    )


class DeliveryWorker:
    """Runs the API's delivery worker for the process's lifetime, rebuilding it whenever it stops.

    The API's Temporal client is lazy, so the API serves while Temporal is still coming up, and a worker
    cannot run on a lazy client. This connects a second client (retrying until Temporal answers) for
    the worker, and deliveries are started through it while the worker runs (``state.delivery_client``):
    an eager start must come from the worker's own client. Meanwhile they start through the lazy client
    and are queued for the worker processes. Every other start and call stays on the lazy client.
    """

    def __init__(self, state: AppState) -> None:
        self._state = state
        self._size = state.settings.api_delivery_slots
        self.slots = EagerOnlySlots(self._size)
        self._egress = egress_client(allow_private=state.settings.tool_egress_allow_private)
        self._worker: Worker | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        # Set while a worker is registered with the API's client, so that starts can be eager.
        self.running = asyncio.Event()

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="api-delivery-worker")

    async def stop(self) -> None:
        """Wait for the attempts in flight to end and be recorded, then stop and close the pool."""
        self._stopping = True
        worker = self._worker
        if worker is not None and worker.is_running:
            try:
                await worker.shutdown()
            except Exception:
                log.warning("the API's delivery worker did not shut down cleanly", exc_info=True)
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass  # _run catches everything else itself
        await self._egress.aclose()

    async def _run(self) -> None:
        told = False  # one warning per outage, not one every RETRY_SECONDS
        while not self._stopping:
            try:
                client = await connect_temporal(self._state.settings, lazy=False, identity=api_identity())
                # The SDK registers a worker for eager starts when it is built but runs tasks only once
                # ``run`` has validated the namespace: checked first, so that a start is not handed to a
                # worker that then fails to start (the task would wait out its 10 s timeout).
                await client.workflow_service.describe_namespace(
                    DescribeNamespaceRequest(namespace=self._state.settings.temporal_namespace)
                )
                # A fresh supplier per worker built: a stopped worker's permits are released only when
                # the SDK drops that worker, which must not hold the next worker's slots.
                self.slots = EagerOnlySlots(self._size)
                self._worker = build_delivery_worker(self._deps(client), self.slots)
                self._state.delivery_client = client
                self.running.set()
                told = False
                try:
                    await self._worker.run()
                finally:
                    self.running.clear()
                    self._state.delivery_client = None
            except asyncio.CancelledError:
                raise
            except Exception:
                if self._stopping:
                    return
                log.log(
                    logging.DEBUG if told else logging.WARNING,
                    "the API's delivery worker is not running; deliveries go to the worker processes meanwhile",
                    exc_info=True,
                )
                told = True
            if not self._stopping:
                await asyncio.sleep(RETRY_SECONDS)

    def _deps(self, client: Client) -> ActivityDeps:
        """The API's engine, sessions and HTTP pool, with the guarded client webhook POSTs go through."""
        state = self._state
        sqlite = state.settings.is_sqlite
        return ActivityDeps(
            settings=state.settings,
            engine=state.engine,
            sessions=state.sessions,
            http=state.http,
            temporal=client,
            egress_http=self._egress,
            # As in the worker processes: SQLite's writers stay on the main pool.
            autocommit_engine=None if sqlite else state.autocommit_engine,
            autocommit=None if sqlite else state.autocommit,
        )


def start_delivery_worker(state: AppState) -> DeliveryWorker | None:
    """Start the API's delivery worker; None when API_DELIVERY_SLOTS is 0."""
    if state.settings.api_delivery_slots == 0:
        return None
    worker = DeliveryWorker(state)
    worker.start()
    return worker
