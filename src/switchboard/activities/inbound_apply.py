"""Applying a channel webhook payload: its items in order, each in its own transaction, then what they start.

Two callers share this. POST /channel/webhook applies a payload while the
channel waits for its answer, so an inbound message costs no workflow of its
own: the workflows are the ones it starts (webhook deliveries, agent turns).
The ProcessInbound workflow's activities apply what the endpoint handed over
instead (a large body, an error during the request, or every body with
INBOUND_APPLY_IN_REQUEST off) and retry statuses that arrived before their
message was stored.

Items are applied in upstream order (a ``delivered`` before a ``read`` of the
same batch raises both events). Each item commits on its own, its webhook
deliveries planned in the same transaction, and then its deliveries are
started, its agent turns signalled and its timers woken, so a crash part-way
loses nothing: the channel's redelivery (or the retried activity) finds the
applied items in the ledger and skips them; the outbox sweeper starts
deliveries and the turn sweeper signals turns a crash left behind. A
conflicting concurrent writer (two payloads about one new contact) is retried
in a fresh transaction. On SQLite, one process's item transactions take turns
(``store.database.write_turn``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncSession
from temporalio.service import RPCError, RPCStatusCode

from switchboard import metrics
from switchboard.activities.deps import CommitAndStart
from switchboard.activities.webhooks.config import config_from_settings
from switchboard.activities.webhooks.dispatching import RecordedPlan, plan_recorded, start_planned
from switchboard.activities.workflow_starts import signal_turn, wake_thread_timers
from switchboard.domain.inbound import InboundItem, InvalidWebhookEnvelope, item_to_dict, parse_envelope
from switchboard.models.base import utcnow
from switchboard.models.inbound import InboundPayload, InboundSummary
from switchboard.store import inbound as store
from switchboard.store.agents.threads import mark_signalled
from switchboard.store.database import unit_of_work, write_turn
from switchboard.store.webhooks.active import read_webhooks_once

log = logging.getLogger("switchboard.inbound")

LOCAL_ATTEMPTS = 5

# Extra work to commit with the last item of a payload; told whether any item of it was deferred.
Finish = Callable[[AsyncSession, bool], Awaitable[None]]
# Called after each item with its index (a long-running activity heartbeats with it).
Progress = Callable[[int], None]


@dataclass
class PayloadStarts:
    """How the starts after one payload's commits are going."""

    temporal_failed: bool = False


# What a Temporal call that cannot reach the server raises (a refused start, e.g. a search attribute the
# namespace lacks, is not one: the next item's starts may well succeed).
_UNREACHABLE = {RPCStatusCode.UNAVAILABLE, RPCStatusCode.DEADLINE_EXCEEDED, RPCStatusCode.CANCELLED}


def _unreachable(error: Exception) -> bool:
    return not isinstance(error, RPCError) or error.status in _UNREACHABLE


def _tally(summary: InboundSummary, outcome: store.ItemOutcome, item: InboundItem) -> None:
    summary.events += len(outcome.event_ids)
    if outcome.result == store.DEFERRED:
        summary.deferred.append(item_to_dict(item))
    elif outcome.result in store.OUTCOMES:
        setattr(summary, outcome.result, getattr(summary, outcome.result) + 1)


def _told_of_deferred(
    then: Finish, summary: InboundSummary
) -> Callable[[AsyncSession, store.ItemOutcome], Awaitable[None]]:
    """``then`` for the last item: whether any item of the payload, that one included, was deferred."""

    async def finish(session: AsyncSession, outcome: store.ItemOutcome) -> None:
        await then(session, bool(summary.deferred) or outcome.result == store.DEFERRED)

    return finish


def parse_items(payload: InboundPayload, body: str) -> list[InboundItem]:
    """The payload's items; none (logged) when a verified body is JSON but not a webhook envelope."""
    try:
        return parse_envelope(body.encode("utf-8"), received_at=payload.received_at)
    except InvalidWebhookEnvelope:
        log.warning("webhook body is not an envelope; skipped", extra={"payload_id": payload.payload_id})
        return []


