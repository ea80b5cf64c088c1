"""Edits and deletions of an earlier message (message types ``edit`` and ``revoke``).

A user who edits a message, or deletes it for everyone, does not send a new
message: the channel posts a message of type ``edit`` (``edit.original_message_id``
and the new ``edit.message`` object) or ``revoke`` (``revoke.original_message_id``).
The same types arrive as business-app echoes when the business edits or deletes
what it sent from the app. Both are read here into items that change the stored
original; neither is a message of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from switchboard.domain.events import iso_utc
from switchboard.domain.inbound.content import as_dict, as_str, epoch_to_datetime, message_body_fields
from switchboard.domain.inbound.items import MessageEdit, MessageRevoke, Skipped

EDIT = "edit"
REVOKE = "revoke"
CHANGE_TYPES = frozenset({EDIT, REVOKE})


def parse_change(
    message: dict[str, Any], *, base: dict[str, Any], field: str, target_direction: str
) -> MessageEdit | MessageRevoke | Skipped:
    """An ``edit`` or ``revoke`` message as the change it makes (skipped without the ids to apply it)."""
    kind = as_str(message.get("type"))
    wa_message_id = as_str(message.get("id"))
    change = as_dict(message.get(kind)) if kind in CHANGE_TYPES else {}
    original = as_str(change.get("original_message_id"))
    if wa_message_id is None or original is None:
        return Skipped(
            **base,
            change_field=field,
            what=f"{kind} message {wa_message_id or '(no id)'}",
            reason="no id or original_message_id to apply it to",
        )
    occurred_at, timestamp = epoch_to_datetime(message.get("timestamp"), fallback=base["occurred_at"])
    common = {
        **base,
        "occurred_at": occurred_at,
        "wa_message_id": wa_message_id,
        "original_wa_message_id": original,
        "target_direction": target_direction,
        "timestamp": timestamp,
    }
    if kind == REVOKE:
        return MessageRevoke(**common)
    body = message_body_fields(
        {**as_dict(change.get("message")), "id": wa_message_id}, fallback_time=base["occurred_at"]
    )
    return MessageEdit(
        **common,
        message_type=body["message_type"],
        type_object=body["type_object"],
        content=body["content"],
        has_media=body["has_media"],
        media_id=body["media_id"],
        media_mime_type=body["media_mime_type"],
    )


# Keys of a stored message's payload that record changes made after it arrived.
EDITS_KEY = "edits"
EDITED_AT_KEY = "edited_at"
REVOKED_AT_KEY = "revoked_at"


@dataclass(frozen=True)
class Revision:
    """A stored message after a change: its payload, type, summary text and media flag."""

    payload: dict[str, Any]
    message_type: str
    content: str | None
    has_media: bool
    # Whether the change replaced what the message shows (a late, older edit only joins the history).
    current: bool = True


def _version(
    payload: dict[str, Any], message_type: str, content: str | None, at: str | None
) -> dict[str, Any]:
    """One version of a message as kept in its history: type, type object, summary, since when it showed."""
    version: dict[str, Any] = {"type": message_type, "content": content, "since": at}
    if payload.get(message_type) is not None:
        version[message_type] = payload[message_type]
    return version


def apply_edit(
    payload: dict[str, Any], *, message_type: str, content: str | None, has_media: bool, edit: MessageEdit
) -> Revision:
    """The stored message after ``edit``: the new content shows, the replaced version joins ``edits``.

    ``edits`` lists every earlier version, oldest first, each with the time it began to show
    (``since``; null for the message as first received). Edits can arrive out of order: one older than
    the version showing is filed in the history at its place and changes nothing else.
    """
    edited_at = iso_utc(edit.occurred_at)
    history = [dict(v) for v in payload.get(EDITS_KEY) or [] if isinstance(v, dict)]
    shown_since = payload.get(EDITED_AT_KEY)
    new_version = {
        "type": edit.message_type,
        "content": edit.content,
        "since": edited_at,
        **({edit.message_type: edit.type_object} if edit.type_object is not None else {}),
    }
    if isinstance(shown_since, str) and edited_at < shown_since:
        history.append(new_version)
        history.sort(key=lambda v: v.get("since") or "")
        return Revision({**payload, EDITS_KEY: history}, message_type, content, has_media, current=False)
    history.append(
        _version(payload, message_type, content, shown_since if isinstance(shown_since, str) else None)
    )
    updated = {key: value for key, value in payload.items() if key != message_type}
    if edit.type_object is not None:
        updated[edit.message_type] = edit.type_object
    updated["type"] = edit.message_type
    if edit.has_media:
        updated["media_id"], updated["media_mime_type"] = edit.media_id, edit.media_mime_type
    updated |= {EDITS_KEY: history, EDITED_AT_KEY: edited_at}
    return Revision(updated, edit.message_type, edit.content, edit.has_media or has_media)


def apply_revoke(payload: dict[str, Any], *, message_type: str, revoke: MessageRevoke) -> Revision:
    """The stored message after its sender deleted it for everyone: its content and every earlier
    version are gone (as on the user's phone); the type, the context and the time of deletion stay."""
    kept = {
        key: value
        for key, value in payload.items()
        if key not in (message_type, EDITS_KEY, "media_id", "media_mime_type", "reply_id")
    }
    kept[REVOKED_AT_KEY] = iso_utc(revoke.occurred_at)
    return Revision(kept, message_type, None, False)


def is_revoked(payload: dict[str, Any]) -> bool:
    """Whether the message was deleted for everyone (later edits change nothing)."""
    return isinstance(payload.get(REVOKED_AT_KEY), str)


def change_fields(payload: dict[str, Any]) -> dict[str, Any]:
    """The Message resource's record of later changes: ``edited_at``, ``revoked_at`` and ``edits``."""
    edits = [v for v in payload.get(EDITS_KEY) or [] if isinstance(v, dict)]
    return {
        "edited_at": payload.get(EDITED_AT_KEY) if isinstance(payload.get(EDITED_AT_KEY), str) else None,
        "revoked_at": payload.get(REVOKED_AT_KEY) if is_revoked(payload) else None,
        "edits": edits or None,
    }
