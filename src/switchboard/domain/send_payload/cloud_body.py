"""The WhatsApp Cloud API request body for a validated send."""

from __future__ import annotations

from typing import Any

from switchboard.domain.phone import canonical_phone
from switchboard.domain.send_payload.models import MEDIA_TYPES, MediaObject, SendRequest


def cloud_api_body(send: SendRequest, *, to: str | None = None) -> dict[str, Any]:
    """Build the Cloud API POST /{phone_number_id}/messages body; `to` overrides the number (131030 retry).

    Phone numbers go out in E.164 with a leading + because the upstream prepends
    the business number's country code to numbers without one.
    """
    body: dict[str, Any] = {"messaging_product": "whatsapp", "recipient_type": "individual"}
    number = to if to is not None else (canonical_phone(send.to) if send.to is not None else None)
    if number is not None:
        body["to"] = "+" + number.lstrip("+")
    else:
        body["recipient"] = send.recipient
    if send.context is not None:
        body["context"] = {"message_id": send.context.message_id}
    body["type"] = send.type
    body[send.type] = _type_object(send)
    if send.biz_opaque_callback_data is not None:
        body["biz_opaque_callback_data"] = send.biz_opaque_callback_data
    if send.recipient_identity_key_hash is not None:
        body["recipient_identity_key_hash"] = send.recipient_identity_key_hash
    return body


def _type_object(send: SendRequest) -> Any:
    if send.type == "contacts":
        return [card.model_dump(exclude_none=True) for card in send.contacts or []]
    if send.type == "template" and send.template is not None:
        template: dict[str, Any] = {
            "name": send.template.name,
            "language": send.template.language.model_dump(exclude_none=True),
        }
        if send.template.components:
            template["components"] = [c.model_dump(exclude_none=True) for c in send.template.components]
        return template
    return send.content.model_dump(exclude_none=True)  # type: ignore[union-attr]


def with_media_id(send: SendRequest, media_id: str) -> SendRequest:
    """Return the send with its media link replaced by an uploaded media id (link media is re-hosted)."""
    if send.type not in MEDIA_TYPES:
        raise ValueError(f"{send.type} messages carry no media")
    media: MediaObject = getattr(send, send.type)
    return send.model_copy(update={send.type: media.model_copy(update={"link": None, "id": media_id})})


def with_media_body(body: dict[str, Any], media_type: str, media_id: str) -> dict[str, Any]:
    """A Cloud API body whose media link is replaced by an uploaded media id."""
    media = {key: value for key, value in body[media_type].items() if key != "link"}
    return {**body, media_type: {**media, "id": media_id}}
