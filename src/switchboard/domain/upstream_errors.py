"""Mapping of Cloud API errors to the spec's codes, HTTP answers and retry rules.

The upstream reports failures synchronously (HTTP 4xx/5xx with ``{"error": {...}}``)
and asynchronously (``statuses[].errors[]`` in webhooks, after it accepted the
send: 131047, 131026, 131049, 131050 ... usually arrive this way). Both go
through ``classify_upstream_error`` (late ones via ``classify_status_error``)
so a message row, a send response, a ``channel.message.failed`` event and a
retry decision always agree. Codes with a named spec code use it; the rest keep
the upstream number as the code (the spec's "upstream numeric" group).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from switchboard.domain.errors import (
    Forbidden,
    RateLimited,
    ServiceError,
    UpstreamUnavailable,
    ValidationFailed,
)

BACKOFF_BASE_SECONDS = 1.0
BACKOFF_CAP_SECONDS = 60.0
ALTERNATE_PHONE_CODE = 131030


@dataclass(frozen=True)
class UpstreamRule:
    """How one upstream error code is answered: spec code (None keeps the number), status, retry."""

    code: str | None
    status_code: int
    title: str
    retryable: bool = False
    retry_after_seconds: int | None = None
    retry_alternate_phone: bool = False


def _rate(title: str, wait: int) -> UpstreamRule:
    return UpstreamRule("RATE_LIMIT_EXCEEDED", 429, title, retryable=True, retry_after_seconds=wait)


def _numeric(status: int, title: str, *, retryable: bool = False) -> UpstreamRule:
    return UpstreamRule(None, status, title, retryable=retryable)


UPSTREAM_RULES: dict[int, UpstreamRule] = {
    0: _numeric(403, "Upstream authentication failed"),
    2: _numeric(503, "Upstream service temporarily unavailable", retryable=True),
    3: _numeric(403, "Capability not allowed for this business account"),
    4: _rate("Application rate limit reached upstream", 60),
    10: _numeric(403, "Permission denied upstream"),
    100: _numeric(400, "Invalid parameter"),
    190: _numeric(403, "Upstream authentication error: the WABA access token is expired or invalid"),
    368: UpstreamRule("WABA_SUSPENDED", 403, "Business account temporarily blocked for policy violations"),
    # The older (On-Premises era) number for the re-engagement failure; still seen in late failed statuses.
    470: UpstreamRule(
        "OUTSIDE_CONVERSATION_WINDOW", 400, "More than 24 h since the recipient last replied; send a template"
    ),
    80007: _rate("WhatsApp Business Account rate limit reached", 60),
    130429: _rate("Phone number throughput (messages per second) exceeded", 1),
    130472: _numeric(400, "Recipient's number is part of an experiment"),
    130497: _numeric(403, "Business account is restricted from messaging users in this country"),
    131000: _numeric(502, "Something went wrong upstream", retryable=True),
    131005: _numeric(403, "Access denied upstream"),
    131008: _numeric(400, "Required parameter is missing"),
    131009: _numeric(400, "Parameter value is not valid"),
    131016: _numeric(503, "Upstream service overloaded", retryable=True),
    131021: _numeric(400, "Sender and recipient are the same number"),
    131026: UpstreamRule(
        "RECIPIENT_NOT_ON_WHATSAPP", 400, "Message undeliverable: recipient is not on WhatsApp"
    ),
    131030: UpstreamRule(
        None, 400, "Recipient phone number not in allowed list (format)", retry_alternate_phone=True
    ),
    131031: UpstreamRule("WABA_SUSPENDED", 403, "Business account is locked"),
    131042: _numeric(403, "Business eligibility or payment issue"),
    131045: _numeric(400, "Business phone number is not registered (certificate)"),
    131047: UpstreamRule(
        "OUTSIDE_CONVERSATION_WINDOW", 400, "More than 24 h since the recipient last replied; send a template"
    ),
    131048: _rate("Spam rate limit reached", 60),
    131049: UpstreamRule(
        "QUALITY_FLAG_RED", 400, "Not delivered to maintain healthy ecosystem engagement (quality)"
    ),
    131050: UpstreamRule(
        "RECIPIENT_OPTED_OUT", 400, "Recipient stopped marketing messages from this business"
    ),
    131051: _numeric(400, "Unsupported message type"),
    131052: UpstreamRule("MEDIA_NOT_FOUND", 400, "Media could not be downloaded (kept 30 days)"),
    131053: UpstreamRule("MEDIA_NOT_FOUND", 400, "Media could not be uploaded or found (kept 30 days)"),
    131056: _rate("Too many messages to this recipient (pair rate limit)", 6),
    131057: _numeric(503, "Business account is in maintenance mode", retryable=True),
    131062: _numeric(400, "BSUID recipients are not supported for this message"),
    131063: _numeric(403, "Marketing templates are disabled for the Cloud API"),
    131064: _numeric(403, "Messaging limit reached because of template classification violations"),
    132000: UpstreamRule(
        "TEMPLATE_VARIABLE_COUNT_MISMATCH", 400, "Template parameter count does not match its variables"
    ),
    132001: _numeric(400, "Template not found (name and language) or not approved"),
    132005: _numeric(400, "Template hydrated text is too long"),
    132007: _numeric(400, "Template format character policy violated"),
    132008: _numeric(400, "Template parameter values are formatted incorrectly"),
    132012: _numeric(400, "Template parameter format mismatch"),
    132015: UpstreamRule("TEMPLATE_NOT_APPROVED", 400, "Template is paused"),
    132016: UpstreamRule("TEMPLATE_NOT_APPROVED", 400, "Template is disabled"),
    132018: _numeric(400, "Template parameter issue"),
    133004: _numeric(503, "Upstream server temporarily unavailable", retryable=True),
    133010: _numeric(400, "Business phone number is not registered"),
    135000: UpstreamRule("OUTSIDE_CONVERSATION_WINDOW", 400, "Out of the customer service window"),
    137000: _numeric(400, "Recipient identity key changed"),
}
_PERMISSION_RANGE = range(200, 300)


@dataclass(frozen=True)
class UpstreamFailure:
    """A classified upstream error: what the service answers and whether to try again."""

    code: str | None
    status_code: int
    error_title: str
    error_message: str
    retryable: bool
    retry_alternate_phone: bool = False
    retry_after_seconds: int | None = None
    upstream_status: int | None = None
    upstream_code: int | None = None
    upstream_subcode: int | None = None

    def to_service_error(self) -> ServiceError:
        """Return the typed error the API edge renders (code and error_message beside the usual body)."""
        details = {
            key: value
            for key, value in (
                ("upstream_code", self.upstream_code),
                ("upstream_subcode", self.upstream_subcode),
                ("upstream_status", self.upstream_status),
            )
            if value is not None
        }
        if self.status_code == 429:
            error: ServiceError = RateLimited(
                self.error_message, retry_after_seconds=self.retry_after_seconds or 1, code=self.code
            )
            error.details = details or None
        else:
            cls = {400: ValidationFailed, 403: Forbidden}.get(self.status_code, UpstreamUnavailable)
            error = cls(self.error_message, code=self.code, details=details or None)
            error.status_code = self.status_code
        error.extra["error_message"] = self.error_message
        return error


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return None


def _error_object(body: Any) -> Mapping[str, Any]:
    if isinstance(body, Mapping):
        inner = body.get("error")
        return inner if isinstance(inner, Mapping) else body
    return {}


def _is_media_parameter_error(code: int | None, text: str) -> bool:
    # Code 100 also covers an unknown or expired media id ("... is not a valid ... media ... ID").
    lowered = text.lower()
    return code == 100 and "media" in lowered and ("id" in lowered or "not found" in lowered)


def _fallback_rule(status: int | None, code: int | None, transient: bool) -> UpstreamRule:
    if code is not None and code in _PERMISSION_RANGE:
        return _numeric(403, "API permission error upstream")
    if status == 429:
        return _rate("Rate limited upstream", 60)
    if status is not None and status >= 500:
        answer = status if status in (503, 504) else 502
        return _numeric(answer, "Upstream error", retryable=True)
    if status in (401, 402, 403):
        return _numeric(403, "Upstream refused the request")
    return _numeric(400, "Upstream rejected the message", retryable=transient)


def classify_upstream_error(status_code: int | None, body: Any) -> UpstreamFailure:
    """Classify a Cloud API error envelope (sync) or a status-webhook error object (async, status None)."""
    error = _error_object(body)
    code = _as_int(error.get("code"))
    subcode = _as_int(error.get("error_subcode"))
    message = str(error.get("message") or error.get("title") or "")
    error_data = error.get("error_data")
    details = str(error_data.get("details") or "") if isinstance(error_data, Mapping) else ""
    transient = error.get("is_transient") is True
    rule = UPSTREAM_RULES.get(code) if code is not None else None
    if _is_media_parameter_error(code, f"{message} {details}"):
        rule = UpstreamRule("MEDIA_NOT_FOUND", 400, "Media id not found or expired (kept 30 days)")
    if rule is None:
        rule = _fallback_rule(status_code, code, transient)
    described = details or message
    error_message = f"{rule.title}: {described}" if described and described != rule.title else rule.title
    return UpstreamFailure(
        code=rule.code if rule.code is not None else (str(code) if code is not None else None),
        status_code=rule.status_code,
        error_title=rule.title,
        error_message=error_message,
        retryable=rule.retryable,
        retry_alternate_phone=rule.retry_alternate_phone,
        retry_after_seconds=rule.retry_after_seconds,
        upstream_status=status_code,
        upstream_code=code,
        upstream_subcode=subcode,
    )


def classify_status_error(
    *, code: int | None, title: str | None, message: str | None, details: str | None
) -> UpstreamFailure:
    """Classify the ``errors[0]`` of a late ``failed`` status webhook (the send was accepted earlier).

    The same table as a synchronous refusal, so a message that failed late carries the
    same spec code (and the upstream number beside it) as one refused at once.
    """
    error: dict[str, Any] = {"code": code, "title": title, "message": message}
    if details:
        error["error_data"] = {"details": details}
    return classify_upstream_error(None, error)


def classify_transport_failure(*, timed_out: bool) -> UpstreamFailure:
    """Classify a send that got no HTTP answer: 504 on timeout, 503 otherwise; both retryable."""
    title = "Upstream did not answer in time" if timed_out else "Upstream could not be reached"
    return UpstreamFailure(
        code=None,
        status_code=504 if timed_out else 503,
        error_title=title,
        error_message=title,
        retryable=True,
    )


def backoff_seconds(attempt: int, *, rand: float) -> float:
    """Delay before retry number `attempt` (1-based): 1 s doubling, jitter from `rand` in [0, 1], cap 60 s."""
    if attempt < 1:
        raise ValueError("attempt starts at 1")
    if not 0.0 <= rand <= 1.0:
        raise ValueError("rand must be within [0, 1]")
    base = min(BACKOFF_CAP_SECONDS, BACKOFF_BASE_SECONDS * 2 ** min(attempt - 1, 16))
    # Jitter spreads retries over [0.5, 1.5] x the base so a burst of failures does not retry in lockstep.
    return min(BACKOFF_CAP_SECONDS, base * (0.5 + rand))


def retry_delay_seconds(failure: UpstreamFailure, attempt: int, *, rand: float) -> float | None:
    """Delay before retrying a failure: its rate-limit wait, else backoff; None when permanent."""
    if not failure.retryable:
        return None
    if failure.retry_after_seconds is not None:
        return float(failure.retry_after_seconds)
    return backoff_seconds(attempt, rand=rand)
