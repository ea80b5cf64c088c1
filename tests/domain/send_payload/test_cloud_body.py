from __future__ import annotations

from typing import Any

import pytest

from switchboard.domain.send_payload import cloud_api_body, parse_send_request, with_media_id

PNID = "106540352242922"
HEAD = {"messaging_product": "whatsapp", "recipient_type": "individual", "to": "+14155550123"}

BUTTON_ACTION = {
    "buttons": [
        {"type": "reply", "reply": {"id": "slot-am", "title": "Morning"}},
        {"type": "reply", "reply": {"id": "slot-pm", "title": "Afternoon"}},
    ]
}
LIST_ACTION = {
    "button": "Choose",
    "sections": [
        {
            "title": "Fast",
            "rows": [
                {"id": "express", "title": "Express", "description": "Next day"},
                {"id": "mail", "title": "Priority Mail"},
            ],
        }
    ],
}
CONTACT: dict[str, Any] = {
    "name": {"formatted_name": "Barbara J. Johnson", "first_name": "Barbara", "last_name": "Johnson"},
    "phones": [{"phone": "+1 (650) 555-1234", "type": "WORK", "wa_id": "16505551234"}],
    "emails": [{"email": "b@example.com", "type": "WORK"}],
    "org": {"company": "Lucky Shrimp"},
}

CASES: list[tuple[str, Any, Any]] = [
    ("text", {"body": "hi", "preview_url": True}, {"body": "hi", "preview_url": True}),
    ("text", {"body": "hi"}, {"body": "hi"}),
    (
        "image",
        {"id": "1479537139650973", "caption": "Succulent"},
        {"id": "1479537139650973", "caption": "Succulent"},
    ),
    ("image", {"link": "https://e.com/a.jpg"}, {"link": "https://e.com/a.jpg"}),
    (
        "video",
        {"link": "https://e.com/c.mp4", "caption": "Clip"},
        {"link": "https://e.com/c.mp4", "caption": "Clip"},
    ),
    ("audio", {"id": "55"}, {"id": "55"}),
    (
        "document",
        {"link": "https://e.com/i.pdf", "caption": "Invoice", "filename": "invoice-123.pdf"},
        {"link": "https://e.com/i.pdf", "caption": "Invoice", "filename": "invoice-123.pdf"},
    ),
    ("sticker", {"link": "https://e.com/s.webp"}, {"link": "https://e.com/s.webp"}),
    (
        "location",
        {"latitude": 37.44, "longitude": -122, "name": "Philz Coffee", "address": "101 Forest Ave"},
        {"latitude": 37.44, "longitude": -122.0, "name": "Philz Coffee", "address": "101 Forest Ave"},
    ),
    ("location", {"latitude": 0, "longitude": 0}, {"latitude": 0.0, "longitude": 0.0}),
    ("contacts", [CONTACT], [CONTACT]),
    (
        "interactive",
        {
            "type": "button",
            "header": {"type": "text", "text": "Order #123"},
            "body": {"text": "Confirm delivery slot?"},
            "footer": {"text": "Lucky Shrimp"},
            "action": BUTTON_ACTION,
        },
        {
            "type": "button",
            "header": {"type": "text", "text": "Order #123"},
            "body": {"text": "Confirm delivery slot?"},
            "footer": {"text": "Lucky Shrimp"},
            "action": BUTTON_ACTION,
        },
    ),
    (
        "interactive",
        {"type": "list", "body": {"text": "Which option?"}, "action": LIST_ACTION},
        {"type": "list", "body": {"text": "Which option?"}, "action": LIST_ACTION},
    ),
    (
        "interactive",
        {
            "type": "location_request_message",
            "body": {"text": "Pickup?"},
            "action": {"name": "send_location"},
        },
        {
            "type": "location_request_message",
            "body": {"text": "Pickup?"},
            "action": {"name": "send_location"},
        },
    ),
    (
        "interactive",
        {
            "type": "request_contact_info",
            "body": {"text": "Phone?"},
            "action": {"name": "request_contact_info"},
        },
        {
            "type": "request_contact_info",
            "body": {"text": "Phone?"},
            "action": {"name": "request_contact_info"},
        },
    ),
    (
        "reaction",
        {"message_id": "wamid.HBg", "emoji": "\U0001f600"},
        {"message_id": "wamid.HBg", "emoji": "\U0001f600"},
    ),
    ("reaction", {"message_id": "wamid.HBg", "emoji": ""}, {"message_id": "wamid.HBg", "emoji": ""}),
    (
        "template",
        {"name": "hello_world", "language": {"code": "en_US"}},
        {"name": "hello_world", "language": {"code": "en_US"}},
    ),
    (
        "template",
        {
            "name": "order_confirmation",
            "language": {"code": "en_US"},
            "components": [
                {
                    "type": "body",
                    "parameters": [{"type": "text", "text": "Jessica"}, {"type": "text", "text": "SKB"}],
                }
            ],
        },
        {
            "name": "order_confirmation",
            "language": {"code": "en_US"},
            "components": [
                {
                    "type": "body",
                    "parameters": [{"type": "text", "text": "Jessica"}, {"type": "text", "text": "SKB"}],
                }
            ],
        },
    ),
    (
        "template",
        {
            "name": "shipping_update",
            "language": "en_US",
            "components": [
                {
                    "type": "button",
                    "sub_type": "quick_reply",
                    "index": 0,
                    "parameters": [{"type": "payload", "payload": "STOP"}],
                },
                {
                    "type": "BODY",
                    "parameters": [
                        {"type": "text", "text": "Pablo"},
                        {
                            "type": "currency",
                            "currency": {"fallback_value": "$100.99", "code": "USD", "amount_1000": 100990},
                        },
                        {"type": "date_time", "date_time": {"fallback_value": "February 25, 1977"}},
                    ],
                },
                {
                    "type": "header",
                    "parameters": [{"type": "image", "image": {"link": "https://e.com/box.jpg"}}],
                },
                {
                    "type": "button",
                    "sub_type": "url",
                    "index": "1",
                    "parameters": [{"type": "text", "text": "order%2F123"}],
                },
            ],
        },
        {
            "name": "shipping_update",
            "language": {"code": "en_US"},
            "components": [
                {
                    "type": "header",
                    "parameters": [{"type": "image", "image": {"link": "https://e.com/box.jpg"}}],
                },
                {
                    "type": "body",
                    "parameters": [
                        {"type": "text", "text": "Pablo"},
                        {
                            "type": "currency",
                            "currency": {"fallback_value": "$100.99", "code": "USD", "amount_1000": 100990},
                        },
                        {"type": "date_time", "date_time": {"fallback_value": "February 25, 1977"}},
                    ],
                },
                {
                    "type": "button",
                    "sub_type": "quick_reply",
                    "index": "0",
                    "parameters": [{"type": "payload", "payload": "STOP"}],
                },
                {
                    "type": "button",
                    "sub_type": "url",
                    "index": "1",
                    "parameters": [{"type": "text", "text": "order%2F123"}],
                },
            ],
        },
    ),
    (
        "template",
        {
            "name": "order_confirmation",
            "language": {"code": "en_US"},
            "header_named_param": {"order_number": "860198"},
            "body_named_params": {"first_name": "Jessica", "order_number": 860198},
        },
        {
            "name": "order_confirmation",
            "language": {"code": "en_US"},
            "components": [
                {
                    "type": "header",
                    "parameters": [{"type": "text", "parameter_name": "order_number", "text": "860198"}],
                },
                {
                    "type": "body",
                    "parameters": [
                        {"type": "text", "parameter_name": "first_name", "text": "Jessica"},
                        {"type": "text", "parameter_name": "order_number", "text": "860198"},
                    ],
                },
            ],
        },
    ),
    (
        "template",
        {
            "name": "order_confirmation",
            "language": {"code": "en_US", "policy": "deterministic"},
            "components": [
                {
                    "type": "body",
                    "parameters": [{"type": "text", "parameter_name": "first_name", "text": "Jessica"}],
                }
            ],
        },
        {
            "name": "order_confirmation",
            "language": {"code": "en_US", "policy": "deterministic"},
            "components": [
                {
                    "type": "body",
                    "parameters": [{"type": "text", "parameter_name": "first_name", "text": "Jessica"}],
                }
            ],
        },
    ),
]


