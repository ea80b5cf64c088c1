"""Recording a send's outcome: message row, stored idempotent response and event, in one commit.

The workflow already holds the upstream's answer in its history, so this
activity may be retried freely: a message that is no longer ``queued`` was
recorded by an earlier attempt and is only re-read.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlmodel import select
from temporalio import activity

from activities.agents.timers import wake_timers_or_log
from activities.deps import ActivityDeps
from activities.webhooks.config import config_from_settings
from activities.webhooks.dispatching import RecordedPlan, plan_recorded, start_planned
from domain.error_body import error_body
from domain.events import MESSAGE_FAILED, MESSAGE_SENT, message_event
from models.base import utcnow
from models.messages_api import MessagePublic
from models.messaging import Contact, Conversation, Message
from models.send import SendOutcome, SendResult
from store import idempotency
from store.agents.guardrails import HUMAN_SOURCES, note_human_message
from store.database import unit_of_work
from store.events import record_event
from store.inbound.events import conversation_facts, message_facts
from store.messages import QUEUED

log = logging.getLogger("switchboard.sends")

CREATED = 201


def _result(message: Message, outcome: SendOutcome) -> SendResult:
    if outcome.failure is None:
        return SendResult(status_code=CREATED, body=MessagePublic.of(message).model_dump())
    failure = outcome.failure
    body: dict[str, Any] = error_body(failure.status_code, failure.error_message, code=failure.code)
    body["error_message"] = failure.error_message
    body["message_id"] = message.id
    return SendResult(status_code=failure.status_code, body=body)


def _recipient_user_ids(message: Message, contact: Contact | None) -> dict[str, str | None]:
    """The spec's message-level BSUID fields of a send addressed by BSUID (none for phone sends)."""
    if not message.recipient_bsuid:
        return {}
    parent = (
        contact.parent_bsuid if contact is not None and contact.bsuid == message.recipient_bsuid else None
    )
    return {"recipient_user_id": message.recipient_bsuid, "recipient_parent_user_id": parent}


class SendRecordActivities:
    """Persist what the upstream answered."""

    def __init__(self, deps: ActivityDeps) -> None:
        self._deps = deps
        self._webhooks = config_from_settings(deps.settings)

    @activity.defn(name="record_send_outcome")
    async def record_outcome(self, outcome: SendOutcome) -> SendResult:
        """Mark the message sent or failed, store or release its idempotency key, raise its event."""
        event_ids: list[str] = []
        plan = RecordedPlan()
        async with unit_of_work(self._deps.sessions) as session:
            # One round trip for the message, its conversation and contact.
            row = (
                await session.execute(
                    select(Message, Conversation, Contact)
                    .outerjoin(Conversation, Conversation.id == Message.conversation_id)  # type: ignore[arg-type]
                    .outerjoin(Contact, Contact.id == Conversation.contact_id)  # type: ignore[arg-type]
                    .where(Message.id == outcome.message_id)  # type: ignore[arg-type]
                    .execution_options(populate_existing=True)
                )
            ).first()
            if row is None:
                raise RuntimeError(f"message {outcome.message_id} vanished")
            message, conversation, contact = row
            if message.status != QUEUED:
                return _result(message, outcome)
            now = utcnow()
            if outcome.failure is None:
                message.status = "sent"
                message.wa_message_id = outcome.wa_message_id
                # to_phone stays canonical even when the alternate form got through.
            else:
                message.status = "failed_transient" if outcome.transient else "failed"
                message.error_code = outcome.failure.code
                message.error_title = outcome.failure.error_title
                message.error_message = outcome.failure.error_message
            message.status_updated_at = now
            await session.flush()
            result = _result(message, outcome)
            human_thread = None
            if outcome.failure is None and message.source in HUMAN_SOURCES:
                # A person wrote in this conversation: the agent steps back (human-intervention scan).
                human_thread, mute_events = await note_human_message(
                    session, conversation_id=message.conversation_id, sent_at=message.occurred_at, now=now
                )
                event_ids.extend(mute_events)
            if conversation is not None and outcome.failure is None:
                conversation.last_message_id = message.id
                conversation.last_message_at = message.occurred_at
                conversation.updated_at = now
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
                if outcome.failure is None:
                    await idempotency.complete(
                        session,
                        tenant_id=message.tenant_id,
                        key=outcome.idempotency_key,
                        status=result.status_code,
                        body=result.body,
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
        log.info("send recorded", extra={"message_id": message.id, "status": message.status})
        return result
