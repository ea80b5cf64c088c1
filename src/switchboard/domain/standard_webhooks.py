"""Standard Webhooks signatures (``webhook-id``, ``webhook-timestamp``, ``webhook-signature``).

The service's own header, ``X-Service-Signature``, signs the body alone, so a receiver cannot tell a
fresh request from a replayed one. The Standard Webhooks scheme (standardwebhooks.com, the scheme
Svix sends) signs ``{webhook-id}.{webhook-timestamp}.{body}``: the delivery id lets a receiver drop
duplicates, the per-attempt timestamp lets it drop stale requests, and ``webhook-signature`` holds one
``v1,<base64 HMAC-SHA256>`` per active secret, space-separated, so a secret can be rotated while
both are in use.

The HMAC key is the secret's base64 part decoded (after ``whsec_``), as the scheme's libraries read it.
Secrets issued before this scheme use the URL-safe alphabet; they decode here with either alphabet,
and rotating such a secret once gives one in the standard alphabet that every library reads.

Pure: no I/O; the timestamp is the caller's.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from collections.abc import Sequence

ID_HEADER = "webhook-id"
TIMESTAMP_HEADER = "webhook-timestamp"
SIGNATURE_HEADER = "webhook-signature"
VERSION = "v1"
SECRET_PREFIX = "whsec_"


def signing_key(secret: str) -> bytes:
    """The HMAC key of a ``whsec_`` secret: its base64 part decoded (standard or URL-safe alphabet)."""
    encoded = secret.removeprefix(SECRET_PREFIX).strip()
    if not encoded:
        raise ValueError("a webhook signing secret must not be empty")
    standard = encoded.replace("-", "+").replace("_", "/").rstrip("=")
    try:
        key = base64.b64decode(standard + "=" * (-len(standard) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("a webhook signing secret must be whsec_ followed by base64") from None
    if not key:
        raise ValueError("a webhook signing secret must not be empty")
    return key


def signed_content(msg_id: str, timestamp: int, body: bytes) -> bytes:
    """What the signature covers: ``{id}.{timestamp}.{body}`` (the body as raw bytes)."""
    return f"{msg_id}.{timestamp}.".encode() + body


def sign(secret: str, *, msg_id: str, timestamp: int, body: bytes) -> str:
    """One ``v1,<base64 HMAC-SHA256>`` signature of the content with this secret."""
    digest = hmac.new(signing_key(secret), signed_content(msg_id, timestamp, body), hashlib.sha256).digest()
    return f"{VERSION},{base64.b64encode(digest).decode('ascii')}"


def signature_header(secrets: Sequence[str], *, msg_id: str, timestamp: int, body: bytes) -> str:
    """The ``webhook-signature`` value: one signature per active secret, space-separated."""
    if not secrets:
        raise ValueError("at least one signing secret is needed")
    return " ".join(sign(secret, msg_id=msg_id, timestamp=timestamp, body=body) for secret in secrets)


def matches(secrets: Sequence[str], header_value: str, *, msg_id: str, timestamp: int, body: bytes) -> bool:
    """Whether any ``v1`` signature in the header was made with any of the secrets (constant time each)."""
    received = [
        part.split(",", 1)[1]
        for part in header_value.split()
        if part.startswith(f"{VERSION},") and len(part) > len(VERSION) + 1
    ]
    matched = False
    # Every comparison runs, so the time taken does not tell which secret or value was close.
    for secret in secrets:
        expected = sign(secret, msg_id=msg_id, timestamp=timestamp, body=body).split(",", 1)[1]
        for value in received:
            matched = hmac.compare_digest(expected.encode(), value.encode()) or matched
    return matched
