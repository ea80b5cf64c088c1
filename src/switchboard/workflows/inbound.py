"""ProcessInbound: one verified channel webhook payload, applied durably and exactly once.

Started by POST /channel/webhook (or the raw-envelope sweeper) with the id
``inbound-<sha256 of the body>``, so the same payload delivered twice is one
run. One local activity applies every item (short idempotent database writes:
no task-queue round trip); statuses whose outbound message is not
stored yet (the send path commits the wamid right after the upstream accepts,
and a fast status webhook can beat that commit) are retried on durable timers
for about 30 s, then logged and dropped.
"""

from __future__ import annotations

from temporalio import workflow

from switchboard.workflows.policies import INBOUND_APPLY, INBOUND_DEFERRED_STATUS_DELAYS, INBOUND_LOCAL

with workflow.unsafe.imports_passed_through():
    from switchboard.activities.inbound import InboundActivities
    from switchboard.domain.workflow_names import PROCESS_INBOUND_WORKFLOW
    from switchboard.models.inbound import InboundItemsInput, InboundPayload, InboundSummary


# Runs started before the payload was applied as a local activity replay with the regular one.
LOCAL_APPLY = "inbound-local-apply"


def _add(total: InboundSummary, round_: InboundSummary) -> None:
    for name in ("applied", "unchanged", "duplicate", "ignored", "events"):
        setattr(total, name, getattr(total, name) + getattr(round_, name))


@workflow.defn(name=PROCESS_INBOUND_WORKFLOW)
class ProcessInboundWorkflow:
    """Applies one channel webhook payload's messages, statuses and identity updates."""

    @workflow.run
    async def run(self, payload: InboundPayload) -> InboundSummary:
        if workflow.patched(LOCAL_APPLY):
            summary = await workflow.execute_local_activity_method(
                InboundActivities.process_inbound_payload, payload, **INBOUND_LOCAL
            )
        else:
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
                "items for unknown messages dropped",
                extra={
                    "payload_id": payload.payload_id,
                    "kinds": [p.get("kind") for p in pending],
                    "wamids": [p.get("original_wa_message_id") or p.get("wa_message_id") for p in pending],
                },
            )
        summary.dropped = len(pending)
        summary.deferred = []
        return summary
