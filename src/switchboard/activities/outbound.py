"""Creating an outbound message below the API, so the API and workers share one send path.

``create_send`` runs the pre-checks every send passes (paused customer,
template status and variables, the phone's queue limit, the WABA's
business-initiated conversation tier), files the message under its
conversation (creating contact and conversation on first contact), stores it
as ``queued`` (with its idempotency hold when the caller has a key) and returns
the SendMessage workflow's input. The API calls it for POST /v1/messages,
inbox replies and retries; the agent runtime calls it from an activity for a
reply, with a message id fixed in advance so a retried activity finds the
message it already stored instead of sending twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from temporalio.client import Client

from switchboard.activities.send_input import send_input_for, tier_rates
from switchboard.activities.workflow_starts import dispatch_events
from switchboard.domain.errors import Forbidden, RateLimited
from switchboard.domain.message_status import QUEUED
from switchboard.domain.phone import canonical_phone
from switchboard.domain.send_payload import (
    MEDIA_TYPES,
    SendRequest,
    check_variable_count,
    ensure_template_sendable,
    render_template_text,
    send_component_params,
)
from switchboard.domain.templates import component_text
from switchboard.models.base import new_id, utcnow
from switchboard.models.messaging import Conversation, Message
from switchboard.models.send import SendInput
from switchboard.models.tenancy import PhoneNumber
from switchboard.settings import Settings
from switchboard.store import business_conversations, idempotency, messages, recipients
from switchboard.store.database import unit_of_work, write_turn

# While a send workflow owns an idempotency key, nobody may take it over.
WORKFLOW_LOCK = timedelta(days=3)


@dataclass(frozen=True)
class SendContext:
    """Who is sending and how: the message source and the send's bookkeeping references."""

    source: str = "API"
    retry_of_message_id: str | None = None
    require_to: bool = False
    idempotency_key: str | None = None
    request_path: str = "/v1/messages"
    # Set by the inbox reply and the agent runtime; otherwise found from the number and the recipient.
    conversation_id: str | None = None
    # The logged-in inbox agent who wrote a HUMAN_PORTAL reply.
    sent_by: str | None = None
    # A message id chosen in advance (agent replies): a second call with it returns the stored send.
    message_id: str | None = None


def business_phone(phone: PhoneNumber) -> str | None:
    """The business number in canonical digits (the `from` of outbound messages)."""
    digits = "".join(ch for ch in phone.display_phone_number if ch.isdigit())
    return canonical_phone(digits) if digits else None


def content_summary(send: SendRequest, rendered_body: str | None) -> str | None:
    """A short human-readable content line for lists and inboxes."""
    if send.type == "text" and send.text:
        return send.text.body
    if send.type == "template" and send.template:
        return rendered_body or f"[template {send.template.name}]"
    if send.type in MEDIA_TYPES:
        media = getattr(send, send.type)
        return (media.caption if media and media.caption else None) or f"[{send.type}]"
    if send.type == "location" and send.location:
        return send.location.name or f"[location {send.location.latitude},{send.location.longitude}]"
    if send.type == "interactive" and send.interactive:
        return send.interactive.body.text
    if send.type == "reaction" and send.reaction:
        return send.reaction.emoji
    return f"[{send.type}]"


def _template_render(send: SendRequest, template_row: Any) -> str | None:
    if template_row is None or send.template is None:
        return None
    ensure_template_sendable(template_row.status, name=template_row.name, language=template_row.language)
    components = template_row.components or []
    check_variable_count(components, send.template, parameter_format=template_row.parameter_format)
    text = component_text(components, "BODY")
    return render_template_text(text, send_component_params(send.template, "body")) if text else None


async def prechecks(
    session: AsyncSession,
    send: SendRequest,
    phone: PhoneNumber,
    *,
    tenant_id: str,
    facts: messages.PhoneFacts | None = None,
) -> str | None:
    """The rules checked before anything is stored (sandbox and live alike); the rendered template body.

    ``facts``, when the caller read them with the number, spare the customer's read.
    """
    refuse_if_paused(
        facts.customer_paused if facts is not None else await messages.sending_paused(session, phone)
    )
    if send.type != "template" or send.template is None:
        return None
    name, language = send.template.name, send.template.language.code
    template_row = await messages.find_template(session, waba_id=phone.waba_id, name=name, language=language)
    if template_row is None and await messages.template_elsewhere(
        session, tenant_id=tenant_id, name=name, language=language, not_waba_id=phone.waba_id
    ):
        raise Forbidden(
            f"template {name} ({language}) belongs to another WABA than this phone number's",
            code="TEMPLATE_NOT_IN_WABA",
            details={"field": "template.name"},
        )
    return _template_render(send, template_row)


