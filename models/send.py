"""Payloads that cross the Temporal boundary for outbound sends (ids, not rows)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

SEND_WORKFLOW = "SendMessage"


def send_workflow_id(message_id: str) -> str:
    """The one workflow id a message's send may ever run under."""
    return f"send-{message_id}"


class SendInput(BaseModel):
    """What the send workflow needs; built by the API from the validated request."""

    message_id: str
    tenant_id: str
    phone_number_id: str
    waba_id: str
    body: dict[str, Any]
    # The other form of the recipient's number to try once after a 131030.
    alternate_to: str | None = None
    # Link media to download once and upload before sending: (type, link).
    media_link: str | None = None
    media_type: str | None = None
    # Messages per second of the phone's tier; None is unlimited.
    per_second: int | None = None
    idempotency_key: str | None = None
    # How long to keep retrying an unavailable upstream (SEND_RETRY_WINDOW_SECONDS).
    retry_window_seconds: int = 86_400


class UpstreamFailureInfo(BaseModel):
    code: str | None
    status_code: int
    error_title: str
    error_message: str
    upstream_code: int | None = None
    retry_alternate_phone: bool = False


class SendAttempt(BaseModel):
    message_id: str
    tenant_id: str
    phone_number_id: str
    waba_id: str
    body: dict[str, Any]


class SendAttemptResult(BaseModel):
    """Either the upstream's message id or a permanent failure (retryable ones are raised)."""

    wa_message_id: str | None = None
    failure: UpstreamFailureInfo | None = None


class SendOutcome(BaseModel):
    message_id: str
    tenant_id: str
    idempotency_key: str | None = None
    wa_message_id: str | None = None
    sent_to: str | None = None
    failure: UpstreamFailureInfo | None = None
    # True when retries were exhausted (the upstream stayed unavailable).
    transient: bool = False


class SendResult(BaseModel):
    """The HTTP answer the API gives for this send (also what a replay returns)."""

    status_code: int
    body: dict[str, Any]


class SlotRequest(BaseModel):
    phone_number_id: str
    per_second: int


class MediaPrepare(BaseModel):
    tenant_id: str
    phone_number_id: str
    waba_id: str
    link: str
    media_type: str


class MediaPrepared(BaseModel):
    media_id: str | None = None
    failure: UpstreamFailureInfo | None = None
