"""Coexistence change fields: ``smb_message_echoes`` (business-app sends) and ``history`` (one-time sync)."""

from __future__ import annotations

from typing import Any

from switchboard.domain.inbound.content import (
    MEDIA_TYPES,
    as_dict,
    as_int,
    as_list,
    as_str,
    epoch_to_datetime,
    message_body_fields,
    phone_or_none,
)
from switchboard.domain.inbound.edits import CHANGE_TYPES, parse_change
from switchboard.domain.inbound.items import (
    EchoMessage,
    HistoryError,
    HistoryMedia,
    HistoryMessage,
    InboundItem,
    Skipped,
)
from switchboard.domain.inbound.messages import parse_error

ECHOES = "smb_message_echoes"
HISTORY = "history"

# Row types the upstream uses when it could not export a message.
_UNRECOVERABLE_TYPES = frozenset({"errors", "unsupported", "unknown"})


def parse_echoes_change(value: dict[str, Any], *, base: dict[str, Any]) -> list[InboundItem]:
    """Every ``message_echoes[]`` entry as an outbound HUMAN_COEXISTENCE message."""
    items: list[InboundItem] = []
    for echo in as_list(value.get("message_echoes")):
        echo = as_dict(echo)
        if as_str(echo.get("type")) in CHANGE_TYPES:
            # The business edited or deleted, from the app, a message it had sent.
            items.append(parse_change(echo, base=base, field=ECHOES, target_direction="outbound"))
            continue
        body = message_body_fields(echo, fallback_time=base["occurred_at"])
        if body["wa_message_id"] is None:
            items.append(
                Skipped(
                    **base, change_field=ECHOES, what=f"{body['message_type']} echo", reason="it has no id"
                )
            )
            continue
        items.append(
            EchoMessage(
                **{**base, **body},
                from_phone=phone_or_none(echo.get("from")),
                to_phone=phone_or_none(echo.get("to")),
                to_wa_id=as_str(echo.get("to")),
                to_user_id=as_str(echo.get("to_user_id")),
                to_parent_user_id=as_str(echo.get("to_parent_user_id")),
            )
        )
    items.extend(parse_error(e, field=ECHOES, base=base) for e in as_list(value.get("errors")))
    return items


def _direction(row: dict[str, Any], business_phone: str | None) -> str:
    sender = phone_or_none(row.get("from"))
    if sender is not None and sender == business_phone:
        return "outbound"
    if sender is None and as_str(row.get("to")) and not as_str(row.get("from_user_id")):
        return "outbound"
    return "inbound"


def _is_unrecoverable(row: dict[str, Any]) -> bool:
    kind = as_str(row.get("type"))
    return (
        kind is None
        or kind in _UNRECOVERABLE_TYPES
        or bool(as_list(row.get("errors")))
        or as_str(row.get("id")) is None
    )


def _history_row(
    row: dict[str, Any], *, thread: dict[str, Any], chunk: dict[str, Any], base: dict[str, Any]
) -> HistoryMessage | HistoryError:
    business_phone = phone_or_none(base.get("display_phone_number"))
    direction = _direction(row, business_phone)
    counterpart = "to" if direction == "outbound" else "from"
    thread_id = as_str(thread.get("id"))
    row_context: dict[str, Any] = {
        "thread_id": thread_id,
        "direction": direction,
        "contact_phone": phone_or_none(row.get(counterpart)) or phone_or_none(thread_id),
        "contact_user_id": as_str(row.get(f"{counterpart}_user_id")) or as_str(thread.get("user_id")),
        "phase": as_int(chunk.get("phase")),
        "chunk_order": as_int(chunk.get("chunk_order")),
        "progress": as_int(chunk.get("progress")),
    }
    if _is_unrecoverable(row):
        error = as_dict(as_list(row.get("errors"))[0]) if as_list(row.get("errors")) else {}
        occurred_at, timestamp = epoch_to_datetime(row.get("timestamp"), fallback=base["occurred_at"])
        return HistoryError(
            **{**base, "occurred_at": occurred_at},
            **row_context,
            wa_message_id=as_str(row.get("id")),
            timestamp=timestamp,
            error_code=as_int(error.get("code")),
            error_message=as_str(as_dict(error.get("error_data")).get("details"))
            or as_str(error.get("message"))
            or as_str(error.get("title")),
            raw=row,
        )
    body = message_body_fields(row, fallback_time=base["occurred_at"])
    return HistoryMessage(
        **{**base, **body},
        **row_context,
        from_phone=phone_or_none(row.get("from")),
        to_phone=phone_or_none(row.get("to")),
        history_status=(as_str(as_dict(row.get("history_context")).get("status")) or "").lower() or None,
    )


def _history_media(message: dict[str, Any], *, base: dict[str, Any]) -> HistoryMedia | Skipped:
    """A media asset for a history row sent earlier without one (``value.messages[]``)."""
    wa_message_id = as_str(message.get("id"))
    kind = as_str(message.get("type")) or "unknown"
    obj = as_dict(message.get(kind))
    media_id = as_str(obj.get("id"))
    if wa_message_id is None or kind not in MEDIA_TYPES or media_id is None:
        return Skipped(
            **base,
            change_field=HISTORY,
            what=f"{kind} message {wa_message_id or '(no id)'}",
            reason="a history message that is not a media asset with an id and a media id",
        )
    occurred_at, _ = epoch_to_datetime(message.get("timestamp"), fallback=base["occurred_at"])
    return HistoryMedia(
        **{**base, "occurred_at": occurred_at},
        wa_message_id=wa_message_id,
        message_type=kind,
        type_object=obj,
        media_id=media_id,
        media_mime_type=as_str(obj.get("mime_type")),
    )


def parse_history_change(value: dict[str, Any], *, base: dict[str, Any]) -> list[InboundItem]:
    """Every history row, thread by thread (unrecoverable rows become HistoryError items), then the media
    assets the upstream sends later for rows of media messages (``value.messages[]``)."""
    items: list[InboundItem] = []
    for chunk in as_list(value.get("history")):
        chunk = as_dict(chunk)
        meta = as_dict(chunk.get("metadata"))
        for thread in as_list(chunk.get("threads")):
            thread = as_dict(thread)
            for row in as_list(thread.get("messages")):
                items.append(_history_row(as_dict(row), thread=thread, chunk=meta, base=base))
        items.extend(parse_error(e, field=HISTORY, base=base) for e in as_list(chunk.get("errors")))
    items.extend(_history_media(as_dict(m), base=base) for m in as_list(value.get("messages")))
    items.extend(parse_error(e, field=HISTORY, base=base) for e in as_list(value.get("errors")))
    return items
