"""Tenant event envelopes (spec: Events), their kinds, picker groups and subscription matching.

Every envelope carries ``object: "service_events"`` (the spec's normalized
payload type), event, delivery_id, occurred_at (ISO 8601 UTC with
milliseconds), tenant_id and phone_number_id; contact events add waba_id.
Keys whose value is unknown are omitted, except inside the spec's
``{previous, current}`` pairs, which always carry both (null when unknown).
The ``message`` object mirrors the channel's message object (``id`` is the
wamid, ``timestamp`` epoch seconds as a string, the type object under the type
name) plus ``occurred_at`` and a ``service`` object with our own fields. On
``channel.message.failed``, ``errors[]`` keeps the channel's shape (``code`` is
the upstream's number) and ``service.error_code`` carries the spec's code (the
Message's ``error_code``: OUTSIDE_CONVERSATION_WINDOW ..., or the number itself
when the spec names none), whether the upstream refused the send at once or
reported the failure later in a status webhook.
Message-level BSUID fields appear only when known (sent by the upstream, or the
BSUID a send was addressed to), under the upstream's names:
``from_user_id``/``from_parent_user_id`` on received,
``recipient_user_id``/``recipient_parent_user_id`` on status events (a send to
a BSUID carries it instead of ``recipient_id``, also when refused at once) and
``to_user_id``/``to_parent_user_id`` on echoes.

Subscription matching: an omitted or empty event list means every kind. A
phone filter keeps events of that phone number only; events that carry no
phone_number_id pass it. ``conversation.created`` is matched like a message
event: a webhook filtered to a number receives the conversations created on
that number (and not those of other numbers). ``webhook.test`` is sent to the
one webhook it was dispatched for, whatever its subscription.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from switchboard.domain.errors import ValidationFailed

PAYLOAD_TYPE = "service_events"

MESSAGE_RECEIVED = "channel.message.received"
MESSAGE_SENT = "channel.message.sent"
MESSAGE_DELIVERED = "channel.message.delivered"
MESSAGE_READ = "channel.message.read"
MESSAGE_FAILED = "channel.message.failed"
MESSAGE_ECHOED = "channel.message.echoed"
# The sender changed or deleted an earlier message (Cloud API message types edit and revoke).
MESSAGE_EDITED = "channel.message.edited"
MESSAGE_REVOKED = "channel.message.revoked"
CONTACT_PHONE_RECEIVED = "channel.contact.phone_received"
CONTACT_IDENTITY_CHANGED = "channel.contact.identity_changed"
CONVERSATION_CREATED = "conversation.created"
WEBHOOK_TEST = "webhook.test"
# Agent events (spec: Agent events; CONTRACTS 7a), offered to webhooks with the ``agent.`` prefix.
AGENT_THREAD_MUTED = "agent.thread.muted"
AGENT_THREAD_UNMUTED = "agent.thread.unmuted"
AGENT_THREAD_REACTIVATED = "agent.thread.reactivated"
AGENT_THREAD_MESSAGES_RESET = "agent.thread.messages_reset"
AGENT_THREAD_MESSAGES_AUTO_RESET = "agent.thread.messages_auto_reset"
AGENT_THREAD_MESSAGES_INACTIVITY_RESET = "agent.thread.messages_inactivity_reset"

EVENT_GROUPS: dict[str, tuple[str, ...]] = {
    "Messages": (MESSAGE_RECEIVED, MESSAGE_ECHOED, MESSAGE_EDITED, MESSAGE_REVOKED),
    "Statuses": (MESSAGE_SENT, MESSAGE_DELIVERED, MESSAGE_READ, MESSAGE_FAILED),
    "Contacts": (CONTACT_PHONE_RECEIVED, CONTACT_IDENTITY_CHANGED),
    "Conversations": (CONVERSATION_CREATED,),
    "Agents": (
        AGENT_THREAD_MUTED,
        AGENT_THREAD_UNMUTED,
        AGENT_THREAD_REACTIVATED,
        AGENT_THREAD_MESSAGES_RESET,
        AGENT_THREAD_MESSAGES_AUTO_RESET,
        AGENT_THREAD_MESSAGES_INACTIVITY_RESET,
    ),
    "Test": (WEBHOOK_TEST,),
}
ALL_EVENT_KINDS: tuple[str, ...] = tuple(kind for kinds in EVENT_GROUPS.values() for kind in kinds)
STATUS_EVENT_KINDS = EVENT_GROUPS["Statuses"]


def iso_utc(moment: datetime) -> str:
    """ISO 8601 in UTC with milliseconds and a Z, the service's timestamp form."""
    if moment.tzinfo is None:
        raise ValueError("timestamps must be timezone-aware")
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def epoch_string(moment: datetime) -> str:
    """Epoch seconds as a string, the channel's message timestamp form."""
    return str(int(moment.timestamp()))