class InboundApplier:
    """Applies inbound items to the database and starts what they raise; one per process."""

    def __init__(self, deps: CommitAndStart) -> None:
        self._deps = deps
        self._webhooks = config_from_settings(deps.settings)

    @property
    def write_turn(self) -> contextlib.AbstractAsyncContextManager[Any]:
        """On SQLite, this process's item transactions and dispatch stamps go one at a time (store/database.py)."""
        return write_turn(self._deps.sessions)

    async def apply_one(
        self,
        item: InboundItem,
        *,
        payload_id: str,
        then: Callable[[AsyncSession, store.ItemOutcome], Awaitable[None]] | None = None,
        starts: PayloadStarts | None = None,
    ) -> store.ItemOutcome:
        """Apply one item in its own transaction (``then`` joins it), then start what it raised."""
        starts = starts or PayloadStarts()
        plan = RecordedPlan()
        for attempt in range(1, LOCAL_ATTEMPTS + 1):
            try:
                async with self.write_turn, unit_of_work(self._deps.sessions) as session:
                    read_webhooks_once(session)
                    outcome = await store.apply_item(
                        session, item, payload_id=payload_id, now=utcnow(), first_try=attempt == 1
                    )
                    if then is not None:
                        await then(session, outcome)
                    # The item's deliveries commit with it (the outbox still covers a crash).
                    plan = await plan_recorded(session, outcome.event_ids)
                break
            except (IntegrityError, OperationalError):
                # A concurrent writer won a race on a unique key or a lock, or a first try met a stored
                # wamid (store.apply_item): a fresh transaction, looking first, sees the row.
                if attempt == LOCAL_ATTEMPTS:
                    raise
                await asyncio.sleep(0.02 * attempt)
        await self._after_commit(outcome, plan, starts, payload_id=payload_id)
        return outcome

    async def _after_commit(
        self, outcome: store.ItemOutcome, plan: RecordedPlan, starts: PayloadStarts, *, payload_id: str
    ) -> None:
        """Start the item's deliveries, signal its turns, wake its timers; the sweepers cover any failure.

        Once Temporal has failed for this payload, its later items try nothing: each start would wait out
        its own timeout while the channel waits for the answer.
        """
        if starts.temporal_failed:
            return
        started = await start_planned(self._deps, self._webhooks, plan)
        if started and outcome.turns:
            started = await self._signal_turns(outcome.turns)
        if started:
            started = await self._wake_timers(outcome.woken)
        if not started:
            starts.temporal_failed = True
            log.warning(
                "Temporal failing: this payload's remaining starts are left to the sweepers",
                extra={"payload_id": payload_id},
            )

    async def _wake_timers(self, woken: list[tuple[str, str]]) -> bool:
        """Wake the timers of threads a human message muted; False when Temporal is unreachable."""
        for tenant_id, thread_id in woken:
            try:
                await wake_thread_timers(
                    self._deps.temporal,
                    tenant_id=tenant_id,
                    thread_id=thread_id,
                    task_queue=self._deps.settings.temporal_task_queue,
                )
            except (RPCError, RuntimeError, TimeoutError) as error:
                log.warning("thread timers not woken", extra={"thread_id": thread_id, "error": str(error)})
                if _unreachable(error):
                    return False
        return True

    async def _signal_turns(self, turns: list[tuple[str, str, str]]) -> bool:
        """Hand committed turns to their threads' workflows (a failure the turn sweeper retries); False if unreachable."""
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
                if _unreachable(error):
                    return False
                continue
            async with unit_of_work(self._deps.sessions) as session:
                await mark_signalled(session, [message_id], at=utcnow())
        return True

    async def apply_all(
        self,
        items: list[InboundItem],
        *,
        payload_id: str,
        then: Finish | None = None,
        progress: Progress | None = None,
        received_at: datetime | None = None,
    ) -> InboundSummary:
        """Apply items in order; ``then`` joins the last item's transaction (one commit fewer per payload).

        ``received_at`` (when the channel's POST arrived) times each received message to its storing.
        """
        summary = InboundSummary(items=len(items))
        finish = None if then is None else _told_of_deferred(then, summary)
        starts = PayloadStarts()
        for index, item in enumerate(items):
            last = index == len(items) - 1
            outcome = await self.apply_one(
                item, payload_id=payload_id, then=finish if last else None, starts=starts
            )
            _tally(summary, outcome, item)
            metrics.count_inbound_item(
                item.kind,
                outcome.result,
                seconds_since_received=(utcnow() - received_at).total_seconds() if received_at else None,
            )
            if progress is not None:
                progress(index)
        if not items and then is not None:
            async with self.write_turn, unit_of_work(self._deps.sessions) as session:
                await then(session, False)
        return summary

    async def apply_payload(
        self,
        payload: InboundPayload,
        body: str,
        *,
        keep_deferred_for_sweeper: bool,
        progress: Progress | None = None,
    ) -> tuple[InboundSummary, bool]:
        """Apply a verified body's items and keep its raw envelope; the summary, and whether it was a repeat.

        The envelope is stamped processed in the last item's transaction. With
        ``keep_deferred_for_sweeper`` a payload with deferred statuses is kept
        unstamped instead, so that the sweeper hands it to ProcessInbound if
        the caller cannot (the endpoint has no durable timer of its own).
        A repeat is a body whose envelope was already stamped processed.
        """
        items = parse_items(payload, body)
        seen_before = False

        async def keep_envelope(session: AsyncSession, deferred: bool) -> None:
            nonlocal seen_before
            seen_before = await store.record_processed_raw_inbound(
                session,
                payload_id=payload.payload_id,
                body=body,
                received_at=payload.received_at,
                at=None if deferred and keep_deferred_for_sweeper else utcnow(),
            )

        summary = await self.apply_all(
            items,
            payload_id=payload.payload_id,
            then=keep_envelope,
            progress=progress,
            received_at=payload.received_at,
        )
        log.debug(
            "inbound payload applied",
            extra={"payload_id": payload.payload_id, **summary.model_dump(exclude={"deferred"})},
        )
        return summary, seen_before
