"""Message items: user messages, business-app echoes and history rows, each stored once per wamid."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from domain.agents.turns import starts_turn
from domain.events import (
    MESSAGE_ECHOED,
    MESSAGE_RECEIVED,
    MessageFacts,
    conversation_created_event,
    message_event,
)
from domain.inbound import (
    SOURCE_HUMAN_COEXISTENCE,
    EchoMessage,
    HistoryError,
    HistoryMessage,
    InboundMessage,
)
from models.base import utcnow
from models.messaging import Contact, Conversation, Message
from store.agents.guardrails import note_human_message
from store.agents.threads import enqueue_turn
from store.contacts import ContactFacts, upsert_contact
from store.conversations import note_inbound_message, note_other_message, open_conversation
from store.inbound.business import Business
from store.inbound.events import NO_DELIVERY, conversation_facts, emit, message_facts
from store.inbound.outcome import APPLIED, DUPLICATE, ItemOutcome

# Message.source of rows the user sent (the spec's list names only the business-side senders).
SOURCE_CHANNEL = "CHANNEL"


async def stored_message(
    session: AsyncSession, *, phone_number_id: str, wa_message_id: str, direction: str, lock: bool = False
) -> Message | None:
    """The stored row of a channel message, if any."""
    stmt = select(Message).where(
        Message.phone_number_id == phone_number_id,
        Message.wa_message_id == wa_message_id,
        Message.direction == direction,
    )
    return (await session.execute(stmt.with_for_update() if lock else stmt)).scalars().first()


def _compact(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if value not in (None, False, "")}


def _payload(item: InboundMessage | EchoMessage | HistoryMessage, **extra: Any) -> dict[str, Any]:
    """The channel's message object as stored: the type object under its name, context, media, extras."""
    data: dict[str, Any] = {"type": item.message_type}
    if item.type_object is not None:
        data[item.message_type] = item.type_object
    context = _compact(
        {
            "id": item.reply_to_wa_message_id,
            "from": item.reply_to_from,
            "forwarded": item.forwarded,
            "frequently_forwarded": item.frequently_forwarded,
        }
    )
    if context:
        data["context"] = context
    data.update(_compact({"media_id": item.media_id, "media_mime_type": item.media_mime_type, **extra}))
    return data


async def _conversation(
    session: AsyncSession, biz: Business, facts: ContactFacts
) -> tuple[Contact | None, Conversation | None, bool]:
    if not facts.identifiable:
        return None, None, False
    customer_id = await biz.customer_for_contacts(session)
    contact = await upsert_contact(session, tenant_id=biz.tenant_id, customer_id=customer_id, facts=facts)
    conversation, created = await open_conversation(
        session,
        tenant_id=biz.tenant_id,
        customer_id=customer_id,
        phone_number_id=biz.phone_number_id,
        contact=contact,
    )
    return contact, conversation, created


async def _created_event(
    session: AsyncSession, biz: Business, conversation: Conversation, contact: Contact | None
) -> str:
    envelope = conversation_created_event(
        conversation_facts(conversation, contact),
        tenant_id=biz.tenant_id,
        phone_number_id=biz.phone_number_id,
        delivery_id=NO_DELIVERY,
        occurred_at=conversation.created_at,
    )
    return await emit(
        session,
        envelope,
        tenant_id=biz.tenant_id,
        occurred_at=conversation.created_at,
        phone_number_id=biz.phone_number_id,
    )


async def _message_event(
    session: AsyncSession,
    biz: Business,
    kind: str,
    facts: MessageFacts,
    occurred_at: datetime,
    conversation: Conversation | None,
    contact: Contact | None,
    created: bool,
) -> str:
    """Write a channel.message.* envelope (with its conversation) to the outbox; the event id."""
    envelope = message_event(
        kind,
        facts,
        tenant_id=biz.tenant_id,
        delivery_id=NO_DELIVERY,
        occurred_at=occurred_at,
        conversation=conversation_facts(conversation, contact) if conversation else None,
        is_new_conversation=created,
    )
    return await emit(
        session,
        envelope,
        tenant_id=biz.tenant_id,
        occurred_at=occurred_at,
        phone_number_id=biz.phone_number_id,
    )


