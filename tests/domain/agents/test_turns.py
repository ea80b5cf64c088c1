"""What starts an agent turn and the one line of text the model reads for each inbound kind."""

from __future__ import annotations

from typing import Any

import pytest

from switchboard.domain.agents.turns import (
    MAX_USER_TEXT,
    TURN_MESSAGE_TYPES,
    merge_user_texts,
    starts_turn,
    user_text,
)

STARTS = [
    "text",
    "button",
    "interactive",
    "location",
    "contacts",
    "image",
    "audio",
    "video",
    "document",
    "sticker",
]
DOES_NOT_START = [
    "reaction",
    "unsupported",
    "system",
    "order",
    "errors",
    "unknown",
    "ephemeral",
    "request_welcome",
    "",
]


@pytest.mark.parametrize("message_type", STARTS)
def test_starts_turn(message_type: str) -> None:
    assert starts_turn(message_type)
    assert message_type in TURN_MESSAGE_TYPES


@pytest.mark.parametrize("message_type", DOES_NOT_START)
def test_does_not_start_turn(message_type: str) -> None:
    assert not starts_turn(message_type)


def test_turn_types_are_exactly_the_documented_ones() -> None:
    assert set(STARTS) == TURN_MESSAGE_TYPES


CARD = {
    "name": {"formatted_name": "Ana López", "first_name": "Ana"},
    "phones": [
        {"phone": "+54 9 11 1234-5678", "wa_id": "5491112345678", "type": "CELL"},
        {"wa_id": "34600111222"},
    ],
}

ROWS: list[tuple[str, str, str | None, dict[str, Any], str]] = [
    (
        "text body",
        "text",
        "ignored",
        {"type": "text", "text": {"body": "Hola, quiero un turno"}},
        "Hola, quiero un turno",
    ),
    ("text keeps inner newlines", "text", None, {"text": {"body": "  uno\ndos  "}}, "uno\ndos"),
    ("text without object uses content", "text", "Hola", {"type": "text"}, "Hola"),
    ("text blank body uses content", "text", "Hola", {"text": {"body": " "}}, "Hola"),
    ("nothing at all", "text", None, {}, ""),
    (
        "template quick reply button",
        "button",
        None,
        {"button": {"text": "Confirmar", "payload": "CONFIRM"}},
        "Confirmar",
    ),
    ("button payload when no text", "button", None, {"button": {"payload": "CONFIRM"}}, "CONFIRM"),
    (
        "interactive button reply title",
        "interactive",
        "slot-am",
        {"interactive": {"type": "button_reply", "button_reply": {"id": "slot-am", "title": "Mañana"}}},
        "Mañana",
    ),
    (
        "interactive list reply title and description",
        "interactive",
        None,
        {
            "interactive": {
                "type": "list_reply",
                "list_reply": {"id": "r1", "title": "Express", "description": "24 h"},
            }
        },
        "Express — 24 h",
    ),
    (
        "interactive list reply title only",
        "interactive",
        None,
        {"interactive": {"type": "list_reply", "list_reply": {"id": "r1", "title": "Express"}}},
        "Express",
    ),
    (
        "interactive reply id when no title",
        "interactive",
        None,
        {"interactive": {"type": "button_reply", "button_reply": {"id": "slot-pm"}}},
        "slot-pm",
    ),
    (
        "flow reply body",
        "interactive",
        None,
        {"interactive": {"type": "nfm_reply", "nfm_reply": {"body": "Sent", "name": "flow"}}},
        "Sent",
    ),
    ("unknown interactive uses content", "interactive", "Algo", {"interactive": {"type": "other"}}, "Algo"),
    (
        "location with name, address and coordinates",
        "location",
        None,
        {
            "location": {
                "name": "Clínica Sur",
                "address": "Av. Rivadavia 100",
                "latitude": -34.6,
                "longitude": -58.38,
            }
        },
        "[ubicación: Clínica Sur, Av. Rivadavia 100 (-34.6, -58.38)]",
    ),
    (
        "location coordinates only, as strings",
        "location",
        None,
        {"location": {"latitude": "-34.6", "longitude": "-58.38"}},
        "[ubicación: (-34.6, -58.38)]",
    ),
    ("location empty", "location", None, {"location": {}}, "[ubicación]"),
    ("location from content", "location", "Casa (1.0, 2.0)", {}, "[ubicación: Casa (1.0, 2.0)]"),
    (
        "contacts card",
        "contacts",
        None,
        {"contacts": [CARD]},
        "[contacto compartido: Ana López, +54 9 11 1234-5678, 34600111222]",
    ),
    (
        "two contact cards, name from parts",
        "contacts",
        None,
        {"contacts": [CARD, {"name": {"first_name": "Juan", "last_name": "Pérez"}, "phones": []}]},
        "[contacto compartido: Ana López, +54 9 11 1234-5678, 34600111222; Juan Pérez]",
    ),
    ("contacts empty list", "contacts", None, {"contacts": []}, "[contacto compartido]"),
    ("contacts from content", "contacts", "Ana 549111", {}, "[contacto compartido: Ana 549111]"),
    (
        "image with caption",
        "image",
        "Mi receta",
        {"image": {"id": "m1", "caption": "Mi receta"}},
        "[image: Mi receta]",
    ),
    ("image without caption", "image", "[image]", {"image": {"id": "m1"}}, "[image]"),
    (
        "multi-line caption on one line",
        "video",
        None,
        {"video": {"caption": "uno\n dos"}},
        "[video: uno dos]",
    ),
    ("audio", "audio", "[audio]", {"audio": {"id": "m1", "voice": True}}, "[audio]"),
    ("sticker", "sticker", None, {"sticker": {"id": "m1", "animated": False}}, "[sticker]"),
    (
        "document filename and caption",
        "document",
        None,
        {"document": {"filename": "orden.pdf", "caption": "La orden médica"}},
        "[document: orden.pdf — La orden médica]",
    ),
    (
        "document filename only",
        "document",
        None,
        {"document": {"filename": "orden.pdf"}},
        "[document: orden.pdf]",
    ),
    ("document caption only", "document", None, {"document": {"caption": "Orden"}}, "[document: Orden]"),
    ("document bare", "document", None, {"document": {"id": "m1"}}, "[document]"),
    ("media without object uses content", "image", "Mi receta", {}, "[image: Mi receta]"),
    ("media without object or content", "audio", None, {}, "[audio]"),
    ("media content that is the placeholder", "audio", "[audio]", {}, "[audio]"),
    ("object of the wrong shape", "text", "Hola", {"text": "Hola raw"}, "Hola"),
]


