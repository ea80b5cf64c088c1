"""DispatchEvent (one per outbox event) and the outbox sweeper that catches what a crash left behind.

DispatchEvent creates one delivery per active, matching webhook, starts a
DeliverWebhook workflow per delivery under the delivery's own id (a second
start of the same id does nothing) and stamps the event as dispatched. The
deliveries are started by an activity through the client, not as children:
they outlive the dispatcher by up to a day of retries and need no parent.
The sweeper runs on a Temporal schedule and re-dispatches events whose
dispatch never started.
"""

from __future__ import annotations

from temporalio import workflow

from switchboard.workflows.policies import WEBHOOK_BOOKKEEPING
from switchboard.workflows.webhook_delivery import DeliverWebhookWorkflow

with workflow.unsafe.imports_passed_through():
    from switchboard.activities.webhooks.dispatching import WebhookDispatchActivities
    from switchboard.activities.webhooks.types import DispatchPlan, SweepResult
    from switchboard.domain.workflow_names import DISPATCH_WORKFLOW


@workflow.defn(name=DISPATCH_WORKFLOW)
class DispatchEventWorkflow:
    """Fans one event out to its webhooks; returns the delivery ids it started."""

    @workflow.run
    async def run(self, event_id: str) -> list[str]:
        plan: DispatchPlan = await workflow.execute_activity_method(
            WebhookDispatchActivities.plan_deliveries, event_id, **WEBHOOK_BOOKKEEPING
        )
        if not plan.event_found:
            return []
        started: list[str] = []
        if plan.deliveries:
            started = await workflow.execute_activity_method(
                WebhookDispatchActivities.start_deliveries, plan, **WEBHOOK_BOOKKEEPING
            )
        await workflow.execute_activity_method(
            WebhookDispatchActivities.mark_dispatched, event_id, **WEBHOOK_BOOKKEEPING
        )
        return started


@workflow.defn(name="SweepEventOutbox")
class SweepEventOutboxWorkflow:
    """Re-dispatches undispatched events and sends stranded owner notifications (scheduled)."""

    @workflow.run
    async def run(self) -> SweepResult:
        return await workflow.execute_activity_method(
            WebhookDispatchActivities.sweep_outbox, **WEBHOOK_BOOKKEEPING
        )


WEBHOOK_WORKFLOWS: list[type] = [DispatchEventWorkflow, DeliverWebhookWorkflow, SweepEventOutboxWorkflow]
