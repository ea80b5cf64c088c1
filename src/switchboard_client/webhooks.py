"""Verify the webhooks Switchboard posts to your endpoint.

The service signs every delivery with the webhook's secret (``whsec_...``, shown
once when the webhook is created)::

    X-Service-Signature: sha256=<hex HMAC-SHA256 of the raw request body>
    X-Service-Event:     <event kind, e.g. channel.message.sent>
    X-Service-Delivery:  <delivery_id, stable across retries of one delivery>

The digest covers the raw body bytes, so verify before parsing or re-encoding.
The scheme signs no timestamp: a captured delivery can be replayed, and retries
legitimately re-send the same bytes for up to about 28 hours. Deduplicate on
``delivery_id``; ``tolerance_seconds`` optionally bounds the age of the signed
``occurred_at`` for receivers that would rather drop stale events.

Pure: no I/O, and the clock only through ``now``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

__all__ = [
    "DELIVERY_HEADER",
    "EVENT_HEADER",
    "SIGNATURE_HEADER",
    "WebhookVerificationError",
    "sign",
    "verify",
]

SIGNATURE_HEADER = "X-Service-Signature"
EVENT_HEADER = "X-Service-Event"
DELIVERY_HEADER = "X-Service-Delivery"
_PREFIX = "sha256="
_HEX_DIGEST = re.compile(r"[0-9a-fA-F]{64}")


class WebhookVerificationError(Exception):
    """A delivery that must not be trusted; ``reason`` says why in one stable word."""

    MISSING_SIGNATURE = "missing_signature"
    MALFORMED_SIGNATURE = "malformed_signature"
    SIGNATURE_MISMATCH = "signature_mismatch"
    INVALID_PAYLOAD = "invalid_payload"
    HEADER_MISMATCH = "header_mismatch"
    OUTSIDE_TOLERANCE = "outside_tolerance"

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


def sign(payload: bytes | str, secret: str) -> str:
    """The ``X-Service-Signature`` value the service sends for this body (for your own tests)."""
    if not secret:
        raise ValueError("a webhook signing secret must not be empty")
    digest = hmac.new(secret.encode("utf-8"), _raw(payload), hashlib.sha256).hexdigest()
    return _PREFIX + digest


def verify(
    payload: bytes | str,
    headers: Mapping[str, str],
    secret: str | Sequence[str],
    *,
    tolerance_seconds: float | None = None,
    now: datetime | None = None,
) -> dict[str, Any]:
    """Check a delivery's signature (constant time) and return the parsed event.

    ``payload`` is the raw request body; ``headers`` any mapping of the request's
    headers (names are matched case-insensitively). ``secret`` may be a list of
    secrets, so a receiver moving from one webhook to another accepts both while
    it switches. With ``tolerance_seconds`` set, an event whose signed
    ``occurred_at`` lies further than that from ``now`` (default: the current
    time) is refused as well. Raises WebhookVerificationError on any failure.
    """
    body = _raw(payload)
    secrets = [secret] if isinstance(secret, str) else list(secret)
    if not secrets or not all(isinstance(s, str) and s for s in secrets):
        raise ValueError("verify needs at least one non-empty webhook secret")
    _check_signature(body, _header_values(headers, SIGNATURE_HEADER), secrets)
    event = _parse(body)
    _check_unsigned_headers(event, headers)
    if tolerance_seconds is not None:
        _check_age(event, tolerance_seconds=tolerance_seconds, now=now or datetime.now(UTC))
    return event


def _raw(payload: bytes | str) -> bytes:
    if isinstance(payload, bytes | bytearray | memoryview):
        return bytes(payload)
    if isinstance(payload, str):
        return payload.encode("utf-8")
    raise TypeError("payload must be the raw request body (bytes or str), not a parsed object")


def _header_values(headers: Mapping[str, str], name: str) -> list[str]:
    """Every value of ``name``; ``items()`` of multi-value mappings (Starlette, httpx) yields them all."""
    wanted = name.lower()
    items: Iterable[tuple[str, str]] = headers.items()
    multi = getattr(headers, "multi_items", None)  # Starlette's Headers keep duplicates here
    if callable(multi):
        items = multi()
    return [str(value) for key, value in items if str(key).lower() == wanted]


def _check_signature(body: bytes, values: list[str], secrets: list[str]) -> None:
    if not values:
        raise WebhookVerificationError(
            WebhookVerificationError.MISSING_SIGNATURE, f"the request has no {SIGNATURE_HEADER} header"
        )
    received: list[str] = []
    for value in values:
        text = value.strip()
        digest = text[len(_PREFIX) :] if text.startswith(_PREFIX) else ""
        if _HEX_DIGEST.fullmatch(digest):
            received.append(digest.lower())
    if not received:
        raise WebhookVerificationError(
            WebhookVerificationError.MALFORMED_SIGNATURE,
            f"{SIGNATURE_HEADER} must be sha256=<64 hex digits>",
        )
    matched = False
    # Every comparison runs, so the time taken does not tell which secret or value was close.
    for key in secrets:
        expected = sign(body, key)[len(_PREFIX) :]
        for digest in received:
            matched = hmac.compare_digest(expected, digest) or matched
    if not matched:
        raise WebhookVerificationError(
            WebhookVerificationError.SIGNATURE_MISMATCH,
            "the signature does not match the body and secret (wrong secret, or the body was altered)",
        )


def _parse(body: bytes) -> dict[str, Any]:
    try:
        event = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise WebhookVerificationError(
            WebhookVerificationError.INVALID_PAYLOAD, f"the body is not JSON: {exc}"
        ) from None
    if not isinstance(event, dict) or not isinstance(event.get("event"), str):
        raise WebhookVerificationError(
            WebhookVerificationError.INVALID_PAYLOAD, "the body is not an event envelope (no event field)"
        )
    return event


def _check_unsigned_headers(event: dict[str, Any], headers: Mapping[str, str]) -> None:
    """The event and delivery headers are not signed; refuse them when they contradict the body."""
    for name, field in ((EVENT_HEADER, "event"), (DELIVERY_HEADER, "delivery_id")):
        for value in _header_values(headers, name):
            if value.strip() != str(event.get(field, "")):
                raise WebhookVerificationError(
                    WebhookVerificationError.HEADER_MISMATCH,
                    f"{name} does not match the signed body's {field}",
                )


def _check_age(event: dict[str, Any], *, tolerance_seconds: float, now: datetime) -> None:
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    text = event.get("occurred_at")
    try:
        occurred = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        occurred = None
    if occurred is None or occurred.tzinfo is None:
        raise WebhookVerificationError(
            WebhookVerificationError.INVALID_PAYLOAD, "the event has no timezone-aware occurred_at"
        )
    skew = abs((now - occurred).total_seconds())
    if skew > tolerance_seconds:
        raise WebhookVerificationError(
            WebhookVerificationError.OUTSIDE_TOLERANCE,
            f"the event occurred {skew:.0f} s from now, beyond the {tolerance_seconds:g} s tolerance",
        )
