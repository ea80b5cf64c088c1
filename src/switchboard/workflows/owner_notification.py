"""SendOwnerNotification: one owner e-mail (a webhook reactivated, say) sent by a worker, not a request.

The notification row is committed first (an outbox), so the API only starts
this workflow and answers; SMTP happens in an activity with Temporal's retries.
If the start fails (Temporal unreachable), the outbox sweeper sends the
stranded notification later, as it does for the delivery workflow's own.
"""

from __future__ import annotations

from temporalio import workflow

from switchboard.workflows.policies import WEBHOOK_NOTIFY

with workflow.unsafe.imports_passed_through():
    from switchboard.activities.notifications import NotificationActivities
    from switchboard.domain.workflow_names import NOTIFICATION_WORKFLOW


@workflow.defn(name=NOTIFICATION_WORKFLOW)
class SendOwnerNotificationWorkflow:
    """Mails one stored notification; returns how it was delivered (None: already handled)."""

    @workflow.run
    async def run(self, notification_id: str) -> str | None:
        return await workflow.execute_activity_method(
            NotificationActivities.send_owner_notification, notification_id, **WEBHOOK_NOTIFY
        )