@pytest.mark.parametrize(("label", "message_type", "content", "payload", "expected"), ROWS)
def test_user_text(
    label: str, message_type: str, content: str | None, payload: dict[str, Any], expected: str
) -> None:
    assert user_text(message_type, content=content, payload=payload) == expected, label


LONG = "x" * 10_000

CAP_ROWS: list[tuple[str, str | None, dict[str, Any], str]] = [
    ("text", None, {"text": {"body": LONG}}, "x…"),
    ("text", LONG, {}, "x…"),
    ("image", None, {"image": {"caption": LONG}}, "x…]"),
    ("document", None, {"document": {"filename": "a.pdf", "caption": LONG}}, "x…]"),
    ("location", None, {"location": {"name": LONG}}, "x…]"),
    (
        "interactive",
        None,
        {"interactive": {"type": "list_reply", "list_reply": {"title": "T", "description": LONG}}},
        "x…",
    ),
]


@pytest.mark.parametrize(("message_type", "content", "payload", "suffix"), CAP_ROWS)
def test_user_text_never_exceeds_the_cap(
    message_type: str, content: str | None, payload: dict[str, Any], suffix: str
) -> None:
    text = user_text(message_type, content=content, payload=payload)
    assert len(text) == MAX_USER_TEXT
    assert text.endswith(suffix)


def test_user_text_exactly_at_the_cap_is_kept_whole() -> None:
    body = "y" * MAX_USER_TEXT
    assert user_text("text", content=None, payload={"text": {"body": body}}) == body


MERGE_ROWS: list[tuple[list[str], str]] = [
    ([], ""),
    (["Hola"], "Hola"),
    (["Hola", "quiero un turno", "para el martes"], "Hola\nquiero un turno\npara el martes"),
    (["Hola", "", "  ", "[image: receta]"], "Hola\n[image: receta]"),
    ([" a ", "b\nc"], "a\nb\nc"),
]


@pytest.mark.parametrize(("texts", "expected"), MERGE_ROWS)
def test_merge_user_texts(texts: list[str], expected: str) -> None:
    assert merge_user_texts(texts) == expected
