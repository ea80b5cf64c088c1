"""Hand committed outbox events to Temporal.

Whoever commits events (API routes, activities) calls ``dispatch_events`` right
after the commit. Each event gets one ``DispatchEvent`` workflow whose id is
derived from the event id, so a second start (a retry, or the outbox sweeper
catching events a crash left behind) is a no-op.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio.client import Client
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError

from switchboard.store.events import awaiting_dispatch

log = logging.getLogger("switchboard.events")

DISPATCH_WORKFLOW = "DispatchEvent"
NOTIFICATION_WORKFLOW = "SendOwnerNotification"


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
        )
    except WorkflowAlreadyStartedError:
        return


def dispatch_workflow_id(event_id: str) -> str:
    """The one workflow id an event's dispatch may ever run under."""
    return f"event-{event_id}"


async def dispatch_events(
    client: Client,
    *,
    task_queue: str,
    event_ids: Iterable[str],
    sessions: async_sessionmaker[AsyncSession] | None = None,
) -> None:
    """Start the dispatch workflow of each event; failures are left to the sweeper.

    With ``sessions``, events stored already dispatched (no webhook wanted
    them) are skipped first, in one query.
    """
    ids = list(event_ids)
    if sessions is not None and ids:
        async with sessions() as session:
            ids = await awaiting_dispatch(session, ids)
    for event_id in ids:
        try:
            await _start_once(
                client,
                DISPATCH_WORKFLOW,
                event_id,
                workflow_id=dispatch_workflow_id(event_id),
                task_queue=task_queue,
            )
        except Exception:
            log.warning("event dispatch deferred to the sweeper", extra={"event_id": event_id}, exc_info=True)


def notification_workflow_id(notification_id: str) -> str:
    """The one workflow id a notification may ever be mailed under."""
    return f"owner-notification-{notification_id}"


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