def _compact(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if value is not None}


@dataclass(frozen=True, kw_only=True)
class MessageFacts:
    """What an event needs to know about a stored message row."""

    id: str
    wa_message_id: str
    phone_number_id: str
    direction: str
    message_type: str
    status: str
    origin: str | None
    occurred_at: datetime
    from_phone: str | None = None
    to_phone: str | None = None
    type_object: dict[str, Any] | list[Any] | None = None
    content: str | None = None
    has_media: bool = False
    reply_to_wa_message_id: str | None = None
    # What the channel sent about a received message, kept whole: the reply context (id, from,
    # forwarded, frequently_forwarded, referred_product), a click-to-WhatsApp ad's referral, and an
    # unsupported message's errors[].
    context: dict[str, Any] | None = None
    referral: dict[str, Any] | None = None
    errors: list[dict[str, Any]] | None = None
    from_user_id: str | None = None
    from_parent_user_id: str | None = None
    recipient_user_id: str | None = None
    recipient_parent_user_id: str | None = None
    to_user_id: str | None = None
    to_parent_user_id: str | None = None
    # On channel.message.edited / revoked: the edit's own wamid, time and the replaced version; the revoke's.
    edit: dict[str, Any] | None = None
    revoke: dict[str, Any] | None = None
    # A post in a WhatsApp group: the group's id.
    group_id: str | None = None
    # What the tenant sent with the message for the upstream to echo (status events carry it back).
    biz_opaque_callback_data: str | None = None
    # A status webhook's billing facts, as the channel sent them: pricing (billable, pricing_model,
    # category, type) and the channel's conversation (id, origin.type, expiration_timestamp).
    pricing: dict[str, Any] | None = None
    channel_conversation: dict[str, Any] | None = None
    # errors[].code keeps the upstream's number; ``code`` is the spec's code (Message.error_code).
    error_code: int | None = None
    error_title: str | None = None
    error_message: str | None = None
    code: str | None = None


@dataclass(frozen=True, kw_only=True)
class ConversationFacts:
    """What an event needs to know about a conversation."""

    id: str
    status: str
    contact_phone: str | None = None
    business_scoped_user_id: str | None = None
    parent_business_scoped_user_id: str | None = None
    username: str | None = None
    # A WhatsApp group's conversation: the group's id.
    group_id: str | None = None


def _envelope(
    event: str,
    *,
    delivery_id: str,
    occurred_at: datetime,
    tenant_id: str,
    phone_number_id: str | None,
    waba_id: str | None = None,
) -> dict[str, Any]:
    return _compact(
        {
            "object": PAYLOAD_TYPE,
            "event": event,
            "delivery_id": delivery_id,
            "occurred_at": iso_utc(occurred_at),
            "tenant_id": tenant_id,
            "phone_number_id": phone_number_id,
            "waba_id": waba_id,
        }
    )


def conversation_object(conversation: ConversationFacts) -> dict[str, Any]:
    """The event's conversation object; optional BSUID and username keys only when known."""
    return _compact(
        {
            "id": conversation.id,
            "status": conversation.status,
            "contact_phone": conversation.contact_phone,
            "business_scoped_user_id": conversation.business_scoped_user_id,
            "parent_business_scoped_user_id": conversation.parent_business_scoped_user_id,
            "username": conversation.username,
            "group_id": conversation.group_id,
        }
    )