@pytest.mark.parametrize(("message_type", "obj", "expected"), CASES, ids=[c[0] for c in CASES])
def test_cloud_api_body_per_type(message_type: str, obj: Any, expected: Any) -> None:
    parsed = parse_send_request(
        {"phone_number_id": PNID, "to": "14155550123", "type": message_type, message_type: obj}
    )
    assert cloud_api_body(parsed) == {**HEAD, "type": message_type, message_type: expected}


def test_bsuid_addressing_uses_recipient() -> None:
    parsed = parse_send_request(
        {"phone_number_id": PNID, "recipient": "US.ENT.1181", "type": "text", "text": {"body": "hi"}}
    )
    assert cloud_api_body(parsed) == {
        "messaging_product": "whatsapp",
        "recipient_type": "individual",
        "recipient": "US.ENT.1181",
        "type": "text",
        "text": {"body": "hi"},
    }


def test_to_wins_over_recipient_in_the_upstream_body() -> None:
    parsed = parse_send_request(
        {
            "phone_number_id": PNID,
            "to": "14155550123",
            "recipient": "US.1",
            "type": "text",
            "text": {"body": "hi"},
        }
    )
    body = cloud_api_body(parsed)
    assert body["to"] == "+14155550123"
    assert "recipient" not in body


def test_reply_context() -> None:
    parsed = parse_send_request(
        {
            "phone_number_id": PNID,
            "to": "14155550123",
            "type": "text",
            "text": {"body": "ok"},
            "context": {"message_id": "wamid.Q"},
        }
    )
    assert cloud_api_body(parsed) == {
        **HEAD,
        "context": {"message_id": "wamid.Q"},
        "type": "text",
        "text": {"body": "ok"},
    }


@pytest.mark.parametrize(
    ("given", "first", "retry"),
    [
        ("5491122334455", "+541122334455", "+5491122334455"),
        ("541122334455", "+541122334455", "+5491122334455"),
        ("5215512345678", "+525512345678", "+5215512345678"),
        ("551198765432", "+5511998765432", "+551198765432"),
    ],
)
def test_canonical_first_then_alternate_after_131030(given: str, first: str, retry: str) -> None:
    from switchboard.domain.phone import alternate_form, canonical_phone

    parsed = parse_send_request({"phone_number_id": PNID, "to": given, "type": "text", "text": {"body": "x"}})
    assert cloud_api_body(parsed)["to"] == first
    alternate = alternate_form(canonical_phone(given))
    assert alternate is not None
    assert cloud_api_body(parsed, to=alternate)["to"] == retry


def test_with_media_id_replaces_link() -> None:
    parsed = parse_send_request(
        {
            "phone_number_id": PNID,
            "to": "14155550123",
            "type": "image",
            "image": {"link": "https://e.com/a.jpg", "caption": "c"},
        }
    )
    assert cloud_api_body(with_media_id(parsed, "999"))["image"] == {"id": "999", "caption": "c"}
    text = parse_send_request(
        {"phone_number_id": PNID, "to": "14155550123", "type": "text", "text": {"body": "x"}}
    )
    with pytest.raises(ValueError):
        with_media_id(text, "1")
