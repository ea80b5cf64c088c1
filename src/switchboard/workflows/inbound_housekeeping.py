"""InboundHousekeeping: every minute, hand over stranded raw envelopes and prune old ones.

POST /channel/webhook leaves an envelope in ``raw_inbound`` without a
processed stamp when it could neither apply it nor hand it to a ProcessInbound
run (Temporal unreachable), or when its deferred statuses await a run whose
start failed; this sweep starts that run. Envelopes (and the dedup ledger)
older than the retention are deleted here; messages and their metadata never are.
"""

from __future__ import annotations

from temporalio import workflow

from switchboard.workflows.inbound import ProcessInboundWorkflow
from switchboard.workflows.policies import HOUSEKEEPING

with workflow.unsafe.imports_passed_through():
    from switchboard.activities.inbound_housekeeping import RetentionActivities
    from switchboard.models.inbound import HousekeepingInput, InboundHousekeepingResult


@workflow.defn(name="InboundHousekeeping")
class InboundHousekeepingWorkflow:
    """Sweeps unprocessed raw inbound envelopes, then applies the retention."""

    @workflow.run
    async def run(self) -> InboundHousekeepingResult:
        now = HousekeepingInput(now=workflow.now())
        sweep = await workflow.execute_activity_method(
            RetentionActivities.sweep_raw_inbound, now, **HOUSEKEEPING
        )
        retention = await workflow.execute_activity_method(
            RetentionActivities.prune_raw_inbound, now, **HOUSEKEEPING
        )
        return InboundHousekeepingResult(sweep=sweep, retention=retention)


# Registered by workflows/all_workflows.py.
INBOUND_WORKFLOWS: list[type] = [ProcessInboundWorkflow, InboundHousekeepingWorkflow]
