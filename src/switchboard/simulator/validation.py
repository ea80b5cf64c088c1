"""Loose validation of ``POST /{phone_number_id}/messages`` bodies (shape and documented limits)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from switchboard.simulator.graph_errors import GraphError, invalid_parameter, invalid_value, missing_parameter

MEDIA_TYPES = ("image", "video", "audio", "document", "sticker")
MESSAGE_TYPES = (
    "text",
    "template",
    *MEDIA_TYPES,
    "location",
    "contacts",
    "interactive",
    "reaction",
)


@dataclass(frozen=True)
class SendRequest:
    """A validated send: who it goes to, its type and its type object."""

    to: str | None
    recipient: str | None
    type: str
    content: dict[str, Any] | list[Any]


@dataclass(frozen=True)
class MarkRead:
    """A validated mark-read (optionally with a typing indicator)."""

    message_id: str
    typing_indicator: dict[str, Any] | None


def parse_messages_body(body: Any) -> SendRequest | MarkRead:
    """Validate a messages-endpoint body and say whether it is a send or a mark-read."""
    if not isinstance(body, dict):
        raise invalid_parameter("The request body must be a JSON object.")
    if body.get("messaging_product") != "whatsapp":
        raise GraphError(
            400,
            100,
            "(#100) The parameter messaging_product is required.",
            details="messaging_product must be 'whatsapp'.",
        )
    if body.get("status") is not None:
        return _parse_mark_read(body)
    to, recipient = body.get("to"), body.get("recipient")
    if not to and not recipient:
        raise missing_parameter("to")
    for name, value in (("to", to), ("recipient", recipient)):
        if value is not None and not isinstance(value, str):
            raise invalid_parameter(f"The parameter {name} must be a string.")
    message_type = body.get("type", "text")
    if message_type not in MESSAGE_TYPES:
        raise invalid_parameter(
            f'Param type must be one of {{{", ".join(MESSAGE_TYPES)}}} - got "{message_type}".'
        )
    content = body.get(message_type)
    if content is None:
        raise missing_parameter(message_type)
    _CHECKS[message_type](message_type, content)
    return SendRequest(to=to or None, recipient=recipient or None, type=message_type, content=content)


def _parse_mark_read(body: dict[str, Any]) -> MarkRead:
    if body.get("status") != "read":
        raise invalid_parameter("The only status a business can set is 'read'.")
    message_id = body.get("message_id")
    if not message_id:
        raise missing_parameter("message_id")
    if not isinstance(message_id, str) or not message_id.startswith("wamid."):
        raise invalid_value(f"Invalid message_id: {message_id}")
    indicator = body.get("typing_indicator")
    if indicator is not None and (not isinstance(indicator, dict) or indicator.get("type") != "text"):
        raise invalid_parameter("typing_indicator.type must be 'text'.")
    return MarkRead(message_id=message_id, typing_indicator=indicator)


def _object(name: str, content: Any) -> dict[str, Any]:
    if not isinstance(content, dict):
        raise invalid_parameter(f"The parameter {name} must be an object.")
    return content


def _text_field(content: dict[str, Any], key: str, path: str, limit: int, *, required: bool = True) -> None:
    value = content.get(key)
    if value is None or value == "":
        if required:
            raise missing_parameter(path)
        return
    if not isinstance(value, str):
        raise invalid_parameter(f"The parameter {path} must be a string.")
    if len(value) > limit:
        raise invalid_value(f"{path} is too long: {len(value)} characters, at most {limit} allowed.")


def _check_text(name: str, content: Any) -> None:
    _text_field(_object(name, content), "body", "text['body']", 4096)


def _check_media(name: str, content: Any) -> None:
    media = _object(name, content)
    has_id, has_link = bool(media.get("id")), bool(media.get("link"))
    if has_id == has_link:
        raise invalid_parameter(f"{name} needs exactly one of 'id' or 'link'.")
    if has_link and not str(media["link"]).startswith(("http://", "https://")):
        raise invalid_value(f"{name}['link'] must be an http or https URL.")
    _text_field(media, "caption", f"{name}['caption']", 1024, required=False)


def _check_location(name: str, content: Any) -> None:
    location = _object(name, content)
    for key in ("latitude", "longitude"):
        if location.get(key) in (None, ""):
            raise missing_parameter(f"location['{key}']")


def _check_contacts(name: str, content: Any) -> None:
    if not isinstance(content, list) or not content:
        raise invalid_parameter("contacts must be a non-empty array.")


def _check_reaction(name: str, content: Any) -> None:
    reaction = _object(name, content)
    if not reaction.get("message_id"):
        raise missing_parameter("reaction['message_id']")
    if "emoji" not in reaction:
        raise missing_parameter("reaction['emoji']")


def _check_template(name: str, content: Any) -> None:
    template = _object(name, content)
    if not template.get("name"):
        raise missing_parameter("template['name']")
    language = template.get("language")
    if not isinstance(language, dict) or not language.get("code"):
        raise missing_parameter("template['language']['code']")


def _check_interactive(name: str, content: Any) -> None:
    interactive = _object(name, content)
    kind = interactive.get("type")
    if not kind:
        raise missing_parameter("interactive['type']")
    action = interactive.get("action")
    if not isinstance(action, dict):
        raise missing_parameter("interactive['action']")
    raw_body = interactive.get("body")
    body: dict[str, Any] = raw_body if isinstance(raw_body, dict) else {}
    if kind == "button":
        _text_field(body, "text", "interactive['body']['text']", 1024)
        _check_buttons(action.get("buttons"))
    elif kind == "list":
        _text_field(body, "text", "interactive['body']['text']", 4096)
        _text_field(action, "button", "interactive['action']['button']", 20)
        _check_sections(action.get("sections"))


def _check_buttons(buttons: Any) -> None:
    if not isinstance(buttons, list) or not 1 <= len(buttons) <= 3:
        raise invalid_value("interactive['action']['buttons'] must hold 1 to 3 buttons.")
    for button in buttons:
        reply = button.get("reply") if isinstance(button, dict) else None
        if not isinstance(reply, dict):
            raise missing_parameter("interactive['action']['buttons'][]['reply']")
        _text_field(reply, "id", "button reply id", 256)
        _text_field(reply, "title", "button reply title", 20)


def _check_sections(sections: Any) -> None:
    if not isinstance(sections, list) or not 1 <= len(sections) <= 10:
        raise invalid_value("interactive['action']['sections'] must hold 1 to 10 sections.")
    rows = [row for section in sections if isinstance(section, dict) for row in section.get("rows") or []]
    if not 1 <= len(rows) <= 10:
        raise invalid_value(f"A list message holds 1 to 10 rows in total, got {len(rows)}.")
    for row in rows:
        if not isinstance(row, dict):
            raise invalid_parameter("Each list row must be an object.")
        _text_field(row, "id", "row id", 200)
        _text_field(row, "title", "row title", 24)
        _text_field(row, "description", "row description", 72, required=False)


_CHECKS: dict[str, Callable[[str, Any], None]] = {
    "text": _check_text,
    "template": _check_template,
    "location": _check_location,
    "contacts": _check_contacts,
    "interactive": _check_interactive,
    "reaction": _check_reaction,
    **{media: _check_media for media in MEDIA_TYPES},
}
