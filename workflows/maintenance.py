"""Periodic housekeeping run by a Temporal Schedule (every minute)."""

from __future__ import annotations

from temporalio import workflow

from workflows.policies import HOUSEKEEPING

with workflow.unsafe.imports_passed_through():
    from activities.maintenance import MaintenanceActivities, PruneResult


@workflow.defn(name="PruneRateLimitCounters")
class PruneRateLimitCountersWorkflow:
    """Drops rate-limit counters of windows that have ended."""

    @workflow.run
    async def run(self) -> PruneResult:
        return await workflow.execute_activity_method(
            MaintenanceActivities.prune_rate_limit_counters, **HOUSEKEEPING
        )
