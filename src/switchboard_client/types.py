"""Shapes of the tenant API's answers, with the service's field names exactly."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, Literal, NotRequired, TypedDict, TypeVar

T = TypeVar("T")

Direction = Literal["inbound", "outbound"]
MediaType = Literal["image", "video", "audio", "document", "sticker"]


class Message(TypedDict):
    """The Message object (GET /v1/messages/{id}, list items, and a live send's answer).

    A sandbox send answers a subset (``id`` prefixed ``sandbox-``, status
    ``sent_sandbox``) plus ``_sandbox`` and ``_note``.
    """

    id: str
    phone_number_id: str
    direction: str
    message_type: str
    wa_message_id: str | None
    status: str
    to_phone: str | None
    created_at: str
    from_phone: NotRequired[str | None]
    recipient: NotRequired[str | None]
    conversation_id: NotRequired[str | None]
    occurred_at: NotRequired[str]
    retry_of_message_id: NotRequired[str | None]
    source: NotRequired[str]
    sent_by: NotRequired[str | None]
    coexistence_echo: NotRequired[bool]
    content: NotRequired[str | None]
    has_media: NotRequired[bool]
    rendered_body: NotRequired[str | None]
    error_title: NotRequired[str | None]
    error_code: NotRequired[str | None]
    error_message: NotRequired[str | None]
    # A received message's reply context, ad referral, errors[] and group, as the channel sent them.
    context: NotRequired[dict[str, Any] | None]
    referral: NotRequired[dict[str, Any] | None]
    errors: NotRequired[list[dict[str, Any]] | None]
    group_id: NotRequired[str | None]
    # Changes its sender made after it arrived: the latest edit, the deletion, earlier versions.
    edited_at: NotRequired[str | None]
    revoked_at: NotRequired[str | None]
    edits: NotRequired[list[dict[str, Any]] | None]
    _sandbox: NotRequired[bool]
    _note: NotRequired[str]


class Webhook(TypedDict):
    """A tenant webhook as the API shows it (never its secret)."""

    id: str
    url: str
    description: str | None
    events: list[str]
    all_events: bool
    phone_number_id: str | None
    enabled: bool
    auto_disabled_at: str | None
    auto_disabled_reason: str | None
    # While a rotated-out secret still signs beside the current one: when it stops.
    previous_secret_expires_at: str | None
    created_at: str
    updated_at: str


class CreatedWebhook(Webhook):
    """The answer to POST /v1/webhooks and to a secret rotation: the webhook plus its signing secret,
    shown only here."""

    secret: str


class WebhookTestDispatch(TypedDict):
    """The answer to POST /v1/webhooks/{id}/test."""

    event: str
    event_id: str
    webhook_id: str
    delivery_id: str


class AgentEvent(TypedDict):
    """An agent audit event (GET /v1/agent-events)."""

    id: str
    type: str
    thread_id: str
    run_id: str | None
    properties: dict[str, Any]
    created_at: str


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list endpoint: ``{data, page, per_page, total, has_more}``."""

    data: list[T]
    page: int
    per_page: int
    total: int
    has_more: bool
