from __future__ import annotations

import json
from typing import Any

import pytest

from switchboard.domain.errors import ValidationFailed
from switchboard.domain.send_payload import SendRequest, parse_send_request

PNID = "106540352242922"


def send(message_type: str, obj: Any, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"phone_number_id": PNID, "to": "14155550123", "type": message_type, **extra}
    if obj is not None:
        body[message_type] = obj
    return body


def buttons(count: int) -> list[dict[str, Any]]:
    return [{"type": "reply", "reply": {"id": f"b{i}", "title": f"Option {i}"}} for i in range(count)]


def rows(count: int, prefix: str = "r") -> list[dict[str, Any]]:
    return [{"id": f"{prefix}{i}", "title": f"Row {i}"} for i in range(count)]


def list_obj(*sections: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "type": "list",
        "body": {"text": "Pick"},
        "action": {
            "button": "Choose",
            "sections": [{"title": f"S{i}", "rows": r} for i, r in enumerate(sections)],
        },
    }


VALID = [
    send("text", {"body": "hello", "preview_url": True}),
    send("template", {"name": "order", "language": {"code": "en_US"}}),
    send("template", {"name": "order", "language": "en", "body_named_params": {"first_name": "Ana"}}),
    send("image", {"link": "https://example.com/a.jpg", "caption": "A"}),
    send("video", {"id": "1479537139650973"}),
    send("audio", {"id": "1479537139650973"}),
    send("document", {"link": "https://example.com/i.pdf", "filename": "i.pdf", "caption": "Invoice"}),
    send("sticker", {"link": "https://example.com/s.webp"}),
    send("location", {"latitude": -34.6, "longitude": -58.4, "name": "Obelisco", "address": "CABA"}),
    send("location", {"latitude": 90, "longitude": -180}),
    send(
        "contacts",
        [{"name": {"formatted_name": "Ana B", "first_name": "Ana"}, "phones": [{"phone": "+1 415"}]}],
    ),
    send("interactive", {"type": "button", "body": {"text": "Pick"}, "action": {"buttons": buttons(3)}}),
    send("interactive", list_obj(rows(4), rows(6, "s"))),
    send(
        "interactive",
        {"type": "location_request_message", "body": {"text": "Where?"}, "action": {"name": "send_location"}},
    ),
    send(
        "interactive",
        {
            "type": "request_contact_info",
            "body": {"text": "Phone?"},
            "action": {"name": "request_contact_info"},
        },
    ),
    send("reaction", {"message_id": "wamid.X", "emoji": "\U0001f600"}),
    send("reaction", {"message_id": "wamid.X", "emoji": ""}),
]


@pytest.mark.parametrize("body", VALID, ids=lambda b: b["type"])
def test_valid_bodies_parse_and_round_trip(body: dict[str, Any]) -> None:
    parsed = parse_send_request(body)
    assert parsed.type == body["type"]
    assert parsed.phone_number_id == PNID
    assert parsed.to == "14155550123"
    dumped = json.loads(json.dumps(parsed.model_dump(mode="json")))
    assert SendRequest.model_validate(dumped) == parsed


def test_recipient_only_uses_bsuid() -> None:
    parsed = parse_send_request(
        {
            "phone_number_id": PNID,
            "recipient": "US.13491208655302741918",
            "type": "text",
            "text": {"body": "x"},
        }
    )
    assert parsed.to is None
    assert parsed.recipient == "US.13491208655302741918"
    assert parsed.uses_bsuid


def test_to_wins_when_both_are_sent() -> None:
    parsed = parse_send_request(send("text", {"body": "x"}, recipient="US.1349"))
    assert parsed.to == "14155550123"
    assert parsed.recipient == "US.1349"
    assert not parsed.uses_bsuid


def test_to_wins_and_a_malformed_recipient_beside_it_is_ignored() -> None:
    parsed = parse_send_request(send("text", {"body": "x"}, recipient="garbage"))
    assert parsed.to == "14155550123"
    assert parsed.recipient is None


def test_context_reply() -> None:
    parsed = parse_send_request(send("text", {"body": "x"}, context={"message_id": "wamid.A"}))
    assert parsed.context is not None and parsed.context.message_id == "wamid.A"


