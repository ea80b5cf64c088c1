"""Verify the webhooks Switchboard posts to your endpoint.

The service signs every delivery twice, with the webhook's secret (``whsec_...``,
shown once when the webhook is created or its secret rotated)::

    webhook-id:          <delivery_id, stable across retries of one delivery>
    webhook-timestamp:   <this attempt's time, Unix seconds>
    webhook-signature:   v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">
    X-Service-Signature: sha256=<hex HMAC-SHA256 of the raw request body>
    X-Service-Event:     <event kind, e.g. channel.message.sent>
    X-Service-Delivery:  <delivery_id>

The first three are the Standard Webhooks scheme: its HMAC key is the secret's
base64 part decoded, and it signs the attempt's time, so ``verify`` refuses a
request older (or newer) than ``tolerance_seconds`` (5 minutes by default): a
captured request cannot be replayed later. While a rotation's overlap lasts,
``webhook-signature`` holds one signature per active secret and
``X-Service-Signature`` comes once per secret.

A request with no ``webhook-signature`` is checked on ``X-Service-Signature``,
which signs the body alone; the tolerance then bounds the signed
``occurred_at``. Both schemes cover the raw body bytes, so verify before
parsing or re-encoding, and deduplicate on ``delivery_id``.

Pure: no I/O, and the clock only through ``now``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

__all__ = [
    "DEFAULT_TOLERANCE_SECONDS",
    "DELIVERY_HEADER",
    "EVENT_HEADER",
    "SIGNATURE_HEADER",
    "STANDARD_ID_HEADER",
    "STANDARD_SIGNATURE_HEADER",
    "STANDARD_TIMESTAMP_HEADER",
    "WebhookVerificationError",
    "sign",
    "sign_standard",
    "verify",
]

SIGNATURE_HEADER = "X-Service-Signature"
EVENT_HEADER = "X-Service-Event"
DELIVERY_HEADER = "X-Service-Delivery"
STANDARD_ID_HEADER = "webhook-id"
STANDARD_TIMESTAMP_HEADER = "webhook-timestamp"
STANDARD_SIGNATURE_HEADER = "webhook-signature"
# The Standard Webhooks libraries' default window.
DEFAULT_TOLERANCE_SECONDS = 300.0
_PREFIX = "sha256="
_HEX_DIGEST = re.compile(r"[0-9a-fA-F]{64}")
_TIMESTAMP = re.compile(r"[0-9]{1,12}")


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


def sign_standard(payload: bytes | str, secret: str, *, msg_id: str, timestamp: int) -> str:
    """The ``webhook-signature`` value the service sends for this body, id and time with one secret."""
    content = f"{msg_id}.{timestamp}.".encode() + _raw(payload)
    digest = hmac.new(_standard_key(secret), content, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def verify(
    payload: bytes | str,
    headers: Mapping[str, str],
    secret: str | Sequence[str],
    *,
    tolerance_seconds: float | None = DEFAULT_TOLERANCE_SECONDS,
    now: datetime | None = None,
) -> dict[str, Any]:
    """Check a delivery's signature (constant time) and return the parsed event.

    ``payload`` is the raw request body; ``headers`` any mapping of the request's
    headers (names are matched case-insensitively). ``secret`` may be a list of
    secrets: while you roll a rotated secret out, pass the new and the old one.
    The Standard Webhooks signature is checked when the request has one, and
    ``webhook-timestamp`` must then lie within ``tolerance_seconds`` of ``now``
    (default: the current time); otherwise ``X-Service-Signature`` is checked and
    the tolerance bounds the signed ``occurred_at``. ``tolerance_seconds=None``
    skips the time check. Raises WebhookVerificationError on any failure.
    """
    body = _raw(payload)
    secrets = [secret] if isinstance(secret, str) else list(secret)
    if not secrets or not all(isinstance(s, str) and s for s in secrets):
        raise ValueError("verify needs at least one non-empty webhook secret")
    if now is not None and now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    current = now or datetime.now(UTC)
    standard = _header_values(headers, STANDARD_SIGNATURE_HEADER)
    if standard:
        sent_at = _check_standard_signature(body, headers, standard, secrets)
        event = _parse(body)
        _check_unsigned_headers(event, headers)
        if tolerance_seconds is not None:
            _check_skew(sent_at, "webhook-timestamp", tolerance_seconds=tolerance_seconds, now=current)
        return event
    _check_signature(body, _header_values(headers, SIGNATURE_HEADER), secrets)
    event = _parse(body)
    _check_unsigned_headers(event, headers)
    if tolerance_seconds is not None:
        _check_age(event, tolerance_seconds=tolerance_seconds, now=current)
    return event


def _standard_key(secret: str) -> bytes:
    """The HMAC key of the Standard Webhooks scheme: the secret's base64 part (either alphabet) decoded."""
    encoded = secret.removeprefix("whsec_").strip().replace("-", "+").replace("_", "/").rstrip("=")
    try:
        key = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("a webhook secret is whsec_ followed by base64") from None
    if not key:
        raise ValueError("a webhook secret must not be empty")
    return key


