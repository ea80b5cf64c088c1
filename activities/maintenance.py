"""Database housekeeping activities."""

from __future__ import annotations

import logging

from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncEngine
from temporalio import activity

from models.base import utcnow
from store import rate_limits

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
            log.info("pruned rate-limit counters", extra={"deleted": deleted})
        return PruneResult(deleted=deleted)
