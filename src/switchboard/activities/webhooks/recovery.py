"""Activities of RecoverDeliveries: list a window's failed deliveries, and resend one delivery.

A resend is the delivery's next attempt, made and recorded by the same code as every attempt
(``WebhookDeliveryActivities.attempt_delivery``), and settled as a delivery run settles it: a success
in the attempt's own record, a failure or a 410 by ``finish_delivery`` (which may auto-disable the
webhook). It is one attempt, not a new retry schedule: a receiver still down keeps the delivery
failed, to recover again later.
"""

from __future__ import annotations

from temporalio import activity

from switchboard.activities.deps import ActivityDeps
from switchboard.activities.webhooks.delivery import WebhookDeliveryActivities
from switchboard.activities.webhooks.types import (
    AttemptInput,
    DeliveryOutcome,
    FinishInput,
    RecoveryPageInput,
    ResendInput,
    ResendRef,
    ResendResult,
)
from switchboard.store.database import unit_of_work
from switchboard.store.webhooks import recovery


class WebhookRecoveryActivities:
    """Activities of the RecoverDeliveries workflow."""

    def __init__(self, deps: ActivityDeps, delivery: WebhookDeliveryActivities) -> None:
        self._deps = deps
        self._delivery = delivery

    @activity.defn(name="webhooks.recovery_page")
    async def recovery_page(self, request: RecoveryPageInput) -> list[ResendRef]:
        """The next page of the window's failed deliveries (by id, after the cursor)."""
        async with self._deps.sessions() as session:
            page = await recovery.failed_page(
                session,
                request.webhook_id,
                since=request.since,
                until=request.until,
                after=request.after,
                limit=request.limit,
            )
        return [ResendRef(delivery_id=t.delivery_id, attempts=t.attempts) for t in page]

    @activity.defn(name="webhooks.resend_delivery")
    async def resend_delivery(self, request: ResendInput) -> ResendResult:
        """Reopen the delivery, make its next attempt, and settle it as a delivery run would."""
        target = recovery.ResendTarget(request.target.delivery_id, request.target.attempts)
        async with unit_of_work(self._deps.sessions) as session:
            attempt = await recovery.reopen(session, target)
        if attempt is None:
            return ResendResult(outcome=DeliveryOutcome.CANCELED)
        result = await self._delivery.attempt_delivery(
            AttemptInput(delivery_id=target.delivery_id, attempt=attempt, at=request.at)
        )
        notes = list(result.notification_ids)
        if result.success:
            return ResendResult(outcome=DeliveryOutcome.SUCCEEDED, notification_ids=notes)
        if result.stopped:
            outcome = DeliveryOutcome.CANCELED
        elif result.status_code == 410:
            outcome = DeliveryOutcome.GONE
        else:
            outcome = DeliveryOutcome.FAILED
        finished = await self._delivery.finish_delivery(
            FinishInput(delivery_id=target.delivery_id, outcome=outcome, at=request.at)
        )
        return ResendResult(outcome=outcome, notification_ids=notes + finished.notification_ids)
