"""Playing a customer: turning a ``/_sim/inbound`` request into a Cloud API message webhook."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from switchboard.simulator.envelopes import contact_entry, inbound_envelope
from switchboard.simulator.ids import numeric_id, wamid
from switchboard.simulator.media import download_url, store_media, upload_problem
from switchboard.simulator.phones import digits_of
from switchboard.simulator.state import CustomerProfile, MessageRecord, SimState
from switchboard.simulator.validation import MEDIA_TYPES


class InboundRequest(BaseModel):
    """A customer message to post to the service; the type object sits under its type's key."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    phone_number_id: str
    from_: str | None = Field(default=None, alias="from")
    text: str | None = None
    type: str | None = None
    name: str | None = None
    bsuid: str | None = None
    parent_bsuid: str | None = None
    username: str | None = None
    hide_phone: bool = False
    reply_to: str | None = None
    timestamp: int | None = None

    @model_validator(mode="after")
    def _complete(self) -> InboundRequest:
        if not self.from_ and not self.bsuid:
            raise ValueError("give 'from' (the customer's phone) or 'bsuid'")
        if self.hide_phone and not self.bsuid:
            raise ValueError("'hide_phone' needs a 'bsuid' to address the customer by")
        if self.text is None and self.type is None:
            raise ValueError("give 'text', or 'type' plus the object named by it")
        if self.type not in (None, "text") and self.content() is None:
            raise ValueError(f"type {self.type!r} needs an object under the key {self.type!r}")
        return self

    def message_type(self) -> str:
        """The inbound message's type (``text`` when only ``text`` was given)."""
        return self.type or "text"

    def content(self) -> Any:
        """The type object as given."""
        if self.message_type() == "text" and self.text is not None:
            return {"body": self.text}
        return (self.model_extra or {}).get(self.message_type())


def _media_object(
    state: SimState, request: InboundRequest, content: dict[str, Any], *, base_url: str, now: int
) -> dict[str, Any]:
    """Store customer media given as ``data_base64`` (or describe a known media id) like the channel does."""
    if "data_base64" in content:
        mime_type = content.get("mime_type")
        if not isinstance(mime_type, str):
            raise ValueError("media sent with data_base64 needs a mime_type")
        try:
            data = base64.b64decode(content["data_base64"], validate=True)
        except (binascii.Error, TypeError) as exc:
            raise ValueError("data_base64 is not valid base64") from exc
        problem = upload_problem(mime_type, len(data))
        if problem is not None:
            raise ValueError(problem)
        item = store_media(
            state,
            media_id=numeric_id(),
            phone_number_id=request.phone_number_id,
            mime_type=mime_type,
            data=data,
            now=now,
            filename=content.get("filename"),
        )
    else:
        known = state.media.get(str(content.get("id")))
        if known is None:
            return content
        item = known
    rest = {key: value for key, value in content.items() if key not in ("data_base64", "id", "mime_type")}
    return {
        "mime_type": item.mime_type,
        "sha256": item.sha256,
        "id": item.id,
        "url": download_url(state, item, base_url=base_url, now=now),
        **rest,
    }


def build_inbound(
    state: SimState, request: InboundRequest, *, base_url: str, now: int
) -> tuple[dict[str, Any], MessageRecord]:
    """Build the webhook envelope and remember the customer (for windows and status contacts)."""
    phone = state.phone(request.phone_number_id)
    wa_id = digits_of(request.from_) if request.from_ else None
    timestamp = request.timestamp if request.timestamp is not None else now
    message_type = request.message_type()
    content = request.content()
    if message_type in MEDIA_TYPES and isinstance(content, dict):
        content = _media_object(state, request, content, base_url=base_url, now=now)
    message_id = wamid(wa_id or request.bsuid or "")
    message: dict[str, Any] = {}
    if request.reply_to:
        message["context"] = {"from": phone.display_phone_number, "id": request.reply_to}
    shown_wa_id = None if request.hide_phone else wa_id
    if shown_wa_id:
        message["from"] = shown_wa_id
    if request.bsuid:
        message["from_user_id"] = request.bsuid
    if request.parent_bsuid:
        message["from_parent_user_id"] = request.parent_bsuid
    message.update(
        {"id": message_id, "timestamp": str(timestamp), "type": message_type, message_type: content}
    )
    contact = contact_entry(
        wa_id=shown_wa_id,
        name=request.name,
        username=request.username,
        user_id=request.bsuid,
        parent_user_id=request.parent_bsuid,
    )
    profile = CustomerProfile(
        wa_id=wa_id,
        name=request.name,
        user_id=request.bsuid,
        parent_user_id=request.parent_bsuid,
        username=request.username,
    )
    state.customers[wa_id or request.bsuid or ""] = profile
    if wa_id:
        state.last_inbound_at[(request.phone_number_id, wa_id)] = timestamp
    record = MessageRecord(
        direction="inbound",
        phone_number_id=request.phone_number_id,
        received_at=now,
        wamid=message_id,
        wa_id=wa_id,
        recipient=request.bsuid,
        type=message_type,
        body=message,
    )
    envelope = inbound_envelope(
        phone_number_id=request.phone_number_id, phone=phone, contact=contact, message=message
    )
    return envelope, record