def _bsuid_fields(event: str, message: MessageFacts) -> dict[str, Any]:
    if event in (MESSAGE_EDITED, MESSAGE_REVOKED):
        # The changed message is a user's (inbound) or one the business sent from its app (outbound).
        event = MESSAGE_RECEIVED if message.direction == "inbound" else MESSAGE_ECHOED
    if event == MESSAGE_RECEIVED:
        return {"from_user_id": message.from_user_id, "from_parent_user_id": message.from_parent_user_id}
    if event in STATUS_EVENT_KINDS:
        return {
            "recipient_id": message.to_phone,
            "recipient_user_id": message.recipient_user_id,
            "recipient_parent_user_id": message.recipient_parent_user_id,
        }
    if event == MESSAGE_ECHOED:
        return {
            "to": message.to_phone,
            "to_user_id": message.to_user_id,
            "to_parent_user_id": message.to_parent_user_id,
        }
    return {}


def message_object(event: str, message: MessageFacts) -> dict[str, Any]:
    """The event's message object in the channel's shape, plus occurred_at and the service object."""
    data: dict[str, Any] = {
        "id": message.wa_message_id,
        "timestamp": epoch_string(message.occurred_at),
        "type": message.message_type,
        "from": message.from_phone,
        "occurred_at": iso_utc(message.occurred_at),
        **_bsuid_fields(event, message),
    }
    if message.type_object is not None:
        data[message.message_type] = message.type_object
    if message.context:
        data["context"] = dict(message.context)
    elif message.reply_to_wa_message_id:
        data["context"] = {"id": message.reply_to_wa_message_id}
    if message.referral:
        data["referral"] = dict(message.referral)
    if message.group_id:
        data["group_id"] = message.group_id
    if event in STATUS_EVENT_KINDS:
        data["biz_opaque_callback_data"] = message.biz_opaque_callback_data
        data["pricing"] = dict(message.pricing) if message.pricing else None
        data["conversation"] = dict(message.channel_conversation) if message.channel_conversation else None
    if event == MESSAGE_EDITED and message.edit:
        data["edit"] = dict(message.edit)
    if event == MESSAGE_REVOKED and message.revoke:
        data["revoke"] = dict(message.revoke)
    if message.errors and event != MESSAGE_FAILED:
        data["errors"] = [dict(error) for error in message.errors]
    if event == MESSAGE_FAILED and (message.error_code is not None or message.error_title):
        data["errors"] = [
            _compact(
                {"code": message.error_code, "title": message.error_title, "message": message.error_message}
            )
        ]
    data["service"] = _compact(
        {
            "message_id": message.id,
            "direction": message.direction,
            "status": message.status,
            "origin": message.origin,
            "has_media": message.has_media,
            "content": message.content,
            "error_code": message.code if event == MESSAGE_FAILED else None,
        }
    )
    return _compact(data)


_MESSAGE_EVENTS = frozenset(
    {MESSAGE_RECEIVED, MESSAGE_ECHOED, MESSAGE_EDITED, MESSAGE_REVOKED, *STATUS_EVENT_KINDS}
)


def message_event(
    event: str,
    message: MessageFacts,
    *,
    tenant_id: str,
    delivery_id: str,
    occurred_at: datetime,
    conversation: ConversationFacts | None = None,
    is_new_conversation: bool = False,
) -> dict[str, Any]:
    """A channel.message.* envelope; ``occurred_at`` is when this event happened (e.g. the status time)."""
    if event not in _MESSAGE_EVENTS:
        raise ValueError(f"{event!r} is not a message event")
    body = _envelope(
        event,
        delivery_id=delivery_id,
        occurred_at=occurred_at,
        tenant_id=tenant_id,
        phone_number_id=message.phone_number_id,
    )
    body["message"] = message_object(event, message)
    if conversation is not None:
        body["conversation"] = conversation_object(conversation)
        body["is_new_conversation"] = is_new_conversation
    return body


def conversation_created_event(
    conversation: ConversationFacts,
    *,
    tenant_id: str,
    phone_number_id: str,
    delivery_id: str,
    occurred_at: datetime,
) -> dict[str, Any]:
    """The conversation.created envelope."""
    body = _envelope(
        CONVERSATION_CREATED,
        delivery_id=delivery_id,
        occurred_at=occurred_at,
        tenant_id=tenant_id,
        phone_number_id=phone_number_id,
    )
    body["conversation"] = conversation_object(conversation)
    body["is_new_conversation"] = True
    return body


