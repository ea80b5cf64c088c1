"""Database housekeeping activities."""

from __future__ import annotations

import logging

from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncEngine
from temporalio import activity

from switchboard.models.base import utcnow
from switchboard.store import idempotency, rate_limits, tool_tokens
from switchboard.store.database import session_factory, unit_of_work

log = logging.getLogger("switchboard.maintenance")


class PruneResult(BaseModel):
    deleted: int


class MaintenanceActivities:
    """Activities that keep shared tables small."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    @activity.defn(name="prune_rate_limit_counters")
    async def prune_rate_limit_counters(self) -> PruneResult:
        """Delete counters whose window has ended."""
        async with self._engine.begin() as conn:
            deleted = await rate_limits.prune_expired(conn, now=utcnow())
        if deleted:
            log.debug("pruned rate-limit counters", extra={"deleted": deleted})
        return PruneResult(deleted=deleted)

    @activity.defn(name="prune_idempotency_records")
    async def prune_idempotency_records(self) -> PruneResult:
        """Delete Idempotency-Key records past their 24 h lifetime."""
        async with unit_of_work(session_factory(self._engine)) as session:
            deleted = await idempotency.prune_expired(session, now=utcnow())
        return PruneResult(deleted=deleted)

    @activity.defn(name="prune_tool_tokens")
    async def prune_tool_tokens(self) -> PruneResult:
        """Delete cached tool tokens that expired (and whose fetch lease is over)."""
        async with unit_of_work(session_factory(self._engine)) as session:
            deleted = await tool_tokens.prune_expired(session, now=utcnow())
        return PruneResult(deleted=deleted)
