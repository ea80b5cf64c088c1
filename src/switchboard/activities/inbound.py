"""Inbound activities: apply a channel webhook payload item by item, each in its own transaction.

Items are applied in upstream order (a ``delivered`` before a ``read`` of the
same batch raises both events). Each item commits on its own and then hands
its events to the dispatcher, so a crash part-way loses nothing: the retried
activity finds the applied items in the ledger and skips them. A conflicting
concurrent writer (two payloads about one new contact) is retried locally in a
fresh transaction before the failure is left to Temporal's retry policy. On
SQLite, one worker's item transactions take turns through an asyncio lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncSession
from temporalio import activity
from temporalio.service import RPCError

from switchboard.activities.deps import ActivityDeps
from switchboard.activities.webhooks.config import config_from_settings
from switchboard.activities.webhooks.dispatching import RecordedPlan, plan_recorded, start_planned
from switchboard.activities.workflow_starts import signal_turn, wake_timers_or_log
from switchboard.domain.inbound import (
    InboundItem,
    InvalidWebhookEnvelope,
    item_from_dict,
    item_to_dict,
    parse_envelope,
)
from switchboard.models.base import utcnow
from switchboard.models.inbound import InboundItemsInput, InboundPayload, InboundSummary
from switchboard.store import inbound as store
from switchboard.store.agents.threads import mark_signalled
from switchboard.store.database import unit_of_work
from switchboard.store.webhooks.active import read_webhooks_once

log = logging.getLogger("switchboard.inbound")

LOCAL_ATTEMPTS = 5

# Extra work to commit together with the last item of a payload.
Finish = Callable[[AsyncSession], Awaitable[None]]


def _tally(summary: InboundSummary, outcome: store.ItemOutcome, item: InboundItem) -> None:
    summary.events += len(outcome.event_ids)
    if outcome.result == store.DEFERRED:
        summary.deferred.append(item_to_dict(item))
    elif outcome.result in store.OUTCOMES:
        setattr(summary, outcome.result, getattr(summary, outcome.result) + 1)


class InboundActivities:
    """Applying inbound items to the database and dispatching the events they raise."""

    def __init__(self, deps: ActivityDeps) -> None:
        self._deps = deps
        # SQLite has one writer and its busy handler polls with sleeps: queueing this worker's
        # item transactions in the event loop instead is fairer and much faster under load.
        self._write_turn = asyncio.Lock() if deps.settings.is_sqlite else contextlib.nullcontext()
        self._webhooks = config_from_settings(deps.settings)

    async def _apply_one(
        self, item: InboundItem, *, payload_id: str, then: Finish | None = None
    ) -> store.ItemOutcome:
        plan = RecordedPlan()
        for attempt in range(1, LOCAL_ATTEMPTS + 1):
            try:
                async with self._write_turn, unit_of_work(self._deps.sessions) as session:
                    read_webhooks_once(session)
                    outcome = await store.apply_item(session, item, payload_id=payload_id, now=utcnow())
                    if then is not None:
                        await then(session)
                    # The item's deliveries commit with it: no DispatchEvent hop (the outbox still covers a crash).
                    plan = await plan_recorded(session, outcome.event_ids)
                break
            except (IntegrityError, OperationalError):
                # A concurrent writer won a race on a unique key or a lock; a fresh transaction sees its row.
                if attempt == LOCAL_ATTEMPTS:
                    raise
                await asyncio.sleep(0.02 * attempt)
        await start_planned(self._deps, self._webhooks, plan, write_turn=self._write_turn)
        if outcome.turns:
            await self._signal_turns(outcome.turns)
        for tenant_id, thread_id in outcome.woken:
            await wake_timers_or_log(
                self._deps.temporal,
                tenant_id=tenant_id,
                thread_id=thread_id,
                task_queue=self._deps.settings.temporal_task_queue,
            )
        return outcome

    async def _signal_turns(self, turns: list[tuple[str, str, str]]) -> None:
        """Hand committed turns to their threads' workflows; what fails here the turn sweeper retries."""
        settings = self._deps.settings
        for tenant_id, thread_id, message_id in turns:
            try:
                await signal_turn(
                    self._deps.temporal,
                    tenant_id=tenant_id,
                    thread_id=thread_id,
                    message_id=message_id,
                    task_queue=settings.temporal_task_queue,
                    with_search_attributes=settings.temporal_search_attributes,
                    debounce_seconds=settings.agent_debounce_seconds,
                    idle_seconds=settings.agent_thread_idle_seconds,
                )
            except (RPCError, RuntimeError, TimeoutError) as error:
                log.warning(
                    "agent turn not signalled; the sweeper will",
                    extra={"thread_id": thread_id, "message_id": message_id, "error": str(error)},
                )
                continue
            async with unit_of_work(self._deps.sessions) as session:
                await mark_signalled(session, [message_id], at=utcnow())

    async def _apply_all(
        self, items: list[InboundItem], *, payload_id: str, then: Finish | None = None
    ) -> InboundSummary:
        """Apply items in order; ``then`` joins the last item's transaction (one commit fewer per payload)."""
        summary = InboundSummary(items=len(items))
        for index, item in enumerate(items):
            last = index == len(items) - 1
            outcome = await self._apply_one(item, payload_id=payload_id, then=then if last else None)
            _tally(summary, outcome, item)
            if not activity.info().is_local:
                activity.heartbeat(index)
        if not items and then is not None:
            async with unit_of_work(self._deps.sessions) as session:
                await then(session)
        return summary

    @activity.defn(name="process_inbound_payload")
    async def process_inbound_payload(self, payload: InboundPayload) -> InboundSummary:
        """Parse a verified webhook body, apply every item, and keep the raw envelope as processed."""
        body = payload.body
        if body is None:
            async with self._deps.sessions() as session:
                body = await store.raw_inbound_body(session, payload.payload_id)
            if body is None:
                log.error("stored webhook body not found; skipped", extra={"payload_id": payload.payload_id})
                return InboundSummary()
        try:
            items = parse_envelope(body.encode("utf-8"), received_at=payload.received_at)
        except InvalidWebhookEnvelope:
            log.warning(
                "stored webhook body is not an envelope; skipped", extra={"payload_id": payload.payload_id}
            )
            items = []

        async def keep_envelope(session: AsyncSession) -> None:
            await store.record_processed_raw_inbound(
                session,
                payload_id=payload.payload_id,
                body=body,
                received_at=payload.received_at,
                at=utcnow(),
            )

        summary = await self._apply_all(items, payload_id=payload.payload_id, then=keep_envelope)
        log.info(
            "inbound payload applied",
            extra={"payload_id": payload.payload_id, **summary.model_dump(exclude={"deferred"})},
        )
        return summary

    @activity.defn(name="apply_inbound_items")
    async def apply_inbound_items(self, data: InboundItemsInput) -> InboundSummary:
        """Apply items again (statuses deferred because their message was not stored yet)."""
        items = [item_from_dict(raw) for raw in data.items]
        return await self._apply_all(items, payload_id=data.payload_id)
