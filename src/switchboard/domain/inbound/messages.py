"""The ``messages`` change field: user messages, statuses and change-level errors."""

from __future__ import annotations

from typing import Any

from switchboard.domain.inbound.content import (
    as_dict,
    as_int,
    as_list,
    as_str,
    epoch_to_datetime,
    message_body_fields,
    phone_or_none,
    reply_id,
)
from switchboard.domain.inbound.edits import CHANGE_TYPES, parse_change
from switchboard.domain.inbound.items import (
    ChannelError,
    IdentityChange,
    InboundItem,
    InboundMessage,
    PhoneNumberChange,
    SharedContactPhone,
    Skipped,
    StatusUpdate,
)

CONTACT_REQUEST_ORIGIN = "contact_request"


def _skipped(base: dict[str, Any], what: str, reason: str) -> Skipped:
    return Skipped(**base, change_field="messages", what=what, reason=reason)


def _match_contact(contacts: list[Any], *, wa_id: str | None, user_id: str | None) -> dict[str, Any]:
    """The contacts[] entry describing one user; a lone entry describes the only user of the change."""
    entries = [as_dict(c) for c in contacts]
    for entry in entries:
        if wa_id and as_str(entry.get("wa_id")) == wa_id:
            return entry
        if user_id and as_str(entry.get("user_id")) == user_id:
            return entry
    return entries[0] if len(entries) == 1 else {}


def _first_error(errors: Any) -> dict[str, Any]:
    items = as_list(errors)
    return as_dict(items[0]) if items else {}


def _error_message(error: dict[str, Any]) -> str | None:
    return as_str(error.get("message")) or as_str(as_dict(error.get("error_data")).get("details"))


def parse_error(error: Any, *, field: str, base: dict[str, Any]) -> ChannelError:
    """A change-level ``errors[]`` entry as an item."""
    error = as_dict(error)
    return ChannelError(
        **base,
        change_field=field,
        code=as_int(error.get("code")),
        title=as_str(error.get("title")),
        message=as_str(error.get("message")),
        details=as_str(as_dict(error.get("error_data")).get("details")),
    )


def _system_items(message: dict[str, Any], *, base: dict[str, Any]) -> list[InboundItem]:
    """System notices are not user messages (no agent should answer them); only identity facts are kept."""
    system = as_dict(message.get("system"))
    kind = as_str(system.get("type"))
    wa_message_id = as_str(message.get("id"))
    occurred_at, _ = epoch_to_datetime(message.get("timestamp"), fallback=base["occurred_at"])
    common = {**base, "occurred_at": occurred_at}
    if kind == "user_changed_number" and wa_message_id and phone_or_none(system.get("wa_id")):
        return [
            PhoneNumberChange(
                **common,
                wa_message_id=wa_message_id,
                previous_phone=phone_or_none(message.get("from")),
                current_phone=phone_or_none(system.get("wa_id")) or "",
                user_id=as_str(message.get("from_user_id")),
            )
        ]
    if kind == "user_changed_user_id" and as_str(system.get("user_id")):
        return [
            IdentityChange(
                **common,
                wa_id=as_str(message.get("from")) or as_str(system.get("wa_id")),
                phone=phone_or_none(message.get("from") or system.get("wa_id")),
                previous_user_id=as_str(message.get("from_user_id")),
                current_user_id=as_str(system.get("user_id")) or "",
                previous_parent_user_id=as_str(message.get("from_parent_user_id")),
                current_parent_user_id=as_str(system.get("parent_user_id")),
                source="system",
            )
        ]
    return [
        _skipped(
            common, f"system message {kind or '(no type)'}", "a system notice the service does not act on"
        )
    ]


def _shared_contact(message: InboundMessage, cards: Any) -> SharedContactPhone | None:
    first = as_dict(as_list(cards)[0]) if as_list(cards) else {}
    if as_str(first.get("origin")) != CONTACT_REQUEST_ORIGIN:
        return None
    phone_entry = as_dict(as_list(first.get("phones"))[0]) if as_list(first.get("phones")) else {}
    shared_wa_id = as_str(phone_entry.get("wa_id"))
    shared_raw = as_str(phone_entry.get("phone"))
    phone = phone_or_none(shared_wa_id) or phone_or_none(shared_raw)
    if phone is None:
        return None
    return SharedContactPhone(
        phone_number_id=message.phone_number_id,
        display_phone_number=message.display_phone_number,
        waba_id=message.waba_id,
        occurred_at=message.occurred_at,
        wa_message_id=message.wa_message_id,
        user_id=message.bsuid,
        parent_user_id=message.parent_bsuid,
        from_phone=message.from_phone,
        phone=phone,
        shared_wa_id=shared_wa_id,
        shared_phone_raw=shared_raw,
    )


