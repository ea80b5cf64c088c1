"""The workflows as they were before each ``workflow.patched`` call was added (no tests here).

Copied from git (the commit is named on each), registered under the production
name on a task queue of their own by tests/workflows/record_support.py: their
histories stand for the runs that were in flight when the patch shipped, and
must keep replaying on the current code's unpatched branch. Delete a class
(and its histories) when its patch becomes ``workflow.deprecate_patch``.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow

from switchboard.workflows.inbound import _add
from switchboard.workflows.policies import (
    HOUSEKEEPING,
    INBOUND_APPLY,
    INBOUND_DEFERRED_STATUS_DELAYS,
    WEBHOOK_ATTEMPT,
    WEBHOOK_BOOKKEEPING,
)
from switchboard.workflows.webhook_delivery import DeliverWebhookWorkflow

with workflow.unsafe.imports_passed_through():
    from switchboard.activities.inbound import InboundActivities
    from switchboard.activities.maintenance import MaintenanceActivities, PruneResult
    from switchboard.activities.webhooks.delivery import WebhookDeliveryActivities
    from switchboard.activities.webhooks.types import (
        AttemptInput,
        AttemptResult,
        DeliveryInput,
        DeliveryOutcome,
        DeliveryReport,
        FinishInput,
    )
    from switchboard.activities.workflow_starts import DELIVERY_WORKFLOW
    from switchboard.domain.webhook_policy import next_retry_delay
    from switchboard.models.inbound import InboundItemsInput, InboundPayload, InboundSummary


@workflow.defn(name="PruneRateLimitCounters")
class LegacyPruneRateLimitCountersWorkflow:
    """workflows/maintenance.py before ``event-retention`` (d04d80f^): no tenant-event pruning."""

    @workflow.run
    async def run(self) -> PruneResult:
        await workflow.execute_activity_method(
            MaintenanceActivities.prune_idempotency_records, **HOUSEKEEPING
        )
        await workflow.execute_activity_method(MaintenanceActivities.prune_tool_tokens, **HOUSEKEEPING)
        return await workflow.execute_activity_method(
            MaintenanceActivities.prune_rate_limit_counters, **HOUSEKEEPING
        )


@workflow.defn(name="ProcessInbound")
class LegacyProcessInboundWorkflow:
    """workflows/inbound.py before ``inbound-local-apply`` (02dfec0^): the payload as a regular activity."""

    @workflow.run
    async def run(self, payload: InboundPayload) -> InboundSummary:
        summary = await workflow.execute_activity_method(
            InboundActivities.process_inbound_payload, payload, **INBOUND_APPLY
        )
        pending = summary.deferred
        for delay in INBOUND_DEFERRED_STATUS_DELAYS:
            if not pending:
                break
            await workflow.sleep(delay)
            retry = await workflow.execute_activity_method(
                InboundActivities.apply_inbound_items,
                InboundItemsInput(payload_id=payload.payload_id, items=pending),
                **INBOUND_APPLY,
            )
            _add(summary, retry)
            pending = retry.deferred
        if pending:
            workflow.logger.warning(
                "statuses for unknown messages dropped",
                extra={"payload_id": payload.payload_id, "wamids": [p.get("wa_message_id") for p in pending]},
            )
        summary.dropped = len(pending)
        summary.deferred = []
        return summary


@workflow.defn(name=DELIVERY_WORKFLOW)
class LegacyDeliverWebhookWorkflow(DeliverWebhookWorkflow):
    """workflows/webhook_delivery.py before ``delivery-settled-with-attempt`` (02dfec0^).

    Every delivery ends with finish_delivery, a successful one included.
    """

    @workflow.run
    async def run(self, request: DeliveryInput) -> DeliveryReport:
        policy = request.schedule.policy()
        delivery_id = request.delivery.delivery_id
        attempt = 0
        while True:
            attempt += 1
            result: AttemptResult = await workflow.execute_activity_method(
                WebhookDeliveryActivities.attempt_delivery,
                AttemptInput(delivery_id=delivery_id, attempt=attempt, at=workflow.now()),
                **WEBHOOK_ATTEMPT,
            )
            await self._notify(result.notification_ids)
            outcome = self._outcome(result)
            if outcome is None:
                delay = next_retry_delay(
                    attempt,
                    result.status_code,
                    random_unit=workflow.random().random(),
                    retry_after_seconds=result.retry_after_seconds,
                    timed_out=result.timed_out,
                    policy=policy,
                )
                if delay is not None:
                    await workflow.sleep(timedelta(seconds=delay))
                    continue
                outcome = DeliveryOutcome.FAILED
            break
        finished = await workflow.execute_activity_method(
            WebhookDeliveryActivities.finish_delivery,
            FinishInput(delivery_id=delivery_id, outcome=outcome, at=workflow.now()),
            **WEBHOOK_BOOKKEEPING,
        )
        await self._notify(finished.notification_ids)
        attempts = attempt - 1 if outcome is DeliveryOutcome.CANCELED else attempt
        return DeliveryReport(
            delivery_id=delivery_id, outcome=outcome, attempts=attempts, auto_disabled=finished.auto_disabled
        )


@workflow.defn(name=DELIVERY_WORKFLOW)
class LegacyRegularAttemptDeliverWebhookWorkflow(DeliverWebhookWorkflow):
    """workflows/webhook_delivery.py before ``delivery-local-attempt`` (b0e4c33): attempts as regular activities."""

    @workflow.run
    async def run(self, request: DeliveryInput) -> DeliveryReport:
        return await super().run(request)

    @staticmethod
    async def _attempt(request: AttemptInput) -> AttemptResult:
        return await workflow.execute_activity_method(
            WebhookDeliveryActivities.attempt_delivery, request, **WEBHOOK_ATTEMPT
        )
