"""Response shapes of the messaging endpoints."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from switchboard.domain.inbound.content import received_extras
from switchboard.domain.inbound.edits import change_fields
from switchboard.domain.message_status import SENT_SANDBOX
from switchboard.models.base import iso_millis
from switchboard.models.messaging import Message


class MessagePublic(BaseModel):
    """The spec's Message object."""

    id: str
    phone_number_id: str
    direction: str
    message_type: str
    wa_message_id: str | None
    status: str
    to_phone: str | None
    from_phone: str | None
    recipient: str | None
    conversation_id: str | None
    created_at: str
    occurred_at: str
    retry_of_message_id: str | None
    source: str
    sent_by: str | None
    coexistence_echo: bool
    content: str | None
    has_media: bool
    rendered_body: str | None
    error_title: str | None
    error_code: str | None
    error_message: str | None
    # A received message's reply context, ad referral (click-to-WhatsApp) and errors[], as the channel sent them.
    context: dict[str, Any] | None = None
    referral: dict[str, Any] | None = None
    errors: list[dict[str, Any]] | None = None
    # A post in a WhatsApp group: the group's id (the sender is from_phone).
    group_id: str | None = None
    # Changes its sender made after it arrived: the latest edit's time, the deletion's, earlier versions.
    edited_at: str | None = None
    revoked_at: str | None = None
    edits: list[dict[str, Any]] | None = None

    @classmethod
    def of(cls, m: Message) -> MessagePublic:
        return cls(
            id=m.id,
            phone_number_id=m.phone_number_id,
            direction=m.direction,
            message_type=m.message_type,
            wa_message_id=m.wa_message_id,
            status=m.status,
            to_phone=m.to_phone,
            from_phone=m.from_phone,
            recipient=m.recipient_bsuid,
            conversation_id=m.conversation_id,
            created_at=iso_millis(m.created_at),
            occurred_at=iso_millis(m.occurred_at),
            retry_of_message_id=m.retry_of_message_id,
            source=m.source,
            sent_by=m.sent_by,
            coexistence_echo=m.coexistence_echo,
            content=m.content,
            has_media=m.has_media,
            rendered_body=m.rendered_body,
            error_title=m.error_title,
            error_code=m.error_code,
            error_message=m.error_message,
            **received_extras(m.direction, m.payload if isinstance(m.payload, dict) else {}),
            **change_fields(m.payload if isinstance(m.payload, dict) else {}),
        )


def sandbox_response(
    *,
    phone_number_id: str,
    message_type: str,
    to_phone: str | None,
    recipient: str | None,
    message_id: str,
    wa_message_id: str,
    created_at: str,
    retry_of_message_id: str | None = None,
) -> dict[str, Any]:
    """The spec's synthetic answer to a sandbox send (nothing persisted, nothing sent)."""
    retry = {"retry_of_message_id": retry_of_message_id} if retry_of_message_id else {}
    return {
        "id": message_id,
        "phone_number_id": phone_number_id,
        "direction": "outbound",
        "message_type": message_type,
        "wa_message_id": wa_message_id,
        "status": SENT_SANDBOX,
        "to_phone": to_phone,
        "recipient": recipient,
        "created_at": created_at,
        **retry,
        "_sandbox": True,
        "_note": "Sandbox key: validated like a live send, but nothing was stored, sent upstream or "
        "delivered to webhooks. Use a gsk_live_ key to send for real.",
    }
