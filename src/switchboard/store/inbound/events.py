"""Tenant events raised by inbound items: facts read from stored rows, envelopes into the outbox."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from switchboard.domain.events import ConversationFacts, MessageFacts, message_event
from switchboard.domain.inbound.content import received_extras
from switchboard.models.messaging import Contact, Conversation, Message
from switchboard.store.events import record_event

# The envelope builders require a delivery id; the outbox row stores the envelope
# without one (each delivery adds its own), so this placeholder is dropped at once.
NO_DELIVERY = ""


def message_facts(message: Message, **upstream: Any) -> MessageFacts:
    """What an event says about a stored message; ``upstream`` adds item-only fields (BSUIDs, errors)."""
    payload = message.payload if isinstance(message.payload, dict) else {}
    type_object = payload.get(message.message_type)
    error_code = upstream.pop("error_code", None)
    if error_code is None and message.error_code and str(message.error_code).lstrip("-").isdigit():
        error_code = int(message.error_code)
    return MessageFacts(
        id=message.id,
        wa_message_id=message.wa_message_id or "",
        phone_number_id=message.phone_number_id,
        direction=message.direction,
        message_type=message.message_type,
        status=message.status,
        origin=message.source,
        occurred_at=message.occurred_at,
        from_phone=message.from_phone,
        to_phone=message.to_phone,
        type_object=type_object if isinstance(type_object, dict | list) else None,
        content=message.content,
        has_media=message.has_media,
        reply_to_wa_message_id=(payload.get("context") or {}).get("id"),
        **received_extras(message.direction, payload),
        error_code=error_code,
        error_title=upstream.pop("error_title", None) or message.error_title,
        error_message=upstream.pop("error_message", None) or message.error_message,
        code=message.error_code,
        biz_opaque_callback_data=upstream.pop("biz_opaque_callback_data", None)
        or (payload.get("biz_opaque_callback_data") if message.direction == "outbound" else None),
        **upstream,
    )


def conversation_facts(conversation: Conversation, contact: Contact | None) -> ConversationFacts:
    """What an event says about a conversation (BSUIDs and username only when known)."""
    return ConversationFacts(
        id=conversation.id,
        status=conversation.status,
        contact_phone=conversation.contact_phone,
        business_scoped_user_id=conversation.contact_bsuid,
        parent_business_scoped_user_id=contact.parent_bsuid if contact is not None else None,
        username=conversation.contact_username,
        group_id=conversation.group_id,
    )


async def emit(
    session: AsyncSession,
    envelope: dict[str, Any],
    *,
    tenant_id: str,
    occurred_at: datetime,
    phone_number_id: str | None,
    flush: bool = True,
) -> str:
    """Write an envelope built with ``NO_DELIVERY`` to the outbox; returns the event id.

    ``flush=False`` leaves the row to the next flush (two events of one item go in one INSERT).
    """
    payload = {key: value for key, value in envelope.items() if key != "delivery_id"}
    event = await record_event(
        session,
        tenant_id=tenant_id,
        kind=str(envelope["event"]),
        payload=payload,
        occurred_at=occurred_at,
        phone_number_id=phone_number_id,
        flush=flush,
    )
    return event.id


async def emit_message_event(
    session: AsyncSession,
    kind: str,
    facts: MessageFacts,
    *,
    tenant_id: str,
    phone_number_id: str | None,
    occurred_at: datetime,
    conversation: Conversation | None,
    contact: Contact | None,
    is_new_conversation: bool = False,
) -> str:
    """Write a channel.message.* envelope, with its conversation as it now is, to the outbox; the event id."""
    envelope = message_event(
        kind,
        facts,
        tenant_id=tenant_id,
        delivery_id=NO_DELIVERY,
        occurred_at=occurred_at,
        conversation=conversation_facts(conversation, contact) if conversation else None,
        is_new_conversation=is_new_conversation,
    )
    return await emit(
        session, envelope, tenant_id=tenant_id, occurred_at=occurred_at, phone_number_id=phone_number_id
    )


async def emit_about_stored(
    session: AsyncSession,
    kind: str,
    message: Message,
    facts: MessageFacts,
    *,
    occurred_at: datetime,
) -> str:
    """Write a channel.message.* event about a stored message (a status, an edit, a revoke), with its
    conversation as it now is; the event id."""
    conversation = (
        await session.get(Conversation, message.conversation_id) if message.conversation_id else None
    )
    contact = await session.get(Contact, message.contact_id) if message.contact_id else None
    return await emit_message_event(
        session,
        kind,
        facts,
        tenant_id=message.tenant_id,
        phone_number_id=message.phone_number_id,
        occurred_at=occurred_at,
        conversation=conversation,
        contact=contact,
    )
