"""Payloads that cross the Temporal boundary for outbound sends (ids, not rows)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, model_validator

from switchboard.models.messages_api import MessagePublic


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


class SendOutcome(BaseModel):
    message_id: str
    tenant_id: str
    idempotency_key: str | None = None
    wa_message_id: str | None = None
    sent_to: str | None = None
    failure: UpstreamFailureInfo | None = None
    # True when retries were exhausted (the upstream stayed unavailable).
    transient: bool = False


class SendReport(BaseModel):
    """How a send ended: the SendMessage workflow's result (the API renders the spec's answer from it).

    Exactly one of ``sent`` (the message as recorded when the upstream accepted
    it) and ``failure`` is set.
    """

    message_id: str
    sent: MessagePublic | None = None
    failure: UpstreamFailureInfo | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_rendered_answer(cls, data: Any) -> Any:
        """Read the rendered ``{status_code, body}`` answer that sends recorded before this type.

        Histories of sends in flight across the deploy that introduced it hold
        that shape as the result of ``record_send_outcome`` (a workflow replays
        it from its history), and a worker of the previous release returns it.
        """
        if not isinstance(data, dict) or "status_code" not in data or "message_id" in data:
            return data
        body = data["body"]
        if data["status_code"] < 300:
            return {"message_id": body["id"], "sent": body}
        failure = {
            "code": body.get("code"),
            "status_code": data["status_code"],
            "error_title": body.get("error", ""),
            "error_message": body["error_message"],
        }
        return {"message_id": body["message_id"], "failure": failure}


class SendAttempt(BaseModel):
    message_id: str
    tenant_id: str
    phone_number_id: str
    waba_id: str
    body: dict[str, Any]
    # Tries made before this activity's own attempts (the local first try), so its backoff goes on
    # from there instead of starting again.
    attempts_before: int = 0
    # The phone's throughput tier: the try takes one slot of the current second first, and sends
    # nothing when the second is full (the local first try; the regular activity's retries take none).
    per_second: int | None = None
    # The outcome to record in this try when the upstream accepts (every try since the patch
    # "send-outcome-in-try"): all but the upstream's id, which the try adds.
    outcome_on_success: SendOutcome | None = None


class SendAttemptResult(BaseModel):
    """The upstream's message id, a permanent failure (retryable ones are raised), or no slot yet."""

    wa_message_id: str | None = None
    failure: UpstreamFailureInfo | None = None
    # Nothing was sent: the phone's current second is full; try again after this many seconds.
    slot_wait_seconds: float | None = None
    # The send as recorded by the try itself (the upstream accepted and the outcome committed); None
    # leaves the record to record_send_outcome, as before the patch "send-outcome-in-try".
    report: SendReport | None = None


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