def test_phone_number_id_as_json_number_is_accepted() -> None:
    body = send("text", {"body": "x"})
    body["phone_number_id"] = 106540352242922
    assert parse_send_request(body).phone_number_id == PNID


def without(body: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k != key}


INVALID: list[tuple[str, Any, str, str | None]] = [
    # (case id, body, code, details.field)
    ("body not object", ["x"], "VALIDATION_FAILED", None),
    (
        "no phone_number_id",
        without(send("text", {"body": "x"}), "phone_number_id"),
        "MISSING_REQUIRED_FIELD",
        "phone_number_id",
    ),
    (
        "display number as id",
        send("text", {"body": "x"}, phone_number_id="+1 555 0100"),
        "INVALID_PHONE_NUMBER_ID",
        "phone_number_id",
    ),
    ("no to nor recipient", without(send("text", {"body": "x"}), "to"), "MISSING_REQUIRED_FIELD", "to"),
    ("blank to, no recipient", send("text", {"body": "x"}, to="  "), "MISSING_REQUIRED_FIELD", "to"),
    ("to with plus", send("text", {"body": "x"}, to="+14155550123"), "INVALID_E164", "to"),
    ("to too short", send("text", {"body": "x"}, to="1234567"), "INVALID_PHONE_NUMBER", "to"),
    (
        "bad recipient",
        {**without(send("text", {"body": "x"}), "to"), "recipient": "X-1"},
        "INVALID_RECIPIENT",
        "recipient",
    ),
    ("no type", without(send("text", {"body": "x"}), "type"), "MISSING_REQUIRED_FIELD", "type"),
    ("unknown type", send("poll", {"q": 1}), "INVALID_MESSAGE_TYPE", "type"),
    ("upper-case type", send("TEXT", {"body": "x"}), "INVALID_MESSAGE_TYPE", "type"),
    ("text object missing", send("text", None), "MISSING_REQUIRED_FIELD", "text.body"),
    ("text as string", send("text", "hello"), "VALIDATION_FAILED", "text"),
    ("text body empty", send("text", {"body": ""}), "MISSING_REQUIRED_FIELD", "text.body"),
    ("text body too long", send("text", {"body": "x" * 4097}), "VALIDATION_FAILED", "text.body"),
    (
        "preview_url not bool",
        send("text", {"body": "x", "preview_url": "yes"}),
        "VALIDATION_FAILED",
        "text.preview_url",
    ),
    (
        "context without id",
        send("text", {"body": "x"}, context={}),
        "MISSING_REQUIRED_FIELD",
        "context.message_id",
    ),
    ("image object missing", send("image", None), "MISSING_REQUIRED_FIELD", "image.link"),
    ("image neither link nor id", send("image", {"caption": "c"}), "MISSING_REQUIRED_FIELD", "image.link"),
    (
        "image both link and id",
        send("image", {"link": "https://e.com/a.jpg", "id": "1"}),
        "VALIDATION_FAILED",
        "image",
    ),
    ("image link not http", send("image", {"link": "ftp://e.com/a.jpg"}), "VALIDATION_FAILED", "image.link"),
    ("audio with caption", send("audio", {"id": "1", "caption": "c"}), "VALIDATION_FAILED", "audio.caption"),
    (
        "sticker with caption",
        send("sticker", {"link": "https://e.com/s.webp", "caption": "c"}),
        "VALIDATION_FAILED",
        "sticker.caption",
    ),
    (
        "image with filename",
        send("image", {"id": "1", "filename": "a.jpg"}),
        "VALIDATION_FAILED",
        "image.filename",
    ),
    (
        "caption too long",
        send("video", {"id": "1", "caption": "c" * 1025}),
        "VALIDATION_FAILED",
        "video.caption",
    ),
    ("sticker neither", send("sticker", {}), "MISSING_REQUIRED_FIELD", "sticker.link"),
    (
        "image caption and buttons",
        send("image", {"id": "1", "caption": "c", "buttons": buttons(1)}),
        "INVALID_MESSAGE_TYPE",
        "image",
    ),
    (
        "document with action",
        send("document", {"id": "1", "action": {"buttons": buttons(1)}}),
        "INVALID_MESSAGE_TYPE",
        "document",
    ),
    ("location missing", send("location", None), "MISSING_REQUIRED_FIELD", "location.latitude"),
    ("longitude missing", send("location", {"latitude": 1}), "MISSING_REQUIRED_FIELD", "location.longitude"),
    (
        "latitude string that is not a number",
        send("location", {"latitude": "1.5 N", "longitude": 2}),
        "VALIDATION_FAILED",
        "location.latitude",
    ),
    (
        "latitude bool",
        send("location", {"latitude": True, "longitude": 2}),
        "VALIDATION_FAILED",
        "location.latitude",
    ),
    (
        "latitude out of range",
        send("location", {"latitude": 90.5, "longitude": 2}),
        "VALIDATION_FAILED",
        "location.latitude",
    ),
    (
        "longitude out of range",
        send("location", {"latitude": 1, "longitude": -180.01}),
        "VALIDATION_FAILED",
        "location.longitude",
    ),
    (
        "location name not string",
        send("location", {"latitude": 1, "longitude": 2, "name": 3}),
        "VALIDATION_FAILED",
        "location.name",
    ),
    ("contacts missing", send("contacts", None), "MISSING_REQUIRED_FIELD", "contacts"),
    ("contacts empty", send("contacts", []), "MISSING_REQUIRED_FIELD", "contacts"),
    ("contacts object", send("contacts", {"name": {}}), "VALIDATION_FAILED", "contacts"),
    ("contact not object", send("contacts", ["Ana"]), "VALIDATION_FAILED", "contacts[0]"),
    ("contact no name", send("contacts", [{"phones": []}]), "MISSING_REQUIRED_FIELD", "contacts[0].name"),
    (
        "contact no formatted_name",
        send("contacts", [{"name": {"first_name": "A"}}]),
        "MISSING_REQUIRED_FIELD",
        "contacts[0].name.formatted_name",
    ),
    (
        "contact phones not array",
        send("contacts", [{"name": {"formatted_name": "A"}, "phones": "1"}]),
        "VALIDATION_FAILED",
        "contacts[0].phones",
    ),
    (
        "contact phone missing",
        send("contacts", [{"name": {"formatted_name": "A"}, "phones": [{"type": "HOME"}]}]),
        "MISSING_REQUIRED_FIELD",
        "contacts[0].phones[0].phone",
    ),
    (
        "contact email missing",
        send("contacts", [{"name": {"formatted_name": "A"}, "emails": [{}]}]),
        "MISSING_REQUIRED_FIELD",
        "contacts[0].emails[0].email",
    ),
    ("reaction missing", send("reaction", None), "MISSING_REQUIRED_FIELD", "reaction.message_id"),
    (
        "reaction no emoji",
        send("reaction", {"message_id": "wamid.X"}),
        "MISSING_REQUIRED_FIELD",
        "reaction.emoji",
    ),
    (
        "reaction emoji not string",
        send("reaction", {"message_id": "wamid.X", "emoji": 1}),
        "VALIDATION_FAILED",
        "reaction.emoji",
    ),
    (
        "reaction emoji is text",
        send("reaction", {"message_id": "wamid.X", "emoji": "x" * 17}),
        "VALIDATION_FAILED",
        "reaction.emoji",
    ),
    ("interactive missing", send("interactive", None), "MISSING_REQUIRED_FIELD", "interactive.type"),
    (
        "interactive unknown type",
        send("interactive", {"type": "carousel"}),
        "INVALID_MESSAGE_TYPE",
        "interactive.type",
    ),
    (
        "interactive no body",
        send("interactive", {"type": "button", "action": {"buttons": buttons(1)}}),
        "MISSING_REQUIRED_FIELD",
        "interactive.body",
    ),
    (
        "interactive no body text",
        send("interactive", {"type": "button", "body": {}, "action": {"buttons": buttons(1)}}),
        "MISSING_REQUIRED_FIELD",
        "interactive.body.text",
    ),
    (
        "interactive no action",
        send("interactive", {"type": "button", "body": {"text": "t"}}),
        "MISSING_REQUIRED_FIELD",
        "interactive.action",
    ),
    (
        "no buttons",
        send("interactive", {"type": "button", "body": {"text": "t"}, "action": {"buttons": []}}),
        "MISSING_REQUIRED_FIELD",
        "interactive.action.buttons",
    ),
    (
        "four buttons",
        send("interactive", {"type": "button", "body": {"text": "t"}, "action": {"buttons": buttons(4)}}),
        "VALIDATION_FAILED",
        "interactive.action.buttons",
    ),
    (
        "button not reply",
        send(
            "interactive",
            {
                "type": "button",
                "body": {"text": "t"},
                "action": {"buttons": [{"type": "url", "reply": {"id": "a", "title": "b"}}]},
            },
        ),
        "VALIDATION_FAILED",
        "interactive.action.buttons[0].type",
    ),
    (
        "button no reply",
        send(
            "interactive",
            {"type": "button", "body": {"text": "t"}, "action": {"buttons": [{"type": "reply"}]}},
        ),
        "MISSING_REQUIRED_FIELD",
        "interactive.action.buttons[0].reply",
    ),
    (
        "button no id",
        send(
            "interactive",
            {
                "type": "button",
                "body": {"text": "t"},
                "action": {"buttons": [{"type": "reply", "reply": {"title": "b"}}]},
            },
        ),
        "MISSING_REQUIRED_FIELD",
        "interactive.action.buttons[0].reply.id",
    ),
    (
        "button no title",
        send(
            "interactive",
            {
                "type": "button",
                "body": {"text": "t"},
                "action": {"buttons": [{"type": "reply", "reply": {"id": "a"}}]},
            },
        ),
        "MISSING_REQUIRED_FIELD",
        "interactive.action.buttons[0].reply.title",
    ),
    (
        "button title too long",
        send(
            "interactive",
            {
                "type": "button",
                "body": {"text": "t"},
                "action": {"buttons": [{"type": "reply", "reply": {"id": "a", "title": "x" * 21}}]},
            },
        ),
        "VALIDATION_FAILED",
        "interactive.action.buttons[0].reply.title",
    ),
    (
        "duplicate button ids",
        send(
            "interactive",
            {"type": "button", "body": {"text": "t"}, "action": {"buttons": [buttons(1)[0], buttons(1)[0]]}},
        ),
        "VALIDATION_FAILED",
        "interactive.action.buttons[1].reply.id",
    ),
    (
        "list media header",
        send(
            "interactive",
            {**list_obj(rows(2)), "header": {"type": "image", "image": {"id": "1"}}},
        ),
        "VALIDATION_FAILED",
        "interactive.header.type",
    ),
    (
        "list eleven rows",
        send("interactive", list_obj(rows(5), rows(6, "s"))),
        "VALIDATION_FAILED",
        "interactive.action.sections",
    ),
    (
        "list no button",
        send(
            "interactive",
            {"type": "list", "body": {"text": "t"}, "action": {"sections": [{"rows": rows(1)}]}},
        ),
        "MISSING_REQUIRED_FIELD",
        "interactive.action.button",
    ),
    (
        "list no sections",
        send("interactive", {"type": "list", "body": {"text": "t"}, "action": {"button": "b"}}),
        "MISSING_REQUIRED_FIELD",
        "interactive.action.sections",
    ),
    (
        "list section without rows",
        send(
            "interactive",
            {"type": "list", "body": {"text": "t"}, "action": {"button": "b", "sections": [{"title": "s"}]}},
        ),
        "MISSING_REQUIRED_FIELD",
        "interactive.action.sections[0].rows",
    ),
    (
        "list two sections, untitled",
        send(
            "interactive",
            {
                "type": "list",
                "body": {"text": "t"},
                "action": {"button": "b", "sections": [{"rows": rows(1)}, {"rows": rows(1, "s")}]},
            },
        ),
        "MISSING_REQUIRED_FIELD",
        "interactive.action.sections[0].title",
    ),
    (
        "list row no title",
        send(
            "interactive",
            {
                "type": "list",
                "body": {"text": "t"},
                "action": {"button": "b", "sections": [{"rows": [{"id": "a"}]}]},
            },
        ),
        "MISSING_REQUIRED_FIELD",
        "interactive.action.sections[0].rows[0].title",
    ),
    (
        "list row description too long",
        send(
            "interactive",
            {
                "type": "list",
                "body": {"text": "t"},
                "action": {
                    "button": "b",
                    "sections": [{"rows": [{"id": "a", "title": "t", "description": "d" * 73}]}],
                },
            },
        ),
        "VALIDATION_FAILED",
        "interactive.action.sections[0].rows[0].description",
    ),
    (
        "list duplicate row ids",
        send("interactive", list_obj(rows(2), rows(2))),
        "VALIDATION_FAILED",
        "interactive.action.sections[1].rows[0].id",
    ),
    (
        "list image header",
        send("interactive", {**list_obj(rows(1)), "header": {"type": "image"}}),
        "VALIDATION_FAILED",
        "interactive.header.type",
    ),
    (
        "location request wrong name",
        send(
            "interactive",
            {"type": "location_request_message", "body": {"text": "t"}, "action": {"name": "send"}},
        ),
        "VALIDATION_FAILED",
        "interactive.action.name",
    ),
    (
        "location request no name",
        send("interactive", {"type": "location_request_message", "body": {"text": "t"}, "action": {}}),
        "MISSING_REQUIRED_FIELD",
        "interactive.action.name",
    ),
    (
        "contact info wrong name",
        send(
            "interactive",
            {"type": "request_contact_info", "body": {"text": "t"}, "action": {"name": "send_location"}},
        ),
        "VALIDATION_FAILED",
        "interactive.action.name",
    ),
    (
        "contact info with header",
        send(
            "interactive",
            {
                "type": "request_contact_info",
                "header": {"type": "text", "text": "h"},
                "body": {"text": "t"},
                "action": {"name": "request_contact_info"},
            },
        ),
        "VALIDATION_FAILED",
        "interactive.header",
    ),
    ("template missing", send("template", None), "MISSING_REQUIRED_FIELD", "template.name"),
    (
        "template no language",
        send("template", {"name": "t"}),
        "MISSING_REQUIRED_FIELD",
        "template.language.code",
    ),
    (
        "template language no code",
        send("template", {"name": "t", "language": {}}),
        "MISSING_REQUIRED_FIELD",
        "template.language.code",
    ),
]