def phone_received_event(
    *,
    tenant_id: str,
    waba_id: str,
    phone_number_id: str | None,
    business_scoped_user_id: str | None,
    previous_phone: str | None,
    current_phone: str,
    delivery_id: str,
    occurred_at: datetime,
) -> dict[str, Any]:
    """The channel.contact.phone_received envelope (a user shared a phone via request_contact_info)."""
    body = _envelope(
        CONTACT_PHONE_RECEIVED,
        delivery_id=delivery_id,
        occurred_at=occurred_at,
        tenant_id=tenant_id,
        phone_number_id=phone_number_id,
        waba_id=waba_id,
    )
    body["contact"] = {
        "business_scoped_user_id": business_scoped_user_id,
        "phone": {"previous": previous_phone, "current": current_phone},
    }
    return body


def identity_changed_event(
    *,
    tenant_id: str,
    waba_id: str,
    phone_number_id: str | None,
    wa_id: str | None,
    previous_user_id: str | None,
    current_user_id: str,
    previous_parent_user_id: str | None,
    current_parent_user_id: str | None,
    delivery_id: str,
    occurred_at: datetime,
) -> dict[str, Any]:
    """The channel.contact.identity_changed envelope (the upstream rotated a user's BSUID)."""
    body = _envelope(
        CONTACT_IDENTITY_CHANGED,
        delivery_id=delivery_id,
        occurred_at=occurred_at,
        tenant_id=tenant_id,
        phone_number_id=phone_number_id,
        waba_id=waba_id,
    )
    body["contact"] = {
        "wa_id": wa_id,
        "business_scoped_user_id": {"previous": previous_user_id, "current": current_user_id},
        "parent_business_scoped_user_id": {
            "previous": previous_parent_user_id,
            "current": current_parent_user_id,
        },
    }
    return body


def agent_event(
    kind: str,
    *,
    tenant_id: str,
    phone_number_id: str | None,
    delivery_id: str,
    occurred_at: datetime,
    agent_event_id: str,
    thread_id: str,
    conversation_id: str | None,
    run_id: str | None,
    properties: dict[str, Any],
) -> dict[str, Any]:
    """An ``agent.thread.*`` envelope: the AgentEvent's type and properties, with its thread."""
    body = _envelope(
        kind,
        delivery_id=delivery_id,
        occurred_at=occurred_at,
        tenant_id=tenant_id,
        phone_number_id=phone_number_id,
    )
    body["agent_event"] = _compact(
        {
            "id": agent_event_id,
            "type": kind.removeprefix("agent."),
            "thread_id": thread_id,
            "conversation_id": conversation_id,
            "run_id": run_id,
            "properties": properties,
        }
    )
    return body


def webhook_test_event(
    *, tenant_id: str, webhook_id: str, phone_number_id: str | None, delivery_id: str, occurred_at: datetime
) -> dict[str, Any]:
    """The webhook.test envelope dispatched from the health dialog."""
    body = _envelope(
        WEBHOOK_TEST,
        delivery_id=delivery_id,
        occurred_at=occurred_at,
        tenant_id=tenant_id,
        phone_number_id=phone_number_id,
    )
    body["webhook_id"] = webhook_id
    body["test"] = True
    return body


def matches(
    subscription_events: list[str] | tuple[str, ...] | None,
    phone_filter: str | None,
    event_kind: str,
    event_phone_number_id: str | None,
) -> bool:
    """Whether a webhook with these settings receives an event of this kind and phone number."""
    if event_kind == WEBHOOK_TEST:
        return True
    if subscription_events and event_kind not in subscription_events:
        return False
    if phone_filter and event_phone_number_id and phone_filter != event_phone_number_id:
        return False
    return True


def expand_groups(selection: list[str]) -> list[str]:
    """Turn a picker selection of group names and event kinds into event kinds, in canonical order.

    Unknown names are a 400 whose details list the allowed kinds.
    """
    unknown = [name for name in selection if name not in EVENT_GROUPS and name not in ALL_EVENT_KINDS]
    if unknown:
        raise ValidationFailed(
            f"unknown event kinds: {', '.join(unknown)}",
            details={"field": "events", "value": unknown, "allowed": list(ALL_EVENT_KINDS)},
        )
    chosen = {kind for name in selection for kind in EVENT_GROUPS.get(name, (name,))}
    return [kind for kind in ALL_EVENT_KINDS if kind in chosen]
