"""Every workflow the service starts: its registered name, its id, and the one way it is started.

Ids derive from our own ids, so a retried request or a sweeper never starts a
duplicate; their formats are fixed, because runs in flight and recorded
histories carry them. Workflows import the names and id functions (pure) through
``imports_passed_through``; the start helpers are for the API and activities.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio.client import Client, WorkflowHandle
from temporalio.common import (
    SearchAttributeKey,
    SearchAttributePair,
    TypedSearchAttributes,
    WorkflowIDConflictPolicy,
    WorkflowIDReusePolicy,
)
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError

from switchboard.domain.search_attributes import SEARCH_ATTRIBUTE_TENANT, SEARCH_ATTRIBUTE_THREAD
from switchboard.domain.workflow_names import (
    DELIVERY_WORKFLOW,
    DISPATCH_WORKFLOW,
    NOTIFICATION_WORKFLOW,
    PROCESS_INBOUND_WORKFLOW,
    RECOVERY_WORKFLOW,
    SEND_WORKFLOW,
    THREAD_WORKFLOW,
    TIMERS_WORKFLOW,
    TURN_SIGNAL,
    WAKE_SIGNAL,
)
from switchboard.models.inbound import InboundPayload
from switchboard.models.send import SendInput, SendReport
from switchboard.store.events import awaiting_dispatch

if TYPE_CHECKING:
    from switchboard.activities.webhooks.types import DeliveryInput, RecoveryInput

# The loggers these starts always logged under (operators filter on them): the outbox, agent timers.
log = logging.getLogger("switchboard.events")
agents_log = logging.getLogger("switchboard.agents")


# A signal-with-start of a thread that takes longer than this means Temporal is unreachable.
THREAD_START_TIMEOUT = timedelta(seconds=5)
# The channel webhook hands a payload over within its own deadline; the sweeper covers a miss.
INBOUND_START_TIMEOUT = timedelta(seconds=2)
# Starts made after a commit (deliveries, thread timers), by the channel webhook's request among others:
# one that takes longer means Temporal is unreachable, and the outbox or turn sweeper starts it later.
AFTER_COMMIT_START_TIMEOUT = timedelta(seconds=5)

TENANT_KEY = SearchAttributeKey.for_keyword(SEARCH_ATTRIBUTE_TENANT)
THREAD_KEY = SearchAttributeKey.for_keyword(SEARCH_ATTRIBUTE_THREAD)


def send_workflow_id(message_id: str) -> str:
    """The one workflow id a message's send may ever run under."""
    return f"send-{message_id}"


def dispatch_workflow_id(event_id: str) -> str:
    """The one workflow id an event's dispatch may ever run under."""
    return f"event-{event_id}"


def notification_workflow_id(notification_id: str) -> str:
    """The one workflow id a notification may ever be mailed under."""
    return f"owner-notification-{notification_id}"


def delivery_workflow_id(delivery_id: str) -> str:
    """The one workflow id a delivery may ever run under."""
    return f"delivery-{delivery_id}"


def recovery_workflow_id(recovery_id: str) -> str:
    """The workflow of one recovery or resend (``POST .../recover``, ``POST .../resend``)."""
    return f"webhook-recovery-{recovery_id}"


def inbound_workflow_id(payload_id: str, *, task_queue: str) -> str:
    """The one id a payload is processed under by this deployment (the task queue names it)."""
    # Two deployments sharing a namespace (or two test runs on one dev server) never join each other's runs.
    return f"inbound-{task_queue}-{payload_id}"


def thread_workflow_id(thread_id: str) -> str:
    """The one long-lived workflow of a thread (CONTRACTS 7a)."""
    return f"agent-thread-{thread_id}"


def run_workflow_id(run_id: str) -> str:
    """The workflow of one run (CONTRACTS 7a); ClaimInput.workflow_id_prefix stores the same form."""
    return f"agent-run-{run_id}"


def timers_workflow_id(thread_id: str) -> str:
    """The one timer workflow of a thread: automatic unmutes and the inactivity reset."""
    return f"agent-timers-{thread_id}"


