"""Raw-envelope housekeeping: hand over envelopes Temporal never got, prune those past retention.

Raw channel envelopes are kept ``RAW_INBOUND_RETENTION_DAYS`` (7 to 30, default
14) for replay and audit, then deleted together with the dedup ledger (the
upstream stops redelivering after 7 days, so the ledger is no longer needed by
then). Messages, conversations, contacts and events are never deleted here.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from temporalio import activity

from switchboard.activities.deps import ActivityDeps
from switchboard.activities.inbound import InboundActivities
from switchboard.activities.workflow_starts import start_inbound
from switchboard.models.inbound import HousekeepingInput, RetentionResult, SweepResult, inbound_payload
from switchboard.store import inbound as store
from switchboard.store.database import unit_of_work

log = logging.getLogger("switchboard.inbound")

DEFAULT_RETENTION_DAYS = 14
MIN_RETENTION_DAYS = 7
MAX_RETENTION_DAYS = 30
# An envelope younger than this may still be on its way to Temporal from the API.
SWEEP_GRACE = timedelta(seconds=30)
SWEEP_BATCH = 100
PRUNE_BATCH = 1000
PRUNE_MAX_BATCHES = 50


def retention_days(configured: int | None) -> int:
    """The retention to apply: the configured days clamped to 7..30, 14 when unset."""
    if configured is None:
        return DEFAULT_RETENTION_DAYS
    return max(MIN_RETENTION_DAYS, min(MAX_RETENTION_DAYS, int(configured)))


class RetentionActivities:
    """Sweeping and pruning of raw inbound envelopes."""

    def __init__(self, deps: ActivityDeps) -> None:
        self._deps = deps

    @activity.defn(name="sweep_raw_inbound")
    async def sweep_raw_inbound(self, data: HousekeepingInput) -> SweepResult:
        """Start ProcessInbound for stored envelopes whose processing never finished."""
        async with unit_of_work(self._deps.sessions) as session:
            rows = await store.unprocessed_raw_inbound(
                session, received_before=data.now - SWEEP_GRACE, limit=SWEEP_BATCH
            )
        result = SweepResult()
        for row in rows:
            payload = inbound_payload(payload_id=row.id, body=row.body, received_at=row.received_at)
            try:
                started = await start_inbound(
                    self._deps.temporal, payload, task_queue=self._deps.settings.temporal_task_queue
                )
            except Exception:
                log.warning("could not start inbound processing", extra={"payload_id": row.id}, exc_info=True)
                result.failed += 1
                continue
            if started:
                result.started += 1
                continue
            # Only a completed run refuses a new start, and a completed run applied every item.
            async with unit_of_work(self._deps.sessions) as session:
                await store.mark_raw_inbound_processed(session, row.id, at=data.now)
            result.already_done += 1
        if result.started or result.failed:
            log.info("swept raw inbound envelopes", extra=result.model_dump())
        return result

    @activity.defn(name="prune_raw_inbound")
    async def prune_raw_inbound(self, data: HousekeepingInput) -> RetentionResult:
        """Delete raw envelopes and ledger rows older than the retention."""
        days = retention_days(self._deps.settings.raw_inbound_retention_days)
        cutoff = data.now - timedelta(days=days)
        result = RetentionResult(retention_days=days)
        for _ in range(PRUNE_MAX_BATCHES):
            async with unit_of_work(self._deps.sessions) as session:
                deleted, unprocessed = await store.prune_raw_inbound(
                    session, received_before=cutoff, batch=PRUNE_BATCH
                )
            result.raw_deleted += deleted
            result.raw_unprocessed_deleted += unprocessed
            if deleted < PRUNE_BATCH:
                break
        for _ in range(PRUNE_MAX_BATCHES):
            async with unit_of_work(self._deps.sessions) as session:
                deleted = await store.prune_inbound_ledger(session, applied_before=cutoff, batch=PRUNE_BATCH)
            result.ledger_deleted += deleted
            if deleted < PRUNE_BATCH:
                break
        if result.raw_unprocessed_deleted:
            log.warning("pruned raw envelopes that were never processed", extra=result.model_dump())
        elif result.raw_deleted or result.ledger_deleted:
            log.info("pruned raw inbound envelopes", extra=result.model_dump())
        return result


def inbound_activities(deps: ActivityDeps) -> list[Any]:
    """Every inbound and retention activity, bound to ``deps`` (for activities/all_activities.py)."""
    inbound = InboundActivities(deps)
    retention = RetentionActivities(deps)
    return [
        inbound.process_inbound_payload,
        inbound.apply_inbound_items,
        retention.sweep_raw_inbound,
        retention.prune_raw_inbound,
    ]