def _check_standard_signature(
    body: bytes, headers: Mapping[str, str], values: list[str], secrets: list[str]
) -> datetime:
    """Check ``webhook-signature`` against its id and timestamp; returns the signed time."""
    ids = _header_values(headers, STANDARD_ID_HEADER)
    stamps = _header_values(headers, STANDARD_TIMESTAMP_HEADER)
    if len(ids) != 1 or len(stamps) != 1 or not ids[0].strip():
        raise WebhookVerificationError(
            WebhookVerificationError.MALFORMED_SIGNATURE,
            f"{STANDARD_SIGNATURE_HEADER} needs exactly one {STANDARD_ID_HEADER} and one "
            f"{STANDARD_TIMESTAMP_HEADER} header",
        )
    msg_id, stamp = ids[0].strip(), stamps[0].strip()
    if not _TIMESTAMP.fullmatch(stamp):
        raise WebhookVerificationError(
            WebhookVerificationError.MALFORMED_SIGNATURE,
            f"{STANDARD_TIMESTAMP_HEADER} must be Unix seconds",
        )
    received = [
        part[3:] for value in values for part in value.split() if part.startswith("v1,") and len(part) > 3
    ]
    if not received:
        raise WebhookVerificationError(
            WebhookVerificationError.MALFORMED_SIGNATURE,
            f"{STANDARD_SIGNATURE_HEADER} must hold v1,<base64> signatures",
        )
    matched = False
    # Every comparison runs, so the time taken does not tell which secret or value was close.
    for key in secrets:
        expected = sign_standard(body, key, msg_id=msg_id, timestamp=int(stamp))[3:].encode()
        for value in received:
            matched = hmac.compare_digest(expected, value.encode()) or matched
    if not matched:
        raise WebhookVerificationError(
            WebhookVerificationError.SIGNATURE_MISMATCH,
            "the signature does not match the body, id, timestamp and secret "
            "(wrong secret, or the request was altered)",
        )
    return datetime.fromtimestamp(int(stamp), UTC)


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
    """Headers that repeat a body field must agree with the signed body."""
    pairs = ((EVENT_HEADER, "event"), (DELIVERY_HEADER, "delivery_id"), (STANDARD_ID_HEADER, "delivery_id"))
    for name, field in pairs:
        for value in _header_values(headers, name):
            if value.strip() != str(event.get(field, "")):
                raise WebhookVerificationError(
                    WebhookVerificationError.HEADER_MISMATCH,
                    f"{name} does not match the signed body's {field}",
                )


def _check_age(event: dict[str, Any], *, tolerance_seconds: float, now: datetime) -> None:
    text = event.get("occurred_at")
    try:
        occurred = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        occurred = None
    if occurred is None or occurred.tzinfo is None:
        raise WebhookVerificationError(
            WebhookVerificationError.INVALID_PAYLOAD, "the event has no timezone-aware occurred_at"
        )
    _check_skew(occurred, "occurred_at", tolerance_seconds=tolerance_seconds, now=now)


def _check_skew(signed: datetime, name: str, *, tolerance_seconds: float, now: datetime) -> None:
    skew = abs((now - signed).total_seconds())
    if skew > tolerance_seconds:
        raise WebhookVerificationError(
            WebhookVerificationError.OUTSIDE_TOLERANCE,
            f"the signed {name} is {skew:.0f} s from now, beyond the {tolerance_seconds:g} s tolerance",
        )
