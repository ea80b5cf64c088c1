"""Reading a whole Cloud API webhook envelope into normalized items.

``object`` must be ``whatsapp_business_account``; every ``entry[]`` and every
``changes[]`` is walked (the upstream batches up to 1,000 updates per POST).
Template status, quality and category changes become ``TemplateUpdate`` items
(so an approval upstream unblocks sends without a manual sync). Change fields
this service does not act on (account, phone quality, ``smb_app_state_sync``
...) are skipped, and unknown keys are ignored, so a new upstream field never
turns a delivery into an error.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

from switchboard.domain.errors import ValidationFailed
from switchboard.domain.inbound.coexistence import parse_echoes_change, parse_history_change
from switchboard.domain.inbound.content import as_dict, as_list, as_str, epoch_to_datetime, phone_or_none
from switchboard.domain.inbound.items import IdentityChange, InboundItem, Skipped, UsernameUpdate
from switchboard.domain.inbound.messages import parse_messages_change
from switchboard.domain.inbound.templates import TEMPLATE_CHANGE_FIELDS, parse_template_change
from switchboard.domain.nul_text import might_hold_nul, strip_nul

ENVELOPE_OBJECT = "whatsapp_business_account"


class InvalidWebhookEnvelope(ValidationFailed):
    """400: the body is not a JSON Cloud API webhook envelope."""

    default_code = "INVALID_WEBHOOK_PAYLOAD"


def payload_id(raw_body: bytes) -> str:
    """The deduplication id of a raw webhook body: its SHA-256 in hex."""
    return hashlib.sha256(raw_body).hexdigest()


def decode_body(raw_body: bytes) -> dict[str, Any]:
    """Parse the raw body into the envelope object, refusing anything that is not a JSON object."""
    try:
        data = json.loads(raw_body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidWebhookEnvelope("webhook body is not valid JSON") from exc
    if not isinstance(data, dict):
        raise InvalidWebhookEnvelope("webhook body must be a JSON object")
    if might_hold_nul(raw_body):
        # A U+0000 in a customer's text would fail every insert on PostgreSQL (text and JSONB
        # refuse it) and the envelope would retry forever: drop the character, keep the message.
        data = strip_nul(data)
    return data


def _user_id_updates(value: dict[str, Any], *, base: dict[str, Any]) -> list[InboundItem]:
    items: list[InboundItem] = []
    for update in as_list(value.get("user_id_update")):
        update = as_dict(update)
        user_id = as_dict(update.get("user_id"))
        current = as_str(user_id.get("current"))
        if current is None:
            continue
        parent = as_dict(update.get("parent_user_id"))
        occurred_at, _ = epoch_to_datetime(update.get("timestamp"), fallback=base["occurred_at"])
        items.append(
            IdentityChange(
                **{**base, "occurred_at": occurred_at},
                wa_id=as_str(update.get("wa_id")),
                phone=phone_or_none(update.get("wa_id")),
                previous_user_id=as_str(user_id.get("previous")),
                current_user_id=current,
                previous_parent_user_id=as_str(parent.get("previous")),
                current_parent_user_id=as_str(parent.get("current")),
                source="user_id_update",
            )
        )
    return items


def _username_updates(value: dict[str, Any], *, base: dict[str, Any]) -> list[InboundItem]:
    status = as_str(value.get("status"))
    if status is None:
        return []
    return [
        UsernameUpdate(
            **base,
            username=as_str(value.get("username")),
            status=status.lower(),
        )
    ]


_CHANGE_PARSERS: dict[str, Callable[..., list[InboundItem]]] = {
    "messages": parse_messages_change,
    "smb_message_echoes": parse_echoes_change,
    "history": parse_history_change,
    "user_id_update": _user_id_updates,
    "business_username_updates": _username_updates,
    **{field: parse_template_change(field) for field in TEMPLATE_CHANGE_FIELDS},
}


def parse_envelope(payload: dict[str, Any] | bytes, *, received_at: datetime) -> list[InboundItem]:
    """Normalize one webhook envelope into items, in upstream order.

    ``received_at`` (aware UTC) stands in for any timestamp the upstream left out.
    An envelope for another ``object`` yields no items.
    """
    envelope = decode_body(payload) if isinstance(payload, bytes) else payload
    if not isinstance(envelope, dict):
        raise InvalidWebhookEnvelope("webhook body must be a JSON object")
    if envelope.get("object") != ENVELOPE_OBJECT:
        return []
    items: list[InboundItem] = []
    for entry in as_list(envelope.get("entry")):
        entry = as_dict(entry)
        entry_time, _ = epoch_to_datetime(entry.get("time"), fallback=received_at)
        for change in as_list(entry.get("changes")):
            change = as_dict(change)
            field = as_str(change.get("field")) or ""
            parser = _CHANGE_PARSERS.get(field)
            value = as_dict(change.get("value"))
            metadata = as_dict(value.get("metadata"))
            base: dict[str, Any] = {
                "phone_number_id": as_str(metadata.get("phone_number_id")),
                "display_phone_number": as_str(metadata.get("display_phone_number"))
                or as_str(value.get("display_phone_number")),
                "waba_id": as_str(entry.get("id")),
                "occurred_at": entry_time,
            }
            if parser is None:
                items.append(
                    Skipped(
                        **base, change_field=field, what="change", reason="a field the service does not use"
                    )
                )
                continue
            items.extend(parser(value, base=base))
    return items
