"""Periodic housekeeping run by a Temporal Schedule (every minute)."""

from __future__ import annotations

from temporalio import workflow

from switchboard.workflows.policies import HOUSEKEEPING

with workflow.unsafe.imports_passed_through():
    from switchboard.activities.agents.payloads import SweepTurnsResult
    from switchboard.activities.agents.runs import AgentRunActivities
    from switchboard.activities.event_retention import EventRetentionActivities
    from switchboard.activities.maintenance import MaintenanceActivities, PruneResult
    from switchboard.activities.send_sweeper import SendSweeperActivities, SweepResult
    from switchboard.models.inbound import HousekeepingInput


# Marks runs that also prune tenant events, so runs started before that step existed replay unchanged.
EVENT_RETENTION_PATCH = "event-retention"


@workflow.defn(name="PruneRateLimitCounters")
class PruneRateLimitCountersWorkflow:
    """Drops ended rate-limit windows, idempotency records, expired tool tokens and events past retention."""

    @workflow.run
    async def run(self) -> PruneResult:
        await workflow.execute_activity_method(
            MaintenanceActivities.prune_idempotency_records, **HOUSEKEEPING
        )
        await workflow.execute_activity_method(MaintenanceActivities.prune_tool_tokens, **HOUSEKEEPING)
        result = await workflow.execute_activity_method(
            MaintenanceActivities.prune_rate_limit_counters, **HOUSEKEEPING
        )
        if workflow.patched(EVENT_RETENTION_PATCH):
            await workflow.execute_activity_method(
                EventRetentionActivities.prune_tenant_events,
                HousekeepingInput(now=workflow.now()),
                **HOUSEKEEPING,
            )
        return result


@workflow.defn(name="SweepQueuedSends")
class SweepQueuedSendsWorkflow:
    """Starts the send of messages left queued without a workflow; settles those whose run ended."""

    @workflow.run
    async def run(self) -> SweepResult:
        return await workflow.execute_activity_method(
            SendSweeperActivities.resume_queued_sends, **HOUSEKEEPING
        )


@workflow.defn(name="SweepAgentTurns")
class SweepAgentTurnsWorkflow:
    """Signals the threads of agent turns that a crash left unsignalled."""

    @workflow.run
    async def run(self) -> SweepTurnsResult:
        return await workflow.execute_activity_method(AgentRunActivities.sweep_agent_turns, **HOUSEKEEPING)