@pytest.mark.parametrize(("case", "body", "code", "field"), INVALID, ids=[c[0] for c in INVALID])
def test_invalid_bodies(case: str, body: Any, code: str, field: str | None) -> None:
    with pytest.raises(ValidationFailed) as caught:
        parse_send_request(body)
    error = caught.value
    assert error.status_code == 400
    assert error.code == code
    assert (error.details or {}).get("field") == field
    assert error.message


def test_media_neither_lists_both_alternatives() -> None:
    with pytest.raises(ValidationFailed) as caught:
        parse_send_request(send("document", {"filename": "a.pdf"}))
    assert caught.value.details == {"field": "document.link", "one_of": ["document.link", "document.id"]}
    assert "exactly one of link" in caught.value.message


@pytest.mark.parametrize(
    ("kind", "obj", "field"),
    [
        ("interactive", {"type": "button", "body": {"text": "t"}, "action": {}, "foo": 1}, "interactive.foo"),
        (
            "interactive",
            {"type": "button", "body": {"text": "t", "x": 1}, "action": {}},
            "interactive.body.x",
        ),
        ("template", {"name": "t", "language": {"code": "en", "x": 1}}, "template.language.x"),
        ("template", {"name": "t", "language": {"code": "en"}, "namespace": "n"}, "template.namespace"),
        (
            "template",
            {"name": "t", "language": {"code": "en"}, "components": [{"type": "body", "params": []}]},
            "template.components[0].params",
        ),
        (
            "template",
            {
                "name": "t",
                "language": {"code": "en"},
                "components": [{"type": "body", "parameters": [{"type": "text", "text": "a", "image": {}}]}],
            },
            "template.components[0].parameters[0].image",
        ),
        ("location", {"latitude": 1, "longitude": 2, "url": "https://maps"}, "location.url"),
        ("reaction", {"message_id": "wamid.x", "emoji": "👍", "type": "like"}, "reaction.type"),
        ("image", {"link": "https://a/b.jpg", "mime_type": "image/jpeg"}, "image.mime_type"),
    ],
)
def test_a_field_inside_a_type_object_that_would_not_be_sent_is_refused(
    kind: str, obj: Any, field: str
) -> None:
    with pytest.raises(ValidationFailed) as caught:
        parse_send_request(send(kind, obj))
    assert caught.value.code == "VALIDATION_FAILED"
    assert caught.value.details is not None and caught.value.details["field"] == field
