"""Typed shapes of a validated send (POST /v1/messages), mirroring the request body."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

MessageType = Literal[
    "text",
    "template",
    "image",
    "video",
    "audio",
    "document",
    "sticker",
    "location",
    "interactive",
    "contacts",
    "reaction",
]
MESSAGE_TYPES: tuple[str, ...] = MessageType.__args__  # type: ignore[attr-defined]
MEDIA_TYPES: tuple[str, ...] = ("image", "video", "audio", "document", "sticker")
InteractiveType = Literal["button", "list", "cta_url", "location_request_message", "request_contact_info"]
INTERACTIVE_TYPES: tuple[str, ...] = InteractiveType.__args__  # type: ignore[attr-defined]
ParameterFormat = Literal["POSITIONAL", "NAMED"]


class TextObject(BaseModel):
    body: str
    preview_url: bool | None = None


class MediaObject(BaseModel):
    link: str | None = None
    id: str | None = None
    caption: str | None = None
    filename: str | None = None
    # audio only: a voice note (played with the voice-message UI; the file must be OGG/Opus).
    voice: bool | None = None


class LocationObject(BaseModel):
    latitude: float
    longitude: float
    name: str | None = None
    address: str | None = None


class ReactionObject(BaseModel):
    message_id: str
    emoji: str


class ContactName(BaseModel):
    model_config = ConfigDict(extra="allow")

    formatted_name: str
    first_name: str | None = None


class ContactPhone(BaseModel):
    model_config = ConfigDict(extra="allow")

    phone: str
    type: str | None = None
    wa_id: str | None = None


class ContactEmail(BaseModel):
    model_config = ConfigDict(extra="allow")

    email: str
    type: str | None = None


class ContactCard(BaseModel):
    # addresses, org, urls and birthday are forwarded untouched.
    model_config = ConfigDict(extra="allow")

    name: ContactName
    phones: list[ContactPhone] | None = None
    emails: list[ContactEmail] | None = None


class InteractiveText(BaseModel):
    text: str


class InteractiveObject(BaseModel):
    type: InteractiveType
    header: dict[str, Any] | None = None
    body: InteractiveText
    footer: InteractiveText | None = None
    # Validated per interactive type, then forwarded as the client wrote it.
    action: dict[str, Any]


class TemplateParameter(BaseModel):
    # The value sits under the key named by `type` (text, currency, image, ...).
    model_config = ConfigDict(extra="allow")

    type: str
    parameter_name: str | None = None


class TemplateComponent(BaseModel):
    type: Literal["header", "body", "button"]
    sub_type: str | None = None
    index: str | None = None
    parameters: list[TemplateParameter] = []


class TemplateLanguage(BaseModel):
    code: str
    policy: str | None = None


class TemplateObject(BaseModel):
    name: str
    language: TemplateLanguage
    components: list[TemplateComponent] = []
    # NAMED when the send used body_named_params / header_named_param or parameter_name.
    parameter_format: ParameterFormat = "POSITIONAL"


class ReplyContext(BaseModel):
    message_id: str


class SendRequest(BaseModel):
    """A validated POST /v1/messages body; exactly the object named by `type` is set."""

    phone_number_id: str
    to: str | None = None
    recipient: str | None = None
    type: MessageType
    context: ReplyContext | None = None
    text: TextObject | None = None
    template: TemplateObject | None = None
    image: MediaObject | None = None
    video: MediaObject | None = None
    audio: MediaObject | None = None
    document: MediaObject | None = None
    sticker: MediaObject | None = None
    location: LocationObject | None = None
    interactive: InteractiveObject | None = None
    contacts: list[ContactCard] | None = None
    reaction: ReactionObject | None = None
    # Echoed by the upstream on this message's status webhooks, and so on its status events.
    biz_opaque_callback_data: str | None = None
    # The upstream refuses the send (137000) if the user's identity key no longer has this hash.
    recipient_identity_key_hash: str | None = None

    @property
    def content(self) -> BaseModel | list[ContactCard]:
        """The type object selected by `type`."""
        value = getattr(self, self.type)
        if value is None:
            raise ValueError(f"SendRequest of type {self.type} has no {self.type} object")
        return value

    @property
    def uses_bsuid(self) -> bool:
        """True when the send is addressed by BSUID alone (to absent)."""
        return self.to is None and self.recipient is not None