async def apply_inbound_message(session: AsyncSession, item: InboundMessage, biz: Business) -> ItemOutcome:
    """Store a user message (received), update contact and conversation, raise the received event."""
    if await stored_message(
        session, phone_number_id=biz.phone_number_id, wa_message_id=item.wa_message_id, direction="inbound"
    ):
        return ItemOutcome(DUPLICATE)
    facts = ContactFacts(
        phone=item.from_phone,
        wa_id=item.from_wa_id,
        bsuid=item.bsuid,
        parent_bsuid=item.parent_bsuid,
        username=item.username,
        name=item.profile_name,
    )
    contact, conversation, created = await _conversation(session, biz, facts)
    message = Message(
        tenant_id=biz.tenant_id,
        phone_number_id=biz.phone_number_id,
        direction="inbound",
        message_type=item.message_type,
        wa_message_id=item.wa_message_id,
        status=item.status,
        from_phone=item.from_phone,
        to_phone=biz.display_phone,
        contact_id=contact.id if contact else None,
        conversation_id=conversation.id if conversation else None,
        source=SOURCE_CHANNEL,
        payload=_payload(
            item,
            from_user_id=item.from_user_id,
            from_parent_user_id=item.from_parent_user_id,
            reply_id=item.reply_id,
            referral=item.referral,
            profile_name=item.profile_name,
            username=item.username,
        ),
        content=item.content,
        has_media=item.has_media,
        error_code=str(item.error_code) if item.error_code is not None else None,
        error_title=item.error_title,
        error_message=item.error_message,
        occurred_at=item.occurred_at,
    )
    session.add(message)
    await session.flush()
    event_ids = []
    if conversation is not None:
        note_inbound_message(conversation, message)
        await session.flush()
        if created:
            event_ids.append(await _created_event(session, biz, conversation, contact))
    facts_out = message_facts(
        message, from_user_id=item.from_user_id, from_parent_user_id=item.from_parent_user_id
    )
    event_ids.append(
        await _message_event(
            session, biz, MESSAGE_RECEIVED, facts_out, item.occurred_at, conversation, contact, created
        )
    )
    turns = []
    if conversation is not None and starts_turn(item.message_type):
        thread = await enqueue_turn(
            session,
            conversation=conversation,
            message=message,
            customer_id=biz.customer_id,
            now=utcnow(),
            event_ids=event_ids,
        )
        if thread is not None:
            turns.append((thread.tenant_id, thread.id, message.id))
    return ItemOutcome(APPLIED, event_ids, turns)


async def apply_echo(session: AsyncSession, item: EchoMessage, biz: Business) -> ItemOutcome:
    """Store a business-app send as an outbound HUMAN_COEXISTENCE message and raise channel.message.echoed."""
    if await stored_message(
        session, phone_number_id=biz.phone_number_id, wa_message_id=item.wa_message_id, direction="outbound"
    ):
        return ItemOutcome(DUPLICATE)
    facts = ContactFacts(
        phone=item.to_phone, wa_id=item.to_wa_id, bsuid=item.to_user_id, parent_bsuid=item.to_parent_user_id
    )
    contact, conversation, created = await _conversation(session, biz, facts)
    now = utcnow()
    message = Message(
        tenant_id=biz.tenant_id,
        phone_number_id=biz.phone_number_id,
        direction=item.direction,
        message_type=item.message_type,
        wa_message_id=item.wa_message_id,
        status=item.status,
        from_phone=item.from_phone or biz.display_phone,
        to_phone=item.to_phone,
        recipient_bsuid=item.to_user_id,
        contact_id=contact.id if contact else None,
        conversation_id=conversation.id if conversation else None,
        source=item.source,
        coexistence_echo=item.coexistence_echo,
        payload=_payload(item, to_user_id=item.to_user_id, to_parent_user_id=item.to_parent_user_id),
        content=item.content,
        has_media=item.has_media,
        occurred_at=item.occurred_at,
        status_updated_at=now,
    )
    session.add(message)
    await session.flush()
    event_ids = []
    if conversation is not None:
        note_other_message(conversation, message)
        await session.flush()
        if created:
            event_ids.append(await _created_event(session, biz, conversation, contact))
    facts_out = message_facts(message, to_user_id=item.to_user_id, to_parent_user_id=item.to_parent_user_id)
    event_ids.append(
        await _message_event(
            session, biz, MESSAGE_ECHOED, facts_out, item.occurred_at, conversation, contact, created
        )
    )
    outcome = ItemOutcome(APPLIED, event_ids)
    await _human_wrote(session, outcome, conversation, sent_at=item.occurred_at)
    return outcome