def parse_message(message: dict[str, Any], *, contacts: list[Any], base: dict[str, Any]) -> list[InboundItem]:
    """One ``messages[]`` entry as a received message, plus the phone shared via request_contact_info."""
    if as_str(message.get("type")) == "system":
        return _system_items(message, base=base)
    if as_str(message.get("type")) in CHANGE_TYPES:
        return [parse_change(message, base=base, field="messages", target_direction="inbound")]
    body = message_body_fields(message, fallback_time=base["occurred_at"])
    if body["wa_message_id"] is None:
        return [_skipped(base, f"{body['message_type']} message", "it has no id")]
    from_wa_id = as_str(message.get("from"))
    from_user_id = as_str(message.get("from_user_id"))
    contact = _match_contact(contacts, wa_id=from_wa_id, user_id=from_user_id)
    profile = as_dict(contact.get("profile"))
    error = _first_error(message.get("errors"))
    inbound = InboundMessage(
        **{**base, **body},
        from_phone=phone_or_none(from_wa_id),
        from_wa_id=from_wa_id,
        from_user_id=from_user_id,
        from_parent_user_id=as_str(message.get("from_parent_user_id")),
        contact_user_id=as_str(contact.get("user_id")),
        contact_parent_user_id=as_str(contact.get("parent_user_id")),
        username=as_str(profile.get("username")),
        profile_name=as_str(profile.get("name")),
        reply_id=reply_id(body["message_type"], as_dict(body["type_object"])),
        referral=as_dict(message.get("referral")) or None,
        errors=[as_dict(e) for e in as_list(message.get("errors")) if as_dict(e)] or None,
        error_code=as_int(error.get("code")),
        error_title=as_str(error.get("title")),
        error_message=_error_message(error),
        group_id=as_str(message.get("group_id")),
    )
    items: list[InboundItem] = [inbound]
    if inbound.message_type == "contacts":
        shared = _shared_contact(inbound, message.get("contacts"))
        if shared is not None:
            items.append(shared)
    return items


def parse_status(
    status: dict[str, Any], *, contacts: list[Any], base: dict[str, Any]
) -> StatusUpdate | Skipped:
    """One ``statuses[]`` entry; one without a wamid or status is skipped (nothing to apply it to)."""
    wa_message_id = as_str(status.get("id"))
    value = as_str(status.get("status"))
    if wa_message_id is None or value is None:
        return _skipped(
            base, f"status {value or '(none)'} of {wa_message_id or '(no id)'}", "no id or status"
        )
    occurred_at, timestamp = epoch_to_datetime(status.get("timestamp"), fallback=base["occurred_at"])
    recipient_id = as_str(status.get("recipient_id"))
    recipient_user_id = as_str(status.get("recipient_user_id"))
    contact = _match_contact(contacts, wa_id=recipient_id, user_id=recipient_user_id)
    error = _first_error(status.get("errors"))
    return StatusUpdate(
        **{**base, "occurred_at": occurred_at},
        wa_message_id=wa_message_id,
        status=value.lower(),
        timestamp=timestamp,
        recipient_id=recipient_id,
        recipient_phone=phone_or_none(recipient_id),
        recipient_user_id=recipient_user_id,
        recipient_parent_user_id=as_str(status.get("recipient_parent_user_id")),
        contact_user_id=as_str(contact.get("user_id")),
        contact_parent_user_id=as_str(contact.get("parent_user_id")),
        username=as_str(as_dict(contact.get("profile")).get("username")),
        error_code=as_int(error.get("code")),
        error_title=as_str(error.get("title")),
        error_message=as_str(error.get("message")),
        error_details=as_str(as_dict(error.get("error_data")).get("details")),
        conversation=as_dict(status.get("conversation")) or None,
        pricing=as_dict(status.get("pricing")) or None,
        biz_opaque_callback_data=as_str(status.get("biz_opaque_callback_data")),
    )


def parse_messages_change(value: dict[str, Any], *, base: dict[str, Any]) -> list[InboundItem]:
    """Every item of a ``messages`` change, in upstream order: messages, then statuses, then errors."""
    contacts = as_list(value.get("contacts"))
    items: list[InboundItem] = []
    for message in as_list(value.get("messages")):
        items.extend(parse_message(as_dict(message), contacts=contacts, base=base))
    for status in as_list(value.get("statuses")):
        items.append(parse_status(as_dict(status), contacts=contacts, base=base))
    items.extend(parse_error(e, field="messages", base=base) for e in as_list(value.get("errors")))
    return items