def search_attributes(tenant_id: str, thread_id: str) -> TypedSearchAttributes:
    """Tenant and thread, so an operator finds every workflow of a thread in the Temporal UI."""
    return TypedSearchAttributes(
        [SearchAttributePair(TENANT_KEY, tenant_id), SearchAttributePair(THREAD_KEY, thread_id)]
    )


async def start_send(
    client: Client, request: SendInput, *, task_queue: str, eager: bool = False
) -> WorkflowHandle[Any, SendReport]:
    """Start a message's send: a running one is joined, a failed one may run again, a completed one never.

    ``eager`` asks the server to hand the first workflow task to ``client``'s own worker (the API's);
    it declines when that worker has no free slot, and queues the task as for any other start.
    """
    return await client.start_workflow(
        SEND_WORKFLOW,
        request,
        id=send_workflow_id(request.message_id),
        task_queue=task_queue,
        result_type=SendReport,
        id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        request_eager_start=eager,
    )


async def _start_once(client: Client, workflow: str, arg: str, *, workflow_id: str, task_queue: str) -> None:
    """Start ``workflow`` under an id derived from our own: one that runs or ran is left alone."""
    try:
        await client.start_workflow(
            workflow,
            arg,
            id=workflow_id,
            task_queue=task_queue,
            id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
            id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
            rpc_timeout=AFTER_COMMIT_START_TIMEOUT,
        )
    except WorkflowAlreadyStartedError:
        return


async def dispatch_events(
    client: Client,
    *,
    task_queue: str,
    event_ids: Iterable[str],
    sessions: async_sessionmaker[AsyncSession] | None = None,
) -> None:
    """Start each committed outbox event's DispatchEvent (right after the commit); failures await the sweeper.

    With ``sessions``, events stored already dispatched (no webhook wanted
    them) are skipped first, in one query.
    """
    ids = list(event_ids)
    if sessions is not None and ids:
        async with sessions() as session:
            ids = await awaiting_dispatch(session, ids)
    for index, event_id in enumerate(ids):
        try:
            await _start_once(
                client,
                DISPATCH_WORKFLOW,
                event_id,
                workflow_id=dispatch_workflow_id(event_id),
                task_queue=task_queue,
            )
        except Exception:
            # Temporal is failing: the rest would wait out the same timeout each (a request may be waiting).
            log.warning(
                "event dispatch deferred to the sweeper", extra={"event_ids": ids[index:]}, exc_info=True
            )
            return


async def start_owner_notification(client: Client, *, task_queue: str, notification_id: str) -> None:
    """Start the workflow that mails a committed notification; a failure is left to the sweeper."""
    try:
        await _start_once(
            client,
            NOTIFICATION_WORKFLOW,
            notification_id,
            workflow_id=notification_workflow_id(notification_id),
            task_queue=task_queue,
        )
    except Exception:
        log.warning(
            "owner notification left to the sweeper",
            extra={"notification_id": notification_id},
            exc_info=True,
        )


async def start_delivery(client: Client, delivery: DeliveryInput, *, task_queue: str) -> bool:
    """Start a delivery's workflow; False when its id exists (running or finished), which is never rerun.

    Deliveries are started by worker activities and by the API (after an inbound message's commit, through
    its delivery worker's client: ``api/delivery_worker.py``), whose client has a worker on the same task
    queue, so the start asks for eager dispatch: the server hands the first workflow task back in its answer and
    this worker runs it at once, with no trip through the matching service and no poll. The server may
    decline (no free workflow-task slot here, or eager start disabled), and then the task is queued as
    usual. A worker that dies holding an eager task loses nothing: the task times out and is retried.
    """
    try:
        await client.start_workflow(
            DELIVERY_WORKFLOW,
            delivery,
            id=delivery_workflow_id(delivery.delivery.delivery_id),
            task_queue=task_queue,
            id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            request_eager_start=True,
            rpc_timeout=AFTER_COMMIT_START_TIMEOUT,
        )
    except WorkflowAlreadyStartedError:
        return False
    return True