async def _human_wrote(
    session: AsyncSession, outcome: ItemOutcome, conversation: Conversation | None, *, sent_at: datetime
) -> None:
    """A person wrote from the business side (business app echo, history import): the agent steps back."""
    thread, event_ids = await note_human_message(
        session, conversation_id=conversation.id if conversation else None, sent_at=sent_at, now=utcnow()
    )
    outcome.event_ids.extend(event_ids)
    if thread is not None and event_ids:
        outcome.woken.append((thread.tenant_id, thread.id))


async def apply_history(
    session: AsyncSession, item: HistoryMessage | HistoryError, biz: Business
) -> ItemOutcome:
    """Store a history-sync row (status historical); unrecoverable rows as message_type errors."""
    if item.wa_message_id and await stored_message(
        session,
        phone_number_id=biz.phone_number_id,
        wa_message_id=item.wa_message_id,
        direction=item.direction,
    ):
        return ItemOutcome(DUPLICATE)
    contact, conversation, created = await _conversation(
        session, biz, ContactFacts(phone=item.contact_phone, bsuid=item.contact_user_id)
    )
    outbound = item.direction == "outbound"
    common: dict[str, Any] = {
        "tenant_id": biz.tenant_id,
        "phone_number_id": biz.phone_number_id,
        "direction": item.direction,
        "wa_message_id": item.wa_message_id,
        "status": item.status,
        "contact_id": contact.id if contact else None,
        "conversation_id": conversation.id if conversation else None,
        "source": SOURCE_HUMAN_COEXISTENCE if outbound else SOURCE_CHANNEL,
        "coexistence_echo": outbound,
        "occurred_at": item.occurred_at,
    }
    history = _compact({"phase": item.phase, "chunk_order": item.chunk_order, "progress": item.progress})
    if isinstance(item, HistoryError):
        message = Message(
            **common,
            message_type=item.message_type,
            from_phone=biz.display_phone if outbound else item.contact_phone,
            to_phone=item.contact_phone if outbound else biz.display_phone,
            payload={"type": item.message_type, "raw": item.raw, "history": history},
            error_title=item.error_title,
            error_code=str(item.error_code) if item.error_code is not None else None,
            error_message=item.error_message,
        )
    else:
        message = Message(
            **common,
            message_type=item.message_type,
            from_phone=item.from_phone or (biz.display_phone if outbound else item.contact_phone),
            to_phone=item.to_phone or (item.contact_phone if outbound else biz.display_phone),
            payload=_payload(item, history=history, history_status=item.history_status),
            content=item.content,
            has_media=item.has_media,
        )
    session.add(message)
    await session.flush()
    event_ids = []
    if conversation is not None:
        note_other_message(conversation, message)
        await session.flush()
        if created:
            event_ids.append(await _created_event(session, biz, conversation, contact))
    outcome = ItemOutcome(APPLIED, event_ids)
    if outbound and not isinstance(item, HistoryError):
        await _human_wrote(session, outcome, conversation, sent_at=item.occurred_at)
    return outcome
