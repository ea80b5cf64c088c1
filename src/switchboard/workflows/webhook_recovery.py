"""RecoverDeliveries: resend a webhook's failed deliveries of a window (or the ones given), a few at a time.

``POST /v1/webhooks/{id}/recover`` starts one for a window; ``POST /v1/webhook-deliveries/{id}/resend``
starts one for a single delivery. Each delivery gets one resend (its next attempt, with its own
``delivery_id`` so receivers deduplicate), at most ``CONCURRENCY`` at once, so a receiver that was down
is not flooded the moment it is back. The window is read in pages by delivery id (a resend that fails
again is not picked up again), and a run hands its place to the next after ``PER_RUN`` deliveries
(continue-as-new), so a window of any size keeps each history small. Its progress is kept in its memo
after every ``CONCURRENCY`` resends (the API reads it from the server, with no worker needed) and
answered by the ``progress`` query.
"""

from __future__ import annotations

import asyncio

from temporalio import workflow

from switchboard.workflows.policies import WEBHOOK_ATTEMPT, WEBHOOK_BOOKKEEPING
from switchboard.workflows.webhook_delivery import mail_owner_notifications

with workflow.unsafe.imports_passed_through():
    from switchboard.activities.webhooks.recovery import WebhookRecoveryActivities
    from switchboard.activities.webhooks.types import (
        DeliveryOutcome,
        RecoveryInput,
        RecoveryPageInput,
        RecoveryProgress,
        ResendInput,
        ResendRef,
        recovery_memo,
    )
    from switchboard.domain.workflow_names import RECOVERY_WORKFLOW

# Resends in flight at once: a recovering receiver sees a few at a time, not the whole backlog.
CONCURRENCY = 8
PAGE = 200
# Deliveries one run resends before it continues as new (about 4 history events each).
PER_RUN = 1000


@workflow.defn(name=RECOVERY_WORKFLOW)
class RecoverDeliveriesWorkflow:
    """Resends each chosen delivery once and counts the outcomes."""

    def __init__(self) -> None:
        self._progress = RecoveryProgress(total=0)

    @workflow.query
    def progress(self) -> RecoveryProgress:
        return self._progress

    @workflow.run
    async def run(self, request: RecoveryInput) -> RecoveryProgress:
        self._progress = request.progress.model_copy()
        if request.deliveries is not None:
            await self._resend_all(request.deliveries)
            return self._finish()
        assert request.since is not None and request.until is not None  # the API sets both for a window
        after, resent = request.after, 0
        while True:
            page: list[ResendRef] = await workflow.execute_activity_method(
                WebhookRecoveryActivities.recovery_page,
                RecoveryPageInput(
                    webhook_id=request.webhook_id,
                    since=request.since,
                    until=request.until,
                    after=after,
                    limit=PAGE,
                ),
                **WEBHOOK_BOOKKEEPING,
            )
            if not page:
                return self._finish()
            await self._resend_all(page)
            after, resent = page[-1].delivery_id, resent + len(page)
            if resent >= PER_RUN:
                following = request.model_copy(update={"after": after, "progress": self._progress})
                workflow.continue_as_new(following, memo=recovery_memo(following, self._progress))

    def _finish(self) -> RecoveryProgress:
        # The window was counted when the recovery started; a delivery resent by another call since is
        # no longer failed and was left out, so what it did is its total.
        self._progress.total = self._progress.done
        self._progress.completed = True
        self._publish()
        return self._progress

    def _publish(self) -> None:
        workflow.upsert_memo({"progress": self._progress.model_dump()})

    async def _resend_all(self, targets: list[ResendRef]) -> None:
        """CONCURRENCY resends at a time; the progress is published after each group."""
        for start in range(0, len(targets), CONCURRENCY):
            group = targets[start : start + CONCURRENCY]
            await asyncio.gather(*(self._resend(target) for target in group))
            self._publish()

    async def _resend(self, target: ResendRef) -> None:
        result = await workflow.execute_activity_method(
            WebhookRecoveryActivities.resend_delivery,
            ResendInput(target=target, at=workflow.now()),
            **WEBHOOK_ATTEMPT,
        )
        self._progress.done += 1
        if result.outcome is DeliveryOutcome.SUCCEEDED:
            self._progress.succeeded += 1
        else:
            self._progress.failed += 1
        await mail_owner_notifications(result.notification_ids)
