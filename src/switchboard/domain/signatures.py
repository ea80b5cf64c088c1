"""Webhook signatures: ``sha256=<hex HMAC-SHA256 of the raw body>``.

Two signers share one format: the channel signs the webhooks it posts to the
service with the app secret (header ``X-Hub-Signature-256``), and the service
signs the deliveries it posts to tenant endpoints with the webhook's secret
(header ``X-Service-Signature``). Both are computed over the raw request bytes,
never over re-serialised JSON, because any re-encoding changes the digest.
"""

from __future__ import annotations

import hashlib
import hmac
import re

HUB_SIGNATURE_HEADER = "X-Hub-Signature-256"
SERVICE_SIGNATURE_HEADER = "X-Service-Signature"
SIGNATURE_PREFIX = "sha256="

_HEX_DIGEST = re.compile(r"^[0-9a-fA-F]{64}$")


def _sign(body: bytes, secret: str) -> str:
    if not secret:
        # An empty key still yields a digest, so anyone could forge it; refuse to sign.
        raise ValueError("a webhook signing secret must not be empty")
    digest = hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()
    return SIGNATURE_PREFIX + digest


def _verify(body: bytes, header_value: str | None, secret: str) -> bool:
    if not secret or not isinstance(header_value, str):
        return False
    value = header_value.strip()
    if not value.startswith(SIGNATURE_PREFIX):
        return False
    received = value[len(SIGNATURE_PREFIX) :]
    if not _HEX_DIGEST.match(received):
        return False
    expected = _sign(body, secret)[len(SIGNATURE_PREFIX) :]
    return hmac.compare_digest(expected, received.lower())


def hub_signature(body: bytes, secret: str) -> str:
    """Sign a channel webhook body the way the channel does (``X-Hub-Signature-256``)."""
    return _sign(body, secret)


def verify_hub_signature(body: bytes, header_value: str | None, secret: str) -> bool:
    """Check an ``X-Hub-Signature-256`` value against the raw body in constant time."""
    return _verify(body, header_value, secret)


def service_signature(body: bytes, secret: str) -> str:
    """Sign a tenant webhook delivery body (``X-Service-Signature``)."""
    return _sign(body, secret)


def verify_service_signature(body: bytes, header_value: str | None, secret: str) -> bool:
    """Check an ``X-Service-Signature`` value against the raw body in constant time."""
    return _verify(body, header_value, secret)
