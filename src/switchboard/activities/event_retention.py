"""Tenant event retention: delete events, deliveries and attempts older than EVENT_RETENTION_DAYS.

Run by the maintenance schedule (``PruneRateLimitCounters``, every minute) in
bounded batches, each its own transaction, so a large backlog drains over a
few runs without holding locks or the activity for long.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from pydantic import BaseModel
from temporalio import activity

from switchboard.activities.deps import ActivityDeps
from switchboard.models.inbound import HousekeepingInput
from switchboard.store.database import unit_of_work
from switchboard.store.event_retention import prune_events

log = logging.getLogger("switchboard.maintenance")

PRUNE_BATCH = 500
PRUNE_MAX_BATCHES = 20


class EventRetentionResult(BaseModel):
    events_deleted: int = 0
    deliveries_deleted: int = 0
    attempts_deleted: int = 0
    retention_days: int


class EventRetentionActivities:
    """Pruning of the event outbox and its delivery records."""

    def __init__(self, deps: ActivityDeps) -> None:
        self._deps = deps

    @activity.defn(name="prune_tenant_events")
    async def prune_tenant_events(self, data: HousekeepingInput) -> EventRetentionResult:
        """Delete settled events (with deliveries and attempts) created before the retention window."""
        days = self._deps.settings.event_retention_days
        cutoff = data.now - timedelta(days=days)
        result = EventRetentionResult(retention_days=days)
        for _ in range(PRUNE_MAX_BATCHES):
            async with unit_of_work(self._deps.sessions) as session:
                pruned = await prune_events(session, created_before=cutoff, batch=PRUNE_BATCH)
            result.events_deleted += pruned.events
            result.deliveries_deleted += pruned.deliveries
            result.attempts_deleted += pruned.attempts
            if pruned.events < PRUNE_BATCH:
                break
        if result.events_deleted:
            log.info("pruned tenant events past retention", extra=result.model_dump())
        return result


def event_retention_activities(deps: ActivityDeps) -> list[Any]:
    """The retention activity bound to ``deps`` (for activities/all_activities.py)."""
    return [EventRetentionActivities(deps).prune_tenant_events]
