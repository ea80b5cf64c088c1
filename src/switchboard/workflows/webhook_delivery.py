"""DeliverWebhook: one event to one webhook, retried on the policy's schedule with durable timers.

Each attempt is one local activity that POSTs and records the outcome (a
run started while an API process posted attempt 1 before starting it
carries that outcome in ``first_attempt`` instead; see DeliveryInput). Between
attempts the workflow sleeps the jittered delay (jitter from
``workflow.random()``, so replays agree), raised to the overload floor after
a 429 or a timeout and stretched to a receiver's ``Retry-After`` within the
policy's bounds. A 2xx ends it; a 410 or an exhausted schedule settles it as
``gone`` or ``failed`` (which may auto-disable the webhook); a webhook found
disabled or deleted before an attempt ends it as ``canceled``.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError

from switchboard.workflows.policies import (
    WEBHOOK_ATTEMPT,
    WEBHOOK_ATTEMPT_LOCAL,
    WEBHOOK_BOOKKEEPING,
    WEBHOOK_NOTIFY,
)

with workflow.unsafe.imports_passed_through():
    from switchboard.activities.notifications import NotificationActivities
    from switchboard.activities.webhooks.delivery import WebhookDeliveryActivities
    from switchboard.activities.webhooks.types import (
        AttemptInput,
        AttemptResult,
        DeliveryInput,
        DeliveryOutcome,
        DeliveryReport,
        FinishInput,
    )
    from switchboard.domain.webhook_policy import next_retry_delay
    from switchboard.domain.workflow_names import DELIVERY_WORKFLOW


# Histories recorded before a successful attempt settled its own delivery still call finish_delivery.
# A run whose input carries its first attempt was started by code that settles with the attempt, so it
# asks nothing: no marker, no search-attribute upsert (decided by the input, so replays agree).
SETTLED_WITH_ATTEMPT = "delivery-settled-with-attempt"
# Histories recorded before attempts ran as local activities replay them as regular ones.
LOCAL_ATTEMPT = "delivery-local-attempt"


# Outside the sandbox, like SendMessage: one run per delivery, and the sandbox's fresh import of this
# module for each run was about a fifth of the worker's CPU per delivery. The code calls only workflow
# APIs and pure functions; tests/workflows/sandboxed_twins.py replays its recorded histories inside the
# sandbox, so a restricted call added here still fails the tests (docs/decisions/0002-workflow-sandbox-cost.md).
@workflow.defn(name=DELIVERY_WORKFLOW, sandboxed=False)
class DeliverWebhookWorkflow:
    """Attempts one delivery until success, 410, exhaustion or the webhook's disabling."""

    @workflow.run
    async def run(self, request: DeliveryInput) -> DeliveryReport:
        policy = request.schedule.policy()
        delivery_id = request.delivery.delivery_id
        attempt = 0
        while True:
            attempt += 1
            if attempt == 1 and request.first_attempt is not None:
                result = request.first_attempt
            else:
                result = await self._attempt(
                    AttemptInput(delivery_id=delivery_id, attempt=attempt, at=workflow.now())
                )
            await mail_owner_notifications(result.notification_ids)
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
        if result.settled and (request.first_attempt is not None or workflow.patched(SETTLED_WITH_ATTEMPT)):
            return DeliveryReport(delivery_id=delivery_id, outcome=outcome, attempts=attempt)
        finished = await workflow.execute_activity_method(
            WebhookDeliveryActivities.finish_delivery,
            FinishInput(delivery_id=delivery_id, outcome=outcome, at=workflow.now()),
            **WEBHOOK_BOOKKEEPING,
        )
        await mail_owner_notifications(finished.notification_ids)
        attempts = attempt - 1 if outcome is DeliveryOutcome.CANCELED else attempt
        return DeliveryReport(
            delivery_id=delivery_id, outcome=outcome, attempts=attempts, auto_disabled=finished.auto_disabled
        )

    @staticmethod
    async def _attempt(request: AttemptInput) -> AttemptResult:
        """One POST and its record. A local activity: no task-queue round trip for the common fast answer.

        The workflow owns the retry schedule (durable timers between attempts), so an attempt is short and
        idempotent per (delivery, attempt): a worker lost mid-attempt re-runs it, and a recorded attempt is
        returned rather than posted again.
        """
        if workflow.patched(LOCAL_ATTEMPT):
            return await workflow.execute_local_activity_method(
                WebhookDeliveryActivities.attempt_delivery, request, **WEBHOOK_ATTEMPT_LOCAL
            )
        return await workflow.execute_activity_method(
            WebhookDeliveryActivities.attempt_delivery, request, **WEBHOOK_ATTEMPT
        )

    @staticmethod
    def _outcome(result: AttemptResult) -> DeliveryOutcome | None:
        if result.stopped:
            return DeliveryOutcome.CANCELED
        if result.success:
            return DeliveryOutcome.SUCCEEDED
        if result.status_code == 410:
            return DeliveryOutcome.GONE
        return None


async def mail_owner_notifications(notification_ids: list[str]) -> None:
    """Mail each stored owner notification (webhook.degraded, ...) from a webhook workflow, in turn."""
    for notification_id in notification_ids:
        try:
            await workflow.execute_activity_method(
                NotificationActivities.send_owner_notification, notification_id, **WEBHOOK_NOTIFY
            )
        except ActivityError:
            # The row stays pending; the outbox sweeper mails it later.
            workflow.logger.warning("owner notification left to the sweeper", extra={"id": notification_id})
