"""The per-type summary text, reply ids and media fields."""

from __future__ import annotations

from typing import Any

import pytest

from switchboard.domain.inbound.content import content_summary, reply_id


@pytest.mark.parametrize(
    ("message_type", "obj", "errors", "expected"),
    [
        ("text", {"body": "hello"}, None, "hello"),
        ("text", {}, None, None),
        ("image", {"id": "1", "caption": "cap"}, None, "cap"),
        ("image", {"id": "1"}, None, "[image]"),
        ("document", {"id": "1", "filename": "a.pdf"}, None, "a.pdf"),
        ("audio", {"id": "1"}, None, "[audio]"),
        ("location", {"latitude": 1.5, "longitude": -2}, None, "(1.5, -2)"),
        ("location", {"name": "HQ", "latitude": 1, "longitude": 2}, None, "HQ (1, 2)"),
        (
            "contacts",
            [{"name": {"formatted_name": "A B"}}, {"phones": [{"wa_id": "1555"}]}],
            None,
            "A B; 1555",
        ),
        ("contacts", [], None, None),
        ("interactive", {"type": "button_reply", "button_reply": {"id": "x", "title": "Yes"}}, None, "Yes"),
        ("interactive", {"type": "list_reply", "list_reply": {"id": "row-1"}}, None, "row-1"),
        ("interactive", {"type": "nfm_reply", "nfm_reply": {"name": "flow"}}, None, "flow"),
        ("interactive", {"type": "call_permission_reply"}, None, "call_permission_reply"),
        ("button", {"payload": "p", "text": "Tap"}, None, "Tap"),
        ("button", {"payload": "p"}, None, "p"),
        ("reaction", {"message_id": "w", "emoji": "\U0001f44d"}, None, "\U0001f44d"),
        ("reaction", {"message_id": "w", "emoji": ""}, None, None),
        ("order", {"catalog_id": "1"}, None, "[order]"),
        ("unsupported", None, [{"code": 131051, "title": "Message type unknown"}], "Message type unknown"),
        ("errors", None, [], None),
        ("request_welcome", None, None, None),
        ("edit", {"text": "edited"}, None, "edited"),
    ],
)
def test_content_summary(message_type: str, obj: Any, errors: list[Any] | None, expected: str | None) -> None:
    assert content_summary(message_type, obj, errors=errors) == expected


@pytest.mark.parametrize(
    ("message_type", "obj", "expected"),
    [
        ("button", {"payload": "callback_data", "text": "title"}, "callback_data"),
        (
            "interactive",
            {"type": "button_reply", "button_reply": {"id": "slot-am", "title": "Morning"}},
            "slot-am",
        ),
        ("interactive", {"type": "list_reply", "list_reply": {"id": "row", "title": "Row"}}, "row"),
        ("interactive", {"type": "nfm_reply", "nfm_reply": {"body": "Sent"}}, None),
        ("text", {"body": "slot-am"}, None),
    ],
)
def test_reply_id(message_type: str, obj: dict[str, Any], expected: str | None) -> None:
    assert reply_id(message_type, obj) == expected
