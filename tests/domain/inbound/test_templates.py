"""Template webhooks (status, quality, category) parse into TemplateUpdate items keyed for order."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from switchboard.domain.inbound import TemplateUpdate, parse_envelope

RECEIVED_AT = datetime(2026, 1, 1, tzinfo=UTC)
WABA = "102290129340398"


def envelope(field: str, value: dict[str, Any], *, time: int | None = 1751247548) -> bytes:
    entry: dict[str, Any] = {"id": WABA, "changes": [{"field": field, "value": value}]}
    if time is not None:
        entry["time"] = time
    return json.dumps({"object": "whatsapp_business_account", "entry": [entry]}).encode()


STATUS = {
    "event": "REJECTED",
    "message_template_id": 1689556908129835,
    "message_template_name": "abandoned_cart",
    "message_template_language": "en",
    "reason": "INVALID_FORMAT",
    "message_template_category": "MARKETING",
    "rejection_info": {"reason": "...", "recommendation": "..."},
}
QUALITY = {
    "previous_quality_score": "GREEN",
    "new_quality_score": "YELLOW",
    "message_template_id": 806312974732579,
    "message_template_name": "welcome_template",
    "message_template_language": "en-US",
}
CATEGORY = {
    "message_template_id": 12345678,
    "message_template_name": "my_message_template",
    "message_template_language": "he",
    "previous_category": "UTILITY",
    "new_category": "MARKETING",
}


@pytest.mark.parametrize(
    ("field", "value", "expected", "key"),
    [
        (
            "message_template_status_update",
            STATUS,
            {
                "attribute": "status",
                "template_id": "1689556908129835",
                "event": "REJECTED",
                "category": "MARKETING",
            },
            "template_status:1689556908129835:001751247548:REJECTED",
        ),
        (
            "message_template_quality_update",
            QUALITY,
            {"attribute": "quality", "language": "en_US", "new_quality_score": "YELLOW"},
            "template_quality:806312974732579:001751247548:YELLOW",
        ),
        (
            "template_category_update",
            CATEGORY,
            {"attribute": "category", "category": "MARKETING", "previous_category": "UTILITY"},
            "template_category:12345678:001751247548:MARKETING",
        ),
    ],
)
def test_template_change_fields_parse(
    field: str, value: dict[str, Any], expected: dict[str, Any], key: str
) -> None:
    (item,) = parse_envelope(envelope(field, value), received_at=RECEIVED_AT)
    assert isinstance(item, TemplateUpdate)
    assert (item.waba_id, item.phone_number_id, item.change_field) == (WABA, None, field)
    assert item.occurred_at == datetime.fromtimestamp(1751247548, tz=UTC)
    for name, wanted in expected.items():
        assert getattr(item, name) == wanted, name
    assert item.dedup_key() == key


def test_keys_sort_by_time_within_one_template_attribute() -> None:
    (older,) = parse_envelope(
        envelope("message_template_status_update", STATUS, time=999), received_at=RECEIVED_AT
    )
    (newer,) = parse_envelope(
        envelope("message_template_status_update", STATUS, time=1000), received_at=RECEIVED_AT
    )
    assert isinstance(older, TemplateUpdate) and isinstance(newer, TemplateUpdate)
    assert older.order_prefix() == newer.order_prefix()
    assert older.dedup_key() < newer.dedup_key()


def test_without_a_time_the_receipt_time_stands_in_and_without_an_id_name_and_language_do() -> None:
    value = {k: v for k, v in STATUS.items() if k != "message_template_id"}
    (item,) = parse_envelope(
        envelope("message_template_status_update", value, time=None), received_at=RECEIVED_AT
    )
    assert isinstance(item, TemplateUpdate)
    assert item.occurred_at == RECEIVED_AT
    assert item.order_prefix() == "template_status:abandoned_cart:en:"


@pytest.mark.parametrize(
    "value",
    [
        {"event": "APPROVED"},
        {"message_template_name": "x", "event": "APPROVED"},
        {"message_template_id": 1},
        {"message_template_id": 1, "event": "  "},
    ],
    ids=["no-template", "no-language", "no-event", "blank-event"],
)
def test_changes_that_name_no_template_or_no_value_are_skipped(value: dict[str, Any]) -> None:
    assert parse_envelope(envelope("message_template_status_update", value), received_at=RECEIVED_AT) == []
