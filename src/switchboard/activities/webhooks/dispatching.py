"""Event dispatch activities: plan an event's deliveries, start their workflows, sweep the outbox.

Delivery workflows are started through the client under the delivery's own
id (``delivery-<delivery_id>``) rather than as children of DispatchEvent: they
outlive the dispatcher by hours, and a start of an id that exists (running or
finished) is refused, so a retried activity or a second dispatch starts
nothing twice.

Activities that record events themselves (inbound items, send outcomes) skip
the DispatchEvent hop: ``plan_recorded`` creates the deliveries in the same
transaction as the events, and ``start_planned`` starts their workflows after
the commit and stamps the events dispatched. The outbox stays the safety net:
an event whose deliveries did not all start is handed to DispatchEvent, and
one a crash left unstamped is found by the sweeper.
"""

from __future__ import annotations

import logging
import smtplib
from dataclasses import dataclass, field

from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession
from temporalio import activity
from temporalio.service import RPCError

from switchboard.activities.deps import ActivityDeps, CommitAndStart
from switchboard.activities.notifications import deliver_notification
from switchboard.activities.webhooks.config import WebhookConfig
from switchboard.activities.webhooks.types import (
    DeliveryInput,
    DeliveryRef,
    DispatchPlan,
    ScheduleTerms,
    SweepResult,
)
from switchboard.activities.workflow_starts import dispatch_events, start_delivery
from switchboard.models.base import utcnow
from switchboard.store.database import unit_of_work, write_turn
from switchboard.store.webhooks import deliveries, notifications

log = logging.getLogger("switchboard.webhooks")


@dataclass
class RecordedPlan:
    """Events recorded but not yet dispatched, and the deliveries planned for them."""

    event_ids: list[str] = field(default_factory=list)
    deliveries: list[DeliveryRef] = field(default_factory=list)


async def plan_recorded(session: AsyncSession, event_ids: list[str]) -> RecordedPlan:
    """Create the deliveries of events just recorded in this transaction (those still undispatched)."""
    plan = RecordedPlan()
    for event, webhook_ids in await deliveries.plan_recorded_deliveries(session, event_ids):
        plan.event_ids.append(event.id)
        plan.deliveries += [
            DeliveryRef(
                delivery_id=deliveries.delivery_id_for(event.id, webhook_id),
                webhook_id=webhook_id,
                event_id=event.id,
                event_kind=event.kind,
            )
            for webhook_id in sorted(webhook_ids, key=lambda w: deliveries.delivery_id_for(event.id, w))
        ]
    return plan


async def start_planned(
    deps: CommitAndStart,
    config: WebhookConfig,
    plan: RecordedPlan,
) -> bool:
    """Start the committed deliveries' workflows and stamp their events dispatched; False if a start failed.

    Each run makes its own first attempt. In an API process whose delivery worker runs, the start is
    eager and that worker runs the attempt at once, without waiting here for the POST. What fails here is
    handed to DispatchEvent (idempotent: a delivery already started is not started again); what fails
    there, the outbox sweeper retries.
    """
    if not plan.event_ids:
        return True
    schedule = ScheduleTerms.of(config.policy)
    failed: set[str] = set()
    for index, delivery in enumerate(plan.deliveries):
        try:
            await start_delivery(
                deps.delivery_starter,
                DeliveryInput(delivery=delivery, schedule=schedule),
                task_queue=deps.settings.temporal_task_queue,
            )
        except (RPCError, RuntimeError, TimeoutError):
            # Temporal is failing: the deliveries not started yet would each wait out the same timeout.
            failed = {d.event_id for d in plan.deliveries[index:]}
            log.warning("delivery starts deferred to DispatchEvent", extra={"event_ids": sorted(failed)})
            break
    started = [event_id for event_id in plan.event_ids if event_id not in failed]
    try:
        # One UPDATE, atomic by itself: an autocommit session where there is one (no BEGIN, no COMMIT).
        # On SQLite it takes its turn with the process's other writers (store/database.py).
        async with write_turn(deps.statement_sessions), unit_of_work(deps.statement_sessions) as session:
            await deliveries.mark_dispatched_many(session, started, at=utcnow())
    except SQLAlchemyError:
        log.warning("events left for the outbox sweeper", extra={"event_ids": started}, exc_info=True)
    if failed:
        await dispatch_events(
            deps.temporal, task_queue=deps.settings.temporal_task_queue, event_ids=sorted(failed)
        )
    return not failed


class WebhookDispatchActivities:
    """Activities of the DispatchEvent and outbox-sweep workflows."""

    def __init__(self, deps: ActivityDeps, config: WebhookConfig) -> None:
        self._deps = deps
        self._config = config

    @activity.defn(name="webhooks.plan_deliveries")
    async def plan_deliveries(self, event_id: str) -> DispatchPlan:
        """Create one delivery per active, matching webhook (idempotent) and return the pending ones."""
        async with unit_of_work(self._deps.sessions) as session:
            event, rows = await deliveries.plan_deliveries(session, event_id)
        schedule = ScheduleTerms.of(self._config.policy)
        if event is None:
            return DispatchPlan(event_found=False, deliveries=[], schedule=schedule)
        refs = [
            DeliveryRef(delivery_id=r.id, webhook_id=r.webhook_id, event_id=r.event_id, event_kind=event.kind)
            for r in rows
        ]
        return DispatchPlan(event_found=True, deliveries=refs, schedule=schedule)

    @activity.defn(name="webhooks.start_deliveries")
    async def start_deliveries(self, plan: DispatchPlan) -> list[str]:
        """Start the DeliverWebhook workflow of each planned delivery; the ids started now."""
        started = []
        for delivery in plan.deliveries:
            if await start_delivery(
                self._deps.temporal,
                DeliveryInput(delivery=delivery, schedule=plan.schedule),
                task_queue=self._deps.settings.temporal_task_queue,
            ):
                started.append(delivery.delivery_id)
        return started

    @activity.defn(name="webhooks.mark_dispatched")
    async def mark_dispatched(self, event_id: str) -> None:
        """Stamp the event's outbox row once its deliveries have started."""
        async with unit_of_work(self._deps.sessions) as session:
            await deliveries.mark_dispatched(session, event_id, at=utcnow())

    @activity.defn(name="webhooks.sweep_outbox")
    async def sweep_outbox(self) -> SweepResult:
        """Re-dispatch events a crash left undispatched and send notifications nobody sent."""
        now, config = utcnow(), self._config
        async with unit_of_work(self._deps.sessions) as session:
            event_ids = await deliveries.undispatched_events(
                session, created_before=now - config.sweep_min_age, limit=config.sweep_batch
            )
            note_ids = await notifications.unsent(
                session, now=now, min_age=config.notification_sweep_min_age, limit=config.sweep_batch
            )
        await dispatch_events(
            self._deps.temporal, task_queue=self._deps.settings.temporal_task_queue, event_ids=event_ids
        )
        for note_id in note_ids:
            try:
                await deliver_notification(self._deps.sessions, self._deps.settings, note_id)
            except (OSError, smtplib.SMTPException, ValueError):
                log.warning(
                    "owner notification still unsent", extra={"notification_id": note_id}, exc_info=True
                )
        return SweepResult(events=len(event_ids), notifications=len(note_ids))
