"""Envelope-level behaviour: dedup ids, malformed bodies, skipped fields, serialization, edge rows."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any

import pytest

from switchboard.domain.inbound import (
    ChannelError,
    HistoryError,
    HistoryMessage,
    IdentityChange,
    InboundMessage,
    InvalidWebhookEnvelope,
    Skipped,
    StatusUpdate,
    item_from_dict,
    item_to_dict,
    parse_envelope,
    payload_id,
)
from tests.fixtures.channel import FIXTURE_NAMES, load, raw

RECEIVED_AT = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)
META = {"display_phone_number": "15550783881", "phone_number_id": "106540352242922"}


def envelope(field: str, value: dict[str, Any]) -> dict[str, Any]:
    return {
        "object": "whatsapp_business_account",
        "entry": [{"id": "1", "changes": [{"field": field, "value": value}]}],
    }


def messages(
    *rows: dict[str, Any], contacts: list[dict[str, Any]] | None = None, **extra: Any
) -> dict[str, Any]:
    value: dict[str, Any] = {"metadata": META, "messages": list(rows), **extra}
    if contacts is not None:
        value["contacts"] = contacts
    return envelope("messages", value)


def test_payload_id_is_sha256_hex_of_raw_bytes() -> None:
    body = raw("text")
    assert payload_id(body) == hashlib.sha256(body).hexdigest()
    assert payload_id(body) == payload_id(bytes(body))
    assert payload_id(body + b" ") != payload_id(body)


@pytest.mark.parametrize("body", [b"not json", b"\xff\xfe", b"[1, 2]", b'"text"', b"null"])
def test_non_object_bodies_are_invalid(body: bytes) -> None:
    with pytest.raises(InvalidWebhookEnvelope) as caught:
        parse_envelope(body, received_at=RECEIVED_AT)
    assert caught.value.status_code == 400
    assert caught.value.code == "INVALID_WEBHOOK_PAYLOAD"


@pytest.mark.parametrize(
    "payload",
    [
        {"object": "page", "entry": [{"id": "1", "changes": [{"field": "messages", "value": {}}]}]},
        {"object": "whatsapp_business_account"},
        {"object": "whatsapp_business_account", "entry": "nope"},
        envelope("messages", {"metadata": META}),
    ],
)
def test_envelopes_without_handled_content_yield_nothing(payload: dict[str, Any]) -> None:
    assert parse_envelope(payload, received_at=RECEIVED_AT) == []


@pytest.mark.parametrize(
    ("field", "change"), [("calls", {"field": "calls", "value": {}}), ("", {"value": {}})]
)
def test_a_change_field_the_service_does_not_use_is_one_skipped_item_saying_so(
    field: str, change: dict[str, Any]
) -> None:
    payload = {"object": "whatsapp_business_account", "entry": [{"id": "1", "changes": [change]}]}
    (item,) = parse_envelope(payload, received_at=RECEIVED_AT)
    assert isinstance(item, Skipped)
    assert (item.change_field, item.what, item.reason) == (
        field,
        "change",
        "a field the service does not use",
    )


def test_unknown_fields_are_ignored() -> None:
    payload = messages(
        {
            "from": "16505551234",
            "id": "wamid.1",
            "timestamp": "1697043223",
            "type": "text",
            "text": {"body": "hi", "future": 1},
            "brand_new": {"x": 1},
        },
        surprise=[1, 2],
    )
    payload["entry"][0]["brand_new"] = True
    (item,) = parse_envelope(payload, received_at=RECEIVED_AT)
    assert isinstance(item, InboundMessage)
    assert item.content == "hi"
    assert item.type_object == {"body": "hi", "future": 1}


@pytest.mark.parametrize(
    ("timestamp", "expected"),
    [
        ("1697043223", datetime(2023, 10, 11, 16, 53, 43, tzinfo=UTC)),
        (1697043223, datetime(2023, 10, 11, 16, 53, 43, tzinfo=UTC)),
        (None, RECEIVED_AT),
        ("soon", RECEIVED_AT),
        ("-5", RECEIVED_AT),
    ],
)
def test_occurred_at_comes_from_the_epoch_timestamp_or_the_receive_time(
    timestamp: Any, expected: datetime
) -> None:
    row = {"from": "16505551234", "id": "wamid.1", "type": "text", "text": {"body": "x"}}
    if timestamp is not None:
        row["timestamp"] = timestamp
    (item,) = parse_envelope(messages(row), received_at=RECEIVED_AT)
    assert item.occurred_at == expected
    assert item.occurred_at.tzinfo is not None
    assert item.timestamp == str(int(expected.timestamp()))


def test_rows_without_ids_are_skipped_with_the_reason_and_others_in_the_batch_survive() -> None:
    payload = messages(
        {"from": "16505551234", "timestamp": "1", "type": "text", "text": {"body": "no id"}},
        {"from": "16505551234", "id": "wamid.ok", "timestamp": "1", "type": "text", "text": {"body": "ok"}},
        "garbage",
        statuses=[
            {"status": "read"},
            {"id": "wamid.x"},
            {"id": "wamid.y", "status": "DELIVERED", "timestamp": "2"},
        ],
    )
    items = parse_envelope(payload, received_at=RECEIVED_AT)
    applied = [i for i in items if not isinstance(i, Skipped)]
    assert [(type(i).__name__, i.wa_message_id) for i in applied] == [
        ("InboundMessage", "wamid.ok"),
        ("StatusUpdate", "wamid.y"),
    ]
    assert applied[1].status == "delivered"
    assert [(i.what, i.reason) for i in items if isinstance(i, Skipped)] == [
        ("text message", "it has no id"),
        ("unknown message", "it has no id"),
        ("status read of (no id)", "no id or status"),
        ("status (none) of wamid.x", "no id or status"),
    ]


def test_sender_is_matched_to_its_own_contacts_entry() -> None:
    contacts = [
        {"profile": {"name": "Ann"}, "wa_id": "447700900001", "user_id": "GB.1"},
        {"profile": {"name": "Bob", "username": "bob"}, "wa_id": "447700900002", "user_id": "GB.2"},
    ]
    payload = messages(
        {"from": "447700900002", "id": "wamid.b", "timestamp": "1", "type": "text", "text": {"body": "b"}},
        {"from_user_id": "GB.1", "id": "wamid.a", "timestamp": "1", "type": "text", "text": {"body": "a"}},
        {"from": "447700900009", "id": "wamid.c", "timestamp": "1", "type": "text", "text": {"body": "c"}},
        contacts=contacts,
    )
    bob, ann, stranger = parse_envelope(payload, received_at=RECEIVED_AT)
    assert (bob.profile_name, bob.username, bob.bsuid) == ("Bob", "bob", "GB.2")
    assert (ann.profile_name, ann.from_phone, ann.bsuid) == ("Ann", None, "GB.1")
    assert (stranger.profile_name, stranger.bsuid) == (None, None)


@pytest.mark.parametrize(
    ("origin", "phones", "expected_phone"),
    [
        ("contact_request", [{"phone": "+54 9 11 2345-6789", "wa_id": "5491123456789"}], "541123456789"),
        ("contact_request", [{"phone": "+1 650-555-1234"}], "16505551234"),
        ("contact_request", [], None),
        ("other", [{"phone": "+1 650-555-1234", "wa_id": "16505551234"}], None),
        (None, [{"phone": "+1 650-555-1234", "wa_id": "16505551234"}], None),
    ],
)
def test_only_contact_request_answers_yield_a_shared_phone(
    origin: str | None, phones: list[dict[str, str]], expected_phone: str | None
) -> None:
    card: dict[str, Any] = {"phones": phones}
    if origin:
        card["origin"] = origin
    payload = messages(
        {"from_user_id": "US.1", "id": "wamid.s", "timestamp": "1", "type": "contacts", "contacts": [card]}
    )
    items = parse_envelope(payload, received_at=RECEIVED_AT)
    assert isinstance(items[0], InboundMessage)
    shared = [i.phone for i in items[1:]]
    assert shared == ([expected_phone] if expected_phone else [])


def test_change_level_errors_become_channel_errors() -> None:
    payload = envelope(
        "messages",
        {
            "metadata": META,
            "errors": [
                {
                    "code": 131000,
                    "title": "Something went wrong",
                    "message": "m",
                    "error_data": {"details": "d"},
                }
            ],
        },
    )
    (item,) = parse_envelope(payload, received_at=RECEIVED_AT)
    assert isinstance(item, ChannelError)
    assert (item.change_field, item.code, item.title, item.message, item.details) == (
        "messages",
        131000,
        "Something went wrong",
        "m",
        "d",
    )
    assert item.occurred_at == RECEIVED_AT


@pytest.mark.parametrize(
    ("row", "expected_type", "direction"),
    [
        (
            {
                "from": "15550783881",
                "to": "16505551234",
                "id": "w1",
                "timestamp": "1",
                "type": "text",
                "text": {"body": "x"},
            },
            HistoryMessage,
            "outbound",
        ),
        (
            {"to": "16505551234", "id": "w2", "timestamp": "1", "type": "text", "text": {"body": "x"}},
            HistoryMessage,
            "outbound",
        ),
        (
            {"from": "16505551234", "id": "w3", "timestamp": "1", "type": "text", "text": {"body": "x"}},
            HistoryMessage,
            "inbound",
        ),
        (
            {"from": "16505551234", "timestamp": "1", "type": "text", "text": {"body": "no id"}},
            HistoryError,
            "inbound",
        ),
        ({"from": "16505551234", "id": "w4", "timestamp": "1"}, HistoryError, "inbound"),
        (
            {"from": "16505551234", "id": "w5", "timestamp": "1", "type": "unsupported"},
            HistoryError,
            "inbound",
        ),
        (
            {
                "from": "16505551234",
                "id": "w6",
                "timestamp": "1",
                "type": "text",
                "text": {"body": "x"},
                "errors": [{"code": 1}],
            },
            HistoryError,
            "inbound",
        ),
    ],
)
def test_history_rows(row: dict[str, Any], expected_type: type, direction: str) -> None:
    value = {
        "metadata": META,
        "history": [{"metadata": {"phase": 2}, "threads": [{"id": "16505551234", "messages": [row]}]}],
    }
    (item,) = parse_envelope(envelope("history", value), received_at=RECEIVED_AT)
    assert type(item) is expected_type
    assert item.direction == direction
    assert item.status == "historical"
    assert item.phase == 2
    if isinstance(item, HistoryError):
        assert (item.message_type, item.error_title) == ("errors", "history_import_error")
        assert item.raw == row


def test_both_upstream_signals_of_one_rotation_share_a_dedup_key() -> None:
    (from_update,) = parse_envelope(raw("user_id_update"), received_at=RECEIVED_AT)
    (from_system,) = parse_envelope(raw("system_user_changed_user_id"), received_at=RECEIVED_AT)
    assert isinstance(from_update, IdentityChange) and isinstance(from_system, IdentityChange)
    assert from_update.dedup_key() == from_system.dedup_key()


def test_status_dedup_key_is_wamid_plus_status() -> None:
    # The batch holds two messages and a template change before its two statuses.
    delivered, read = parse_envelope(raw("batch"), received_at=RECEIVED_AT)[3:5]
    assert isinstance(delivered, StatusUpdate)
    assert delivered.dedup_key() == "status:wamid.out01:delivered"
    assert read.dedup_key() == "status:wamid.out01:read"


def all_items():
    return [item for name in FIXTURE_NAMES for item in parse_envelope(raw(name), received_at=RECEIVED_AT)]


@pytest.mark.parametrize("item", all_items(), ids=lambda i: f"{i.kind}:{i.dedup_key()}")
def test_items_round_trip_through_json(item: Any) -> None:
    data = json.loads(json.dumps(item_to_dict(item)))
    assert data["kind"] == item.kind
    assert item_from_dict(data) == item


def test_item_from_dict_refuses_unknown_kinds() -> None:
    with pytest.raises(ValueError, match="unknown inbound item kind"):
        item_from_dict({"kind": "nope", "occurred_at": RECEIVED_AT.isoformat()})


def test_parse_accepts_a_decoded_dict_like_the_raw_bytes() -> None:
    assert parse_envelope(load("image"), received_at=RECEIVED_AT) == parse_envelope(
        raw("image"), received_at=RECEIVED_AT
    )
