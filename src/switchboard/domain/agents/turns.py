"""Which inbound messages start an agent turn, and what the model reads as the customer's words.

CONTRACTS 7a: a turn starts on what a customer says or sends (text, a button
or list choice, a location, a shared contact, media). Reactions, unsupported
and error rows, orders, system notices, statuses and echoes are not something
to answer, so they never start one.

The model cannot see media or tap buttons, so every kind is turned into one
line of text: a choice becomes the title the customer tapped (what they saw,
not the opaque id), media becomes a bracketed description with its caption or
file name, a location or contact card a bracketed summary. ``payload`` is the
stored Cloud API message object, whose type object sits under the type's name
(``payload["interactive"]["list_reply"]["title"]``, ``payload["button"]["text"]``,
``payload["contacts"]`` as a list). When it lacks that object the stored
``content`` summary is used. A text is capped at ``MAX_USER_TEXT`` characters so
one pasted novel cannot eat a run's context or budget.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

MAX_USER_TEXT = 4_000
ELLIPSIS = "…"

MEDIA_TYPES = frozenset({"image", "audio", "video", "document", "sticker"})
TURN_MESSAGE_TYPES = frozenset({"text", "button", "interactive", "location", "contacts"} | MEDIA_TYPES)


def starts_turn(message_type: str) -> bool:
    """Whether an inbound message of this type is something the agent answers."""
    return message_type in TURN_MESSAGE_TYPES


def _str(value: Any) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float | str):
        return str(value).strip() or None
    return None


def _dict(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _clip(text: str, limit: int = MAX_USER_TEXT) -> str:
    if limit <= 0:
        return ""
    return text if len(text) <= limit else text[: limit - len(ELLIPSIS)] + ELLIPSIS


def _bracket(label: str, inner: str | None = None) -> str:
    """``[label: inner]`` with the inner text shortened so the closing bracket survives the cap."""
    if not inner:
        return f"[{label}]"
    room = MAX_USER_TEXT - len(label) - len("[: ]")
    return f"[{label}: {_clip(inner, room)}]"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _interactive(obj: Mapping[str, Any]) -> str | None:
    kind = _str(obj.get("type"))
    reply = _dict(obj.get(kind)) if kind else {}
    if kind == "button_reply":
        return _str(reply.get("title")) or _str(reply.get("id"))
    if kind == "list_reply":
        title = _str(reply.get("title")) or _str(reply.get("id"))
        description = _str(reply.get("description"))
        if title and description:
            return f"{title} — {description}"
        return title
    if kind == "nfm_reply":
        return _str(reply.get("body")) or _str(reply.get("response_json"))
    return None


def _coordinate(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return None
        return value.strip()
    return None


def _location(obj: Mapping[str, Any]) -> str:
    words = ", ".join(w for w in (_str(obj.get("name")), _str(obj.get("address"))) if w)
    lat, lon = _coordinate(obj.get("latitude")), _coordinate(obj.get("longitude"))
    if lat is not None and lon is not None:
        words = f"{words} ({lat}, {lon})".strip()
    return _bracket("ubicación", _one_line(words))


def _contacts(cards: Any) -> str:
    parts = []
    for card in cards if isinstance(cards, list) else []:
        card = _dict(card)
        name_obj = _dict(card.get("name"))
        name = _str(name_obj.get("formatted_name")) or " ".join(
            w for w in (_str(name_obj.get("first_name")), _str(name_obj.get("last_name"))) if w
        )
        phones_raw = card.get("phones")
        phones = [
            _str(_dict(p).get("phone")) or _str(_dict(p).get("wa_id"))
            for p in (phones_raw if isinstance(phones_raw, list) else [])
        ]
        words = [w for w in (name, *phones) if w]
        if words:
            parts.append(", ".join(words))
    return _bracket("contacto compartido", _one_line("; ".join(parts)))


def _media(message_type: str, obj: Mapping[str, Any] | None, content: str | None) -> str:
    if obj is None:
        # Without the type object the stored summary is a caption, a file name or "[type]" already.
        if content is None or content == f"[{message_type}]":
            return _bracket(message_type)
        return _bracket(message_type, _one_line(content))
    caption = _str(obj.get("caption"))
    if message_type == "document":
        filename = _str(obj.get("filename"))
        inner = " — ".join(w for w in (filename, caption) if w)
        return _bracket(message_type, _one_line(inner) or None)
    return _bracket(message_type, _one_line(caption) if caption else None)


# The stored summary of these kinds is bare ("Casa Av. Siempreviva 742 (1.0, 2.0)"); the label says what it is.
_FALLBACK_LABELS = {"location": "ubicación", "contacts": "contacto compartido"}


def user_text(message_type: str, *, content: str | None, payload: Mapping[str, Any]) -> str:
    """The customer's message as the model reads it: one text of at most ``MAX_USER_TEXT`` characters."""
    raw = payload.get(message_type) if isinstance(payload, Mapping) else None
    obj = raw if isinstance(raw, Mapping) else None
    content = content.strip() if isinstance(content, str) and content.strip() else None
    text: str | None = None
    if message_type in MEDIA_TYPES:
        text = _media(message_type, obj, content)
    elif message_type == "contacts" and isinstance(raw, list):
        text = _contacts(raw)
    elif obj is not None:
        if message_type == "text":
            text = _str(obj.get("body"))
        elif message_type == "button":
            text = _str(obj.get("text")) or _str(obj.get("payload"))
        elif message_type == "interactive":
            text = _interactive(obj)
        elif message_type == "location":
            text = _location(obj)
    if text is None and content is not None:
        label = _FALLBACK_LABELS.get(message_type)
        text = _bracket(label, _one_line(content)) if label else content
    return _clip(text or "")


def merge_user_texts(texts: Sequence[str]) -> str:
    """The texts of a burst of messages answered by one run, one per line, blanks dropped."""
    return "\n".join(t.strip() for t in texts if t and t.strip())
