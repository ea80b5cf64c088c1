"""Validation of the POST /v1/messages body into a typed SendRequest."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from switchboard.domain.errors import MissingRequiredField, ValidationFailed
from switchboard.domain.phone import is_bsuid, validate_recipient, validate_to
from switchboard.domain.send_payload.fields import (
    invalid,
    is_blank,
    item_object,
    optional_list,
    optional_object,
    optional_str,
    refuse_unknown,
    require_object,
    require_str,
)
from switchboard.domain.send_payload.interactive import parse_interactive, template_required
from switchboard.domain.send_payload.models import (
    MEDIA_TYPES,
    MESSAGE_TYPES,
    ContactCard,
    LocationObject,
    MediaObject,
    ReactionObject,
    ReplyContext,
    SendRequest,
    TextObject,
)
from switchboard.domain.send_payload.template import parse_template

TEXT_BODY_MAX = 4096
CAPTION_MAX = 1024
# The Cloud API's limit on the string it echoes back on status webhooks.
CALLBACK_DATA_MAX = 512
IDENTITY_HASH_MAX = 128
# Top-level send fields besides the type's own object.
_TOP_LEVEL = frozenset(
    {
        "phone_number_id",
        "to",
        "recipient",
        "type",
        "context",
        "messaging_product",
        "recipient_type",
        "biz_opaque_callback_data",
        "recipient_identity_key_hash",
    }
)
_MEDIA_FIELDS = frozenset({"link", "id", "caption", "filename", "voice"})
_CAPTIONED = ("image", "video", "document")
# Keys that would turn a media message into "media with buttons", which only a template can carry.
_BUTTON_KEYS = ("buttons", "action", "interactive")


def parse_send_request(body: Any) -> SendRequest:
    """Validate a POST /v1/messages body and return the typed SendRequest (sandbox and live alike).

    Every field is either forwarded to the upstream or refused: a field the service would drop
    (a typo, another type's object, a Cloud API field not offered here) is a 400 that names it.
    """
    if not isinstance(body, Mapping):
        raise ValidationFailed("request body must be a JSON object", code="VALIDATION_FAILED")
    phone_number_id = _phone_number_id(body)
    to, recipient = _addressing(body)
    message_type = _message_type(body)
    refuse_unknown(body, {*_TOP_LEVEL, message_type}, "")
    _fixed(body, "messaging_product", "whatsapp")
    _fixed(body, "recipient_type", "individual")
    context = _context(body)
    content = _PARSERS[message_type](body.get(message_type), message_type)
    return SendRequest.model_validate(
        {
            "phone_number_id": phone_number_id,
            "to": to,
            "recipient": recipient,
            "type": message_type,
            "context": context,
            message_type: content,
            "biz_opaque_callback_data": optional_str(
                body, "biz_opaque_callback_data", "biz_opaque_callback_data", max_len=CALLBACK_DATA_MAX
            ),
            "recipient_identity_key_hash": optional_str(
                body, "recipient_identity_key_hash", "recipient_identity_key_hash", max_len=IDENTITY_HASH_MAX
            ),
        }
    )


def _fixed(body: Mapping[str, Any], key: str, value: str) -> None:
    """A Cloud API field the service sets itself: accepted when it says what the service sends."""
    if key in body and body[key] != value:
        raise invalid(key, f"{key} can only be {value!r} here", value=body[key])


def _phone_number_id(body: Mapping[str, Any]) -> str:
    value = body.get("phone_number_id")
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if is_blank(value):
        raise MissingRequiredField("phone_number_id")
    if not isinstance(value, str) or not (value.isdigit() and value.isascii()):
        raise invalid(
            "phone_number_id",
            "phone_number_id must be the channel's numeric id of the business number, not the display number",
            value=value,
            code="INVALID_PHONE_NUMBER_ID",
        )
    return value


def _addressing(body: Mapping[str, Any]) -> tuple[str | None, str | None]:
    raw_to, raw_recipient = body.get("to"), body.get("recipient")
    if not is_blank(raw_to):
        # `to` wins; a recipient sent beside it is kept only when it is a well-formed BSUID.
        recipient = raw_recipient if is_bsuid(raw_recipient) else None
        return validate_to(raw_to), recipient
    if not is_blank(raw_recipient):
        return None, validate_recipient(raw_recipient)
    raise MissingRequiredField("to", "one of to (phone number) or recipient (BSUID) is required")


def _message_type(body: Mapping[str, Any]) -> str:
    value = body.get("type")
    if is_blank(value):
        raise MissingRequiredField("type")
    if value not in MESSAGE_TYPES:
        raise invalid(
            "type",
            f"type must be one of {', '.join(MESSAGE_TYPES)}",
            value=value,
            code="INVALID_MESSAGE_TYPE",
        )
    return str(value)


def _context(body: Mapping[str, Any]) -> ReplyContext | None:
    context = optional_object(body, "context", "context")
    if context is None:
        return None
    refuse_unknown(context, {"message_id"}, "context")
    return ReplyContext(message_id=require_str(context, "message_id", "context.message_id"))


def type_object(raw: Any, path: str) -> Mapping[str, Any]:
    """Return the type object; an absent one is validated as empty so the first missing field is named."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise invalid(path, f'{path} must be an object (e.g. {{"{path}": {{...}}}})')
    return raw


def _text(raw: Any, path: str) -> TextObject:
    obj = type_object(raw, path)
    refuse_unknown(obj, {"body", "preview_url"}, path)
    body = require_str(obj, "body", f"{path}.body", max_len=TEXT_BODY_MAX)
    preview_url = obj.get("preview_url")
    if preview_url is not None and not isinstance(preview_url, bool):
        raise invalid(f"{path}.preview_url", f"{path}.preview_url must be a boolean")
    return TextObject(body=body, preview_url=preview_url)


def parse_media(raw: Any, path: str) -> MediaObject:
    """Validate an image/video/audio/document/sticker object: exactly one of link or id."""
    obj = type_object(raw, path)
    if any(key in obj for key in _BUTTON_KEYS):
        raise template_required(path)
    refuse_unknown(obj, _MEDIA_FIELDS, path)
    media_id = obj.get("id")
    if isinstance(media_id, int) and not isinstance(media_id, bool):
        media_id = str(media_id)
    link = optional_str(obj, "link", f"{path}.link")
    media_id = None if is_blank(media_id) else media_id
    link = None if is_blank(link) else link
    if link is not None and media_id is not None:
        raise invalid(path, f"{path} takes exactly one of link or id, not both")
    if link is None and media_id is None:
        error = MissingRequiredField(f"{path}.link", f"{path} needs exactly one of link (public URL) or id")
        error.details = {"field": f"{path}.link", "one_of": [f"{path}.link", f"{path}.id"]}
        raise error
    if media_id is not None and not isinstance(media_id, str):
        raise invalid(f"{path}.id", f"{path}.id must be a string media id")
    if link is not None and not link.lower().startswith(("https://", "http://")):
        raise invalid(f"{path}.link", f"{path}.link must be a public http(s) URL", value=link)
    caption = optional_str(obj, "caption", f"{path}.caption", max_len=CAPTION_MAX)
    if caption is not None and path not in _CAPTIONED:
        raise invalid(f"{path}.caption", f"{path} does not take a caption")
    filename = optional_str(obj, "filename", f"{path}.filename")
    if filename is not None and path != "document":
        raise invalid(f"{path}.filename", "filename is only allowed on document")
    voice = obj.get("voice")
    if voice is not None and path != "audio":
        raise invalid(f"{path}.voice", "voice is only allowed on audio (a voice note)")
    if voice is not None and not isinstance(voice, bool):
        raise invalid(f"{path}.voice", f"{path}.voice must be a boolean", value=voice)
    return MediaObject(link=link, id=media_id, caption=caption, filename=filename, voice=voice)


def _coordinate(obj: Mapping[str, Any], key: str, path: str, limit: float) -> float:
    """A coordinate as a number, or as a string holding one (Meta's own examples send strings)."""
    value = obj.get(key)
    if value is None:
        raise MissingRequiredField(path)
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise invalid(path, f"{path} must be a number", value=obj.get(key)) from None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise invalid(path, f"{path} must be a number", value=value)
    if not -limit <= value <= limit:
        raise invalid(path, f"{path} must be between -{limit:g} and {limit:g}", value=value)
    return float(value)


def _location(raw: Any, path: str) -> LocationObject:
    obj = type_object(raw, path)
    refuse_unknown(obj, {"latitude", "longitude", "name", "address"}, path)
    return LocationObject(
        latitude=_coordinate(obj, "latitude", f"{path}.latitude", 90),
        longitude=_coordinate(obj, "longitude", f"{path}.longitude", 180),
        name=optional_str(obj, "name", f"{path}.name"),
        address=optional_str(obj, "address", f"{path}.address"),
    )


def _contacts(raw: Any, path: str) -> list[ContactCard]:
    if raw is None or raw == []:
        raise MissingRequiredField(path)
    if not isinstance(raw, list):
        raise invalid(path, f"{path} must be an array of contact cards")
    cards = []
    for i, item in enumerate(raw):
        card_path = f"{path}[{i}]"
        card = item_object(item, card_path)
        name = require_object(card, "name", f"{card_path}.name")
        require_str(name, "formatted_name", f"{card_path}.name.formatted_name")
        optional_str(name, "first_name", f"{card_path}.name.first_name")
        for key, value_key in (("phones", "phone"), ("emails", "email")):
            for j, entry in enumerate(optional_list(card, key, f"{card_path}.{key}") or []):
                entry_path = f"{card_path}.{key}[{j}]"
                entry_obj = item_object(entry, entry_path)
                require_str(entry_obj, value_key, f"{entry_path}.{value_key}")
                optional_str(entry_obj, "type", f"{entry_path}.type")
                if key == "phones":
                    optional_str(entry_obj, "wa_id", f"{entry_path}.wa_id")
        cards.append(ContactCard.model_validate(card))
    return cards


def _reaction(raw: Any, path: str) -> ReactionObject:
    obj = type_object(raw, path)
    refuse_unknown(obj, {"message_id", "emoji"}, path)
    message_id = require_str(obj, "message_id", f"{path}.message_id")
    if "emoji" not in obj or obj["emoji"] is None:
        raise MissingRequiredField(
            f"{path}.emoji", f"{path}.emoji is required (an empty string removes the reaction)"
        )
    emoji = optional_str(obj, "emoji", f"{path}.emoji", max_len=16)
    return ReactionObject(message_id=message_id, emoji=emoji or "")


_PARSERS: dict[str, Callable[[Any, str], Any]] = {
    "text": _text,
    "template": lambda raw, path: parse_template(type_object(raw, path), path),
    **{kind: parse_media for kind in MEDIA_TYPES},
    "location": _location,
    "interactive": lambda raw, path: parse_interactive(type_object(raw, path), path),
    "contacts": _contacts,
    "reaction": _reaction,
}