def refuse_if_paused(customer_paused: bool) -> None:
    """403 ``customer_sending_disabled`` when the number's customer has sending paused."""
    if customer_paused:
        raise Forbidden(
            "sending is paused for this phone number's customer", code="customer_sending_disabled"
        )


async def sandbox_checks(
    sessions: async_sessionmaker[AsyncSession],
    send: SendRequest,
    phone: PhoneNumber,
    *,
    tenant_id: str,
    facts: messages.PhoneFacts,
) -> None:
    """Everything a live send would be refused for, without storing anything (sandbox keys).

    Only a template's checks read the database (its row, the WABA's open business-initiated
    conversations), so only a template's send opens a session from ``sessions``: any other type's one
    check left is the pause flag, read with the number (``facts``). The session's start and close were
    about 7 % of a sandbox send's API CPU (docs/decisions/0005-database-sessions-and-pools.md).
    """
    if send.type != "template":  # the template checks and the business-initiated limit are for templates
        refuse_if_paused(facts.customer_paused)
        return
    async with sessions() as session:
        await prechecks(session, send, phone, tenant_id=tenant_id, facts=facts)
        to_phone = canonical_phone(send.to) if send.to else None
        conversation = await recipients.existing_conversation(
            session, phone.phone_number_id, to_phone=to_phone, bsuid=None if to_phone else send.recipient
        )
        await business_conversations.check_send(
            session, phone=phone, message_type=send.type, conversation=conversation, now=utcnow()
        )


async def create_send(
    sessions: async_sessionmaker[AsyncSession],
    settings: Settings,
    *,
    tenant_id: str,
    send: SendRequest,
    phone: PhoneNumber,
    ctx: SendContext,
    temporal: Client | None = None,
    facts: messages.PhoneFacts | None = None,
    autocommit: AsyncEngine | None = None,
) -> SendInput:
    """Check, store the message as queued and return the send workflow's input (ServiceError if refused).

    A ``conversation.created`` raised by a first contact is dispatched after the
    commit when ``temporal`` is given, else left to the outbox sweeper. ``facts``
    read with the number (``messages.sending_phone``) spare the transaction their reads;
    when they hold the recipient's conversation and the send writes nothing but its
    message (``_stored_alone``), the message is one INSERT on ``autocommit``, with no
    transaction around it.
    """
    if autocommit is not None and facts is not None and _stored_alone(send, ctx, facts):
        assert facts.conversation is not None and facts.queued is not None  # _stored_alone checked them
        refuse_if_paused(facts.customer_paused)
        _refuse_if_queue_full(facts.queued, settings)
        message = Message.model_construct(
            **_queued_values(
                send,
                phone,
                ctx,
                tenant_id=tenant_id,
                conversation_id=facts.conversation.id,
                contact_id=facts.conversation.contact_id,
                rendered=None,
            )
        )
        # On SQLite, the message's INSERT takes its turn with the process's other writers.
        async with write_turn(autocommit), autocommit.connect() as connection:
            await messages.store_queued(connection, message)
        return _input(message, send, phone, settings)
    for attempt in range(2):
        try:
            # On SQLite, the message's transaction takes turns with the process's other writers.
            async with write_turn(sessions), unit_of_work(sessions) as session:
                # A second pass reads the pause flag and the queue afresh: they may have moved meanwhile.
                message, event_ids = await _store(
                    session,
                    settings,
                    tenant_id=tenant_id,
                    send=send,
                    phone=phone,
                    ctx=ctx,
                    facts=None if attempt else facts,
                )
            break
        except IntegrityError:
            # A concurrent first message to or from the same person created the contact or
            # conversation (or a retried agent activity the message) first; the next pass finds it.
            if attempt:
                raise
    if temporal is not None and event_ids:
        await dispatch_events(temporal, task_queue=settings.temporal_task_queue, event_ids=event_ids)
    return _input(message, send, phone, settings)