async def start_inbound(client: Client, payload: InboundPayload, *, task_queue: str) -> bool:
    """Start ProcessInbound for a payload; False when a run already completed it.

    A running run is joined (USE_EXISTING); a completed one is never run again,
    while a failed or terminated one may be (ALLOW_DUPLICATE_FAILED_ONLY),
    which is how the sweeper recovers it.
    """
    try:
        await client.start_workflow(
            PROCESS_INBOUND_WORKFLOW,
            payload,
            id=inbound_workflow_id(payload.payload_id, task_queue=task_queue),
            task_queue=task_queue,
            id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
            id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
            rpc_timeout=INBOUND_START_TIMEOUT,
        )
    except WorkflowAlreadyStartedError:
        return False
    return True


async def signal_turn(
    client: Client,
    *,
    tenant_id: str,
    thread_id: str,
    message_id: str,
    task_queue: str,
    with_search_attributes: bool,
    debounce_seconds: float,
    idle_seconds: float,
) -> None:
    """Start the thread's workflow if it is not running, and hand it the turn (signal-with-start, one RPC)."""
    # Imported here: the agents and webhooks packages' __init__ import the modules that import this one.
    from switchboard.activities.agents.payloads import ThreadInput

    await client.start_workflow(
        THREAD_WORKFLOW,
        ThreadInput(
            thread_id=thread_id,
            tenant_id=tenant_id,
            search_attributes=with_search_attributes,
            debounce_seconds=debounce_seconds,
            idle_seconds=idle_seconds,
        ),
        id=thread_workflow_id(thread_id),
        task_queue=task_queue,
        start_signal=TURN_SIGNAL,
        start_signal_args=[message_id],
        search_attributes=search_attributes(tenant_id, thread_id) if with_search_attributes else None,
        rpc_timeout=THREAD_START_TIMEOUT,
    )


async def wake_thread_timers(client: Client, *, tenant_id: str, thread_id: str, task_queue: str) -> None:
    """Start the thread's timer workflow, or make a running one re-read its due time (signal-with-start)."""
    from switchboard.activities.agents.payloads import TimersInput

    await client.start_workflow(
        TIMERS_WORKFLOW,
        TimersInput(thread_id=thread_id, tenant_id=tenant_id),
        id=timers_workflow_id(thread_id),
        task_queue=task_queue,
        start_signal=WAKE_SIGNAL,
        rpc_timeout=AFTER_COMMIT_START_TIMEOUT,
    )


async def wake_timers_or_log(client: Client, *, tenant_id: str, thread_id: str, task_queue: str) -> None:
    """``wake_thread_timers`` for callers whose work is done: a failure is logged, the turn sweeper retries."""
    try:
        await wake_thread_timers(client, tenant_id=tenant_id, thread_id=thread_id, task_queue=task_queue)
    except (RPCError, RuntimeError, TimeoutError) as error:
        agents_log.warning("thread timers not woken", extra={"thread_id": thread_id, "error": str(error)})


async def start_recovery(client: Client, recovery: RecoveryInput, *, task_queue: str) -> None:
    """Start a recovery (or a single resend) under its own id, its terms and progress in the memo."""
    from switchboard.activities.webhooks.types import recovery_memo

    await client.start_workflow(
        RECOVERY_WORKFLOW,
        recovery,
        id=recovery_workflow_id(recovery.recovery_id),
        task_queue=task_queue,
        memo=recovery_memo(recovery, recovery.progress),
    )


async def read_recovery(
    client: Client, *, tenant_id: str, recovery_id: str
) -> tuple[dict[str, Any], str] | None:
    """A recovery's memo (its terms and progress, kept current by the workflow) and its workflow's
    status name; None when unknown, another tenant's, or past the namespace's retention. Reads no
    worker: the answer comes from the server alone."""
    handle = client.get_workflow_handle(recovery_workflow_id(recovery_id))
    try:
        description = await handle.describe()
    except RPCError:
        return None
    memo = dict(await description.memo())
    if memo.get("tenant_id") != tenant_id:
        return None
    status = description.status.name.lower() if description.status else "running"
    return memo, status
