"""Message rows as the facts an event envelope is built from."""

from __future__ import annotations

from domain.events import ConversationFacts, MessageFacts
from models.messaging import Conversation, Message


def message_facts(message: Message, *, error_code: int | None = None) -> MessageFacts:
    """The event facts of a stored message (``error_code`` is the channel's numeric code)."""
    payload = message.payload or {}
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
        type_object=payload.get(message.message_type) if isinstance(payload, dict) else None,
        content=message.content,
        has_media=message.has_media,
        recipient_user_id=message.recipient_bsuid,
        error_code=error_code,
        error_title=message.error_title,
        error_message=message.error_message,
    )


def conversation_facts(conversation: Conversation) -> ConversationFacts:
    """The event facts of a stored conversation."""
    return ConversationFacts(
        id=conversation.id,
        status=conversation.status,
        contact_phone=conversation.contact_phone,
        business_scoped_user_id=conversation.contact_bsuid,
        username=conversation.contact_username,
    )