def _stored_alone(send: SendRequest, ctx: SendContext, facts: messages.PhoneFacts) -> bool:
    """Whether a send's message is all it writes, and nothing it checks needs another read.

    Its recipient's conversation is known (no contact, conversation or ``conversation.created`` to
    write), it holds no Idempotency-Key (whose hold commits with the message), it is no template
    (whose row, variables and business-initiated tier are read in the transaction), and it neither
    names its message id (an agent reply finding the message a retried activity stored) nor its
    conversation.
    """
    return (
        facts.conversation is not None
        and facts.queued is not None
        and send.type != "template"
        and ctx.idempotency_key is None
        and ctx.message_id is None
        and ctx.conversation_id is None
    )


def _refuse_if_queue_full(queued: int, settings: Settings) -> None:
    """429 when more sends than the phone's queue limit wait (the limit-th may still queue)."""
    if queued > settings.send_queue_limit:
        raise RateLimited(
            f"more than {settings.send_queue_limit} messages are waiting on this phone number",
            retry_after_seconds=5,
            code="too_many_requests",
        )


async def _store(
    session: AsyncSession,
    settings: Settings,
    *,
    tenant_id: str,
    send: SendRequest,
    phone: PhoneNumber,
    ctx: SendContext,
    facts: messages.PhoneFacts | None,
) -> tuple[Message, list[str]]:
    existing = await session.get(Message, ctx.message_id) if ctx.message_id else None
    if existing is not None:
        return existing, []
    rendered = await prechecks(session, send, phone, tenant_id=tenant_id, facts=facts)
    queued = facts.queued if facts is not None else None  # None: not read with the number (sandbox facts)
    if queued is None:
        queued = await messages.queued_count(session, phone.phone_number_id)
    _refuse_if_queue_full(queued, settings)
    to_phone = canonical_phone(send.to) if send.to else None
    bsuid = None if to_phone else send.recipient
    now = utcnow()
    conversation = await session.get(Conversation, ctx.conversation_id) if ctx.conversation_id else None
    conversation = conversation or await recipients.existing_conversation(
        session, phone.phone_number_id, to_phone=to_phone, bsuid=bsuid
    )
    await business_conversations.check_send(
        session, phone=phone, message_type=send.type, conversation=conversation, now=now
    )
    event_ids: list[str] = []
    if conversation is None:
        filed = await recipients.file_send(session, phone, to_phone=to_phone, bsuid=bsuid)
        conversation, event_ids = filed.conversation, filed.event_ids
    values = _queued_values(
        send,
        phone,
        ctx,
        tenant_id=tenant_id,
        conversation_id=conversation.id,
        contact_id=conversation.contact_id,
        rendered=rendered,
        now=now,
    )
    message = Message(**values)
    session.add(message)
    if ctx.idempotency_key is not None:
        await idempotency.hold(
            session, tenant_id=tenant_id, key=ctx.idempotency_key, until=now + WORKFLOW_LOCK
        )
    return message, event_ids


def _queued_values(
    send: SendRequest,
    phone: PhoneNumber,
    ctx: SendContext,
    *,
    tenant_id: str,
    conversation_id: str,
    contact_id: str,
    rendered: str | None,
    now: datetime | None = None,
) -> dict[str, Any]:
    """The columns of a send's message as it is stored, ``queued``."""
    now = now or utcnow()
    to_phone = canonical_phone(send.to) if send.to else None
    return {
        "id": ctx.message_id or new_id("msg", at=now),
        "tenant_id": tenant_id,
        "phone_number_id": phone.phone_number_id,
        "direction": "outbound",
        "message_type": send.type,
        "status": QUEUED,
        "to_phone": to_phone,
        "from_phone": business_phone(phone),
        "sent_by": ctx.sent_by,
        "recipient_bsuid": None if to_phone else send.recipient,
        "contact_id": contact_id,
        "conversation_id": conversation_id,
        "source": ctx.source,
        "payload": send.model_dump(mode="json", exclude_none=True),
        "content": content_summary(send, rendered),
        "has_media": send.type in MEDIA_TYPES,
        "rendered_body": rendered,
        "retry_of_message_id": ctx.retry_of_message_id,
        "idempotency_key": ctx.idempotency_key,
        "created_at": now,
        "occurred_at": now,
        "status_updated_at": now,
    }


def _input(message: Message, send: SendRequest, phone: PhoneNumber, settings: Settings) -> SendInput:
    return send_input_for(
        message,
        send,
        phone,
        rates=tier_rates(settings),
        retry_window_seconds=settings.send_retry_window_seconds,
    )
