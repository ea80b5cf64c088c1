"""Response shapes of the embedded inbox (GET /v1/inbox-embed/...)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel

from switchboard.domain.message_status import window_expires_at, window_open
from switchboard.models.base import iso_millis
from switchboard.models.messaging import Conversation, Message


def _iso(value: datetime | None) -> str | None:
    return iso_millis(value) if value is not None else None


class InboxLastMessage(BaseModel):
    id: str
    content: str | None
    direction: str
    message_type: str
    status: str
    occurred_at: str

    @classmethod
    def of(cls, m: Message) -> InboxLastMessage:
        return cls(
            id=m.id,
            content=m.content,
            direction=m.direction,
            message_type=m.message_type,
            status=m.status,
            occurred_at=iso_millis(m.occurred_at),
        )


class InboxConversation(BaseModel):
    id: str
    status: str
    phone_number_id: str
    customer_id: str
    contact_id: str
    contact_phone: str | None
    contactUsername: str | None
    contactBsuid: str | None
    # Set on a WhatsApp group's conversation (posts by its members); null for a one-to-one one.
    group_id: str | None = None
    last_message: InboxLastMessage | None
    last_message_at: str | None
    last_inbound_at: str | None
    unread_count: int
    window_expires_at: str | None
    window_open: bool
    created_at: str
    updated_at: str

    @classmethod
    def of(cls, c: Conversation, *, last: Message | None, now: datetime) -> InboxConversation:
        return cls(
            id=c.id,
            status=c.status,
            phone_number_id=c.phone_number_id,
            customer_id=c.customer_id,
            contact_id=c.contact_id,
            contact_phone=c.contact_phone,
            contactUsername=c.contact_username,
            contactBsuid=c.contact_bsuid,
            group_id=c.group_id,
            last_message=InboxLastMessage.of(last) if last is not None else None,
            last_message_at=_iso(c.last_message_at),
            last_inbound_at=_iso(c.last_inbound_at),
            unread_count=c.unread_count,
            window_expires_at=_iso(window_expires_at(c.last_inbound_at)),
            window_open=window_open(c.last_inbound_at, now=now),
            created_at=iso_millis(c.created_at),
            updated_at=iso_millis(c.updated_at),
        )


class InboxMessage(BaseModel):
    id: str
    conversation_id: str | None
    phone_number_id: str
    direction: str
    message_type: str
    wa_message_id: str | None
    status: str
    from_phone: str | None
    to_phone: str | None
    source: str
    coexistence_echo: bool
    content: str | None
    has_media: bool
    payload: dict[str, Any] | None
    error_title: str | None
    error_code: str | None
    error_message: str | None
    retry_of_message_id: str | None
    occurred_at: str
    created_at: str

    @classmethod
    def of(cls, m: Message) -> InboxMessage:
        return cls(
            id=m.id,
            conversation_id=m.conversation_id,
            phone_number_id=m.phone_number_id,
            direction=m.direction,
            message_type=m.message_type,
            wa_message_id=m.wa_message_id,
            status=m.status,
            from_phone=m.from_phone,
            to_phone=m.to_phone,
            source=m.source,
            coexistence_echo=m.coexistence_echo,
            content=m.content,
            has_media=m.has_media,
            payload=m.payload,
            error_title=m.error_title,
            error_code=m.error_code,
            error_message=m.error_message,
            retry_of_message_id=m.retry_of_message_id,
            occurred_at=iso_millis(m.occurred_at),
            created_at=iso_millis(m.created_at),
        )
