"""Per-type reading of a channel message object: summary text, media, reply ids, context.

Shared by inbound messages, coexistence echoes and history rows, which all use
the Cloud API message object shape.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from switchboard.domain.phone import canonical_phone

MEDIA_TYPES = frozenset({"image", "video", "audio", "document", "sticker"})


def as_dict(value: Any) -> dict[str, Any]:
    """The value when it is a JSON object, else an empty one (unknown shapes never raise)."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """The value when it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str | None:
    """A non-empty string form of a scalar, else None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float | str):
        text = str(value)
        return text or None
    return None


def as_int(value: Any) -> int | None:
    """An integer from a number or a numeric string, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return None


def phone_or_none(raw: Any) -> str | None:
    """The canonical phone of a channel number, or None when there are no digits."""
    text = as_str(raw)
    if text is None:
        return None
    canonical = canonical_phone(text)
    return canonical or None


def epoch_to_datetime(raw: Any, *, fallback: datetime) -> tuple[datetime, str]:
    """The UTC time of a channel epoch-seconds timestamp and its string form.

    A missing or unreadable timestamp falls back to when the payload was received.
    """
    seconds = as_int(raw)
    if seconds is None or seconds < 0:
        return fallback, str(int(fallback.timestamp()))
    return datetime.fromtimestamp(seconds, tz=UTC), str(seconds)


def _location_summary(obj: dict[str, Any]) -> str | None:
    words = [w for w in (as_str(obj.get("name")), as_str(obj.get("address"))) if w]
    lat, lon = obj.get("latitude"), obj.get("longitude")
    if isinstance(lat, int | float) and isinstance(lon, int | float):
        words.append(f"({lat}, {lon})")
    return " ".join(words) or None


def _contacts_summary(cards: list[Any]) -> str | None:
    parts = []
    for card in cards:
        card = as_dict(card)
        name = as_str(as_dict(card.get("name")).get("formatted_name"))
        phones = [
            as_str(as_dict(p).get("phone")) or as_str(as_dict(p).get("wa_id"))
            for p in as_list(card.get("phones"))
        ]
        words = [w for w in (name, *phones) if w]
        if words:
            parts.append(" ".join(words))
    return "; ".join(parts) or None


def _interactive_summary(obj: dict[str, Any]) -> str | None:
    kind = as_str(obj.get("type"))
    reply = as_dict(obj.get(kind)) if kind else {}
    if kind in ("button_reply", "list_reply"):
        return as_str(reply.get("title")) or as_str(reply.get("id"))
    if kind == "nfm_reply":
        return as_str(reply.get("body")) or as_str(reply.get("name"))
    return as_str(as_dict(obj.get("body")).get("text")) or kind


def content_summary(message_type: str, raw_obj: Any, *, errors: list[Any] | None = None) -> str | None:
    """A short human-readable text of a message, for the inbox, the event's service.content and agents.

    A message the channel could not deliver whole (``errors[]`` beside any type) reads as its error.
    """
    summary = _type_summary(message_type, raw_obj)
    if summary is None and as_list(errors):
        first = as_dict(as_list(errors)[0])
        return as_str(first.get("title")) or as_str(first.get("message"))
    return summary


def _type_summary(message_type: str, raw_obj: Any) -> str | None:
    if message_type == "contacts":
        return _contacts_summary(as_list(raw_obj))
    obj = as_dict(raw_obj)
    if message_type == "text":
        return as_str(obj.get("body"))
    if message_type in MEDIA_TYPES:
        return as_str(obj.get("caption")) or as_str(obj.get("filename")) or f"[{message_type}]"
    if message_type == "location":
        return _location_summary(obj)
    if message_type == "interactive":
        return _interactive_summary(obj)
    if message_type == "button":
        return as_str(obj.get("text")) or as_str(obj.get("payload"))
    if message_type == "reaction":
        return as_str(obj.get("emoji"))
    if message_type == "order":
        return as_str(obj.get("text")) or "[order]"
    if message_type in ("unsupported", "errors"):
        return None
    return as_str(obj.get("body")) or as_str(obj.get("text"))


def reply_id(message_type: str, obj: dict[str, Any]) -> str | None:
    """The selected button or list-row id, or a template quick-reply button's payload."""
    if message_type == "button":
        return as_str(obj.get("payload"))
    if message_type == "interactive":
        kind = as_str(obj.get("type"))
        if kind in ("button_reply", "list_reply"):
            return as_str(as_dict(obj.get(kind)).get("id"))
    return None


def type_object(message: dict[str, Any], message_type: str) -> Any:
    """The object named after the type (a list for ``contacts``), or None."""
    value = message.get(message_type)
    return value if isinstance(value, dict | list) else None


def message_body_fields(message: dict[str, Any], *, fallback_time: datetime) -> dict[str, Any]:
    """The direction-independent fields of a stored message row, read from a Cloud API message object."""
    message_type = as_str(message.get("type")) or "unknown"
    raw_obj = type_object(message, message_type)
    obj = as_dict(raw_obj)
    occurred_at, timestamp = epoch_to_datetime(message.get("timestamp"), fallback=fallback_time)
    context = as_dict(message.get("context"))
    has_media = message_type in MEDIA_TYPES
    return {
        "wa_message_id": as_str(message.get("id")),
        "timestamp": timestamp,
        "occurred_at": occurred_at,
        "message_type": message_type,
        "type_object": raw_obj,
        "content": content_summary(message_type, raw_obj, errors=as_list(message.get("errors"))),
        "has_media": has_media,
        "media_id": as_str(obj.get("id")) if has_media else None,
        "media_mime_type": as_str(obj.get("mime_type")) if has_media else None,
        "reply_to_wa_message_id": as_str(context.get("id")),
        "reply_to_from": as_str(context.get("from")),
        "forwarded": context.get("forwarded") is True,
        "frequently_forwarded": context.get("frequently_forwarded") is True,
        "referred_product": as_dict(context.get("referred_product")) or None,
    }


def received_extras(direction: str, payload: dict[str, Any]) -> dict[str, Any]:
    """A received message's reply context, ad referral, errors[] and group as stored from the channel
    (none for a send: its payload is the tenant's request)."""
    if direction != "inbound":
        return {}
    context = payload.get("context")
    referral = payload.get("referral")
    errors = [error for error in as_list(payload.get("errors")) if isinstance(error, dict)]
    return {
        "context": context if isinstance(context, dict) and context else None,
        "referral": referral if isinstance(referral, dict) and referral else None,
        "errors": errors or None,
        "group_id": as_str(payload.get("group_id")),
    }
