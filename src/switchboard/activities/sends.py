"""Recording a send's outcome: message row, stored idempotent response and event, in one commit.

The workflow already holds the upstream's answer in its history, so this
activity may be retried freely: a message that is no longer ``queued`` was
recorded by an earlier attempt and is only re-read. The rows are written by
store functions; the activity returns a typed ``SendReport`` and the API edge
renders the spec's answer from it. A try the upstream accepted records its own
success with the same ``OutcomeRecorder`` (activities/channel.py), and this
activity is then not called.
"""

from __future__ import annotations

import logging

from temporalio import activity

from switchboard import metrics
from switchboard.activities.deps import ActivityDeps, CommitAndStart
from switchboard.activities.webhooks.config import config_from_settings
from switchboard.activities.webhooks.dispatching import RecordedPlan, plan_recorded, start_planned
from switchboard.activities.workflow_starts import wake_timers_or_log
from switchboard.domain.events import MESSAGE_FAILED, MESSAGE_SENT, message_event
from switchboard.domain.failure_types import SEND_NOT_FINISHED_CODE
from switchboard.models.base import utcnow
from switchboard.models.messages_api import MessagePublic
from switchboard.models.messaging import Contact, Message
from switchboard.models.send import SendOutcome, SendReport, UpstreamFailureInfo
from switchboard.store import conversations, idempotency, messages
from switchboard.store.agents.guardrails import HUMAN_SOURCES, note_human_message
from switchboard.store.database import unit_of_work, write_turn
from switchboard.store.events import record_event
from switchboard.store.inbound.events import conversation_facts, message_facts
from switchboard.store.webhooks.active import read_webhooks_once

log = logging.getLogger("switchboard.sends")

# The status of a send's 2xx answer, stored for Idempotency-Key replays.
CREATED = 201


def _report(message: Message, outcome: SendOutcome) -> SendReport:
    if outcome.failure is not None:
        return SendReport(message_id=message.id, failure=outcome.failure)
    return SendReport(message_id=message.id, sent=MessagePublic.of(message))


def _recipient_user_ids(message: Message, contact: Contact | None) -> dict[str, str | None]:
    """The spec's message-level BSUID fields of a send addressed by BSUID (none for phone sends)."""
    if not message.recipient_bsuid:
        return {}
    parent = (
        contact.parent_bsuid if contact is not None and contact.bsuid == message.recipient_bsuid else None
    )
    return {"recipient_user_id": message.recipient_bsuid, "recipient_parent_user_id": parent}


def send_not_finished() -> UpstreamFailureInfo:
    """The failure recorded on a send whose run ended without an outcome (``failed_transient``).

    Recorded by the API when it sees the run fail or end empty-handed, and by the queued-send sweep
    for a run nobody saw end. Nothing was recorded as sent, so the client may retry the message.
    """
    return UpstreamFailureInfo(
        code=SEND_NOT_FINISHED_CODE,
        status_code=500,
        error_title="Send not finished",
        error_message=(
            "the send's run ended without an outcome (stopped by an operator or failed inside the service); "
            "nothing was recorded as sent: retry the message"
        ),
    )


class OutcomeRecorder:
    """Writes a send's outcome; idempotent, so a retry or a second writer only re-reads it.

    Callers: the ``record_send_outcome`` activity; a try the upstream accepted, which records
    its own success (``channel_send`` since the patch "send-outcome-in-try": one local activity per
    send instead of two); the queued-send sweep and the API, which record ``send_not_finished``
    for a run that ended without one.
    """

    def __init__(self, deps: CommitAndStart) -> None:
        self._deps = deps
        self._webhooks = config_from_settings(deps.settings)

    async def record(self, outcome: SendOutcome) -> SendReport:
        """Mark the message sent or failed, store or release its idempotency key, raise its event."""
        event_ids: list[str] = []
        plan = RecordedPlan()
        # On SQLite, the outcome takes its turn with the process's other writers (store/database.py).
        async with write_turn(self._deps.sessions), unit_of_work(self._deps.sessions) as session:
            read_webhooks_once(session)
            message, conversation, contact = await messages.send_with_context(session, outcome.message_id)
            now = utcnow()
            settled, message = await messages.settle_send(
                session,
                message,
                now=now,
                wa_message_id=outcome.wa_message_id,
                failure=outcome.failure,
                transient=outcome.transient,
            )
            report = _report(message, outcome)
            if not settled:
                return report
            human_thread = None
            if outcome.failure is None and message.source in HUMAN_SOURCES:
                # A person wrote in this conversation: the agent steps back (human-intervention scan).
                human_thread, mute_events = await note_human_message(
                    session, conversation_id=message.conversation_id, sent_at=message.occurred_at, now=now
                )
                event_ids.extend(mute_events)
            if conversation is not None and outcome.failure is None:
                conversation = await conversations.note_sent_message(session, conversation, message, now=now)
            kind = MESSAGE_SENT if outcome.failure is None else MESSAGE_FAILED
            facts = message_facts(
                message,
                error_code=outcome.failure.upstream_code if outcome.failure else None,
                **_recipient_user_ids(message, contact),
            )
            payload = message_event(
                kind,
                facts,
                tenant_id=message.tenant_id,
                delivery_id="",
                occurred_at=now,
                conversation=conversation_facts(conversation, contact) if conversation else None,
            )
            # The outbox keeps the envelope without delivery_id; each delivery adds its own.
            payload.pop("delivery_id", None)
            event = await record_event(
                session,
                tenant_id=message.tenant_id,
                kind=kind,
                payload=payload,
                occurred_at=now,
                phone_number_id=message.phone_number_id,
            )
            if event.dispatched_at is None:
                event_ids.append(event.id)
            if outcome.idempotency_key:
                if report.sent is not None:
                    await idempotency.complete(
                        session,
                        tenant_id=message.tenant_id,
                        key=outcome.idempotency_key,
                        status=CREATED,
                        body=report.sent.model_dump(),
                        now=now,
                    )
                else:
                    await idempotency.release(
                        session, tenant_id=message.tenant_id, key=outcome.idempotency_key
                    )
            # The deliveries commit with the outcome: no DispatchEvent hop (the outbox still covers a crash).
            plan = await plan_recorded(session, event_ids)
        await start_planned(self._deps, self._webhooks, plan)
        if human_thread is not None:
            await wake_timers_or_log(
                self._deps.temporal,
                tenant_id=human_thread.tenant_id,
                thread_id=human_thread.id,
                task_queue=self._deps.settings.temporal_task_queue,
            )
        # Counted once: a retry or a second writer finds the send settled and returns above.
        metrics.count_send(
            message.message_type,
            message.status,
            seconds_to_sent=(now - message.created_at).total_seconds() if outcome.failure is None else None,
        )
        log.debug("send recorded", extra={"message_id": message.id, "status": message.status})
        return report


class SendRecordActivities:
    """Persist what the upstream answered."""

    def __init__(self, deps: ActivityDeps) -> None:
        self._recorder = OutcomeRecorder(deps)

    @activity.defn(name="record_send_outcome")
    async def record_outcome(self, outcome: SendOutcome) -> SendReport:
        """Mark the message sent or failed, store or release its idempotency key, raise its event."""
        return await self._recorder.record(outcome)
