"""Validation of interactive send objects: reply buttons, lists, CTA URL buttons, location and contact requests."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from switchboard.domain.errors import MissingRequiredField, ValidationFailed
from switchboard.domain.send_payload.fields import (
    invalid,
    item_object,
    optional_object,
    optional_str,
    refuse_unknown,
    require_list,
    require_object,
    require_str,
)
from switchboard.domain.send_payload.models import INTERACTIVE_TYPES, InteractiveObject

MAX_BUTTONS = 3
MAX_LIST_ROWS = 10
MAX_LIST_SECTIONS = 10
CTA_DISPLAY_TEXT_MAX = 20
_BODY_MAX = {
    "button": 1024,
    "list": 4096,
    "cta_url": 1024,
    "location_request_message": 1024,
    "request_contact_info": 1024,
}
_MEDIA_HEADERS = ("image", "video", "document")
# Header types each interactive type takes (the Cloud API's reply-button and CTA URL messages take media).
_HEADER_TYPES = {"button": ("text", *_MEDIA_HEADERS), "cta_url": ("text", *_MEDIA_HEADERS), "list": ("text",)}
_ACTION_NAMES = {"location_request_message": "send_location", "request_contact_info": "request_contact_info"}


def template_required(path: str) -> ValidationFailed:
    """Build the 400 for media with caption and buttons, which only an approved template can carry."""
    return ValidationFailed(
        "media with a caption and buttons must be sent as an approved template "
        "(type template with a media header and quick-reply buttons)",
        code="INVALID_MESSAGE_TYPE",
        details={"field": path},
    )


def parse_interactive(obj: Mapping[str, Any], path: str) -> InteractiveObject:
    """Validate an interactive object of one of the supported interactive types."""
    kind = obj.get("type")
    if kind is None or kind == "":
        raise MissingRequiredField(f"{path}.type")
    if kind not in INTERACTIVE_TYPES:
        raise invalid(
            f"{path}.type",
            f"{path}.type must be one of {', '.join(INTERACTIVE_TYPES)}",
            value=kind,
            code="INVALID_MESSAGE_TYPE",
        )
    refuse_unknown(obj, {"type", "header", "body", "footer", "action"}, path)
    body = require_object(obj, "body", f"{path}.body")
    refuse_unknown(body, {"text"}, f"{path}.body")
    require_str(body, "text", f"{path}.body.text", max_len=_BODY_MAX[kind])
    footer = optional_object(obj, "footer", f"{path}.footer")
    if footer is not None:
        refuse_unknown(footer, {"text"}, f"{path}.footer")
        require_str(footer, "text", f"{path}.footer.text", max_len=60)
    _header(obj, kind, f"{path}.header")
    action = require_object(obj, "action", f"{path}.action")
    if kind == "button":
        _buttons(action, f"{path}.action")
    elif kind == "list":
        _list(action, f"{path}.action")
    elif kind == "cta_url":
        _cta_url(action, f"{path}.action")
    else:
        _named_action(action, f"{path}.action", _ACTION_NAMES[kind])
    return InteractiveObject.model_validate(obj)


def _header(obj: Mapping[str, Any], kind: str, path: str) -> None:
    header = optional_object(obj, "header", path)
    if header is None:
        return
    allowed = _HEADER_TYPES.get(kind)
    if allowed is None:
        raise invalid(path, f"interactive {kind} messages take no header")
    header_type = require_str(header, "type", f"{path}.type")
    if header_type not in allowed:
        raise invalid(
            f"{path}.type",
            f"the header of an interactive {kind} message must be of type {' or '.join(allowed)}",
            value=header_type,
        )
    if header_type == "text":
        require_str(header, "text", f"{path}.text", max_len=60)
        return
    _media_header(header, header_type, f"{path}.{header_type}")


def _media_header(header: Mapping[str, Any], media_type: str, path: str) -> None:
    """An image, video or document header: exactly one of a public link or an uploaded media id."""
    media = require_object(header, media_type, path)
    link, media_id = media.get("link"), media.get("id")
    if (link is None or link == "") == (media_id is None or media_id == ""):
        raise invalid(path, f"{path} takes exactly one of link or id")
    if link is not None:
        if not isinstance(link, str) or not link.lower().startswith(("https://", "http://")):
            raise invalid(f"{path}.link", f"{path}.link must be a public http(s) URL", value=link)
    elif not isinstance(media_id, str):
        raise invalid(f"{path}.id", f"{path}.id must be a string media id")


def _buttons(action: Mapping[str, Any], path: str) -> None:
    buttons = require_list(action, "buttons", f"{path}.buttons")
    if len(buttons) > MAX_BUTTONS:
        raise invalid(
            f"{path}.buttons", f"up to {MAX_BUTTONS} reply buttons are allowed (got {len(buttons)})"
        )
    seen: set[str] = set()
    for i, raw in enumerate(buttons):
        button_path = f"{path}.buttons[{i}]"
        button = item_object(raw, button_path)
        button_type = require_str(button, "type", f"{button_path}.type")
        if button_type != "reply":
            raise invalid(f"{button_path}.type", "button type must be reply", value=button_type)
        reply = require_object(button, "reply", f"{button_path}.reply")
        button_id = require_str(reply, "id", f"{button_path}.reply.id", max_len=256)
        require_str(reply, "title", f"{button_path}.reply.title", max_len=20)
        if button_id in seen:
            raise invalid(f"{button_path}.reply.id", "button ids must be unique", value=button_id)
        seen.add(button_id)


def _list(action: Mapping[str, Any], path: str) -> None:
    require_str(action, "button", f"{path}.button", max_len=20)
    sections = require_list(action, "sections", f"{path}.sections")
    if len(sections) > MAX_LIST_SECTIONS:
        raise invalid(f"{path}.sections", f"up to {MAX_LIST_SECTIONS} sections are allowed")
    total = 0
    seen: set[str] = set()
    for i, raw in enumerate(sections):
        section_path = f"{path}.sections[{i}]"
        section = item_object(raw, section_path)
        if len(sections) > 1:
            require_str(section, "title", f"{section_path}.title", max_len=24)
        else:
            optional_str(section, "title", f"{section_path}.title", max_len=24)
        rows = require_list(section, "rows", f"{section_path}.rows")
        total += len(rows)
        for j, row_raw in enumerate(rows):
            row_path = f"{section_path}.rows[{j}]"
            row = item_object(row_raw, row_path)
            row_id = require_str(row, "id", f"{row_path}.id", max_len=200)
            require_str(row, "title", f"{row_path}.title", max_len=24)
            optional_str(row, "description", f"{row_path}.description", max_len=72)
            if row_id in seen:
                raise invalid(f"{row_path}.id", "row ids must be unique across the list", value=row_id)
            seen.add(row_id)
    if total > MAX_LIST_ROWS:
        raise invalid(f"{path}.sections", f"a list holds up to {MAX_LIST_ROWS} rows in total (got {total})")


def _cta_url(action: Mapping[str, Any], path: str) -> None:
    """A call-to-action URL button: ``{"name": "cta_url", "parameters": {"display_text", "url"}}``."""
    _named_action(action, path, "cta_url")
    parameters = require_object(action, "parameters", f"{path}.parameters")
    require_str(parameters, "display_text", f"{path}.parameters.display_text", max_len=CTA_DISPLAY_TEXT_MAX)
    url = require_str(parameters, "url", f"{path}.parameters.url")
    if not url.lower().startswith(("https://", "http://")):
        raise invalid(f"{path}.parameters.url", "the button's url must be an http(s) URL", value=url)


def _named_action(action: Mapping[str, Any], path: str, expected: str) -> None:
    name = require_str(action, "name", f"{path}.name")
    if name != expected:
        raise invalid(f"{path}.name", f"{path}.name must be {expected}", value=name)
