"""API key format, generation and hashing.

Keys are 32 random bytes, so a plain SHA-256 is a safe lookup hash (no
stretching needed for high-entropy secrets) and costs microseconds per request.
"""

from __future__ import annotations

import base64
import hashlib
import re

from switchboard.domain.errors import Unauthorized

LIVE_PREFIX = "gsk_live_"
TEST_PREFIX = "gsk_test_"
_BODY = re.compile(r"^[A-Za-z0-9_-]{20,128}$")


def key_mode(api_key: str) -> str:
    """``live`` or ``test`` from the key's prefix; MALFORMED_API_KEY otherwise."""
    for prefix, mode in ((LIVE_PREFIX, "live"), (TEST_PREFIX, "test")):
        if api_key.startswith(prefix) and _BODY.match(api_key[len(prefix) :]):
            return mode
    raise Unauthorized(
        "API key is malformed: expected gsk_live_... or gsk_test_...", code="MALFORMED_API_KEY"
    )


def generate_key(mode: str, random_bytes: bytes) -> str:
    """A new key of ``mode`` from 32 caller-supplied random bytes."""
    if len(random_bytes) < 24:
        raise ValueError("an API key needs at least 24 random bytes")
    body = base64.urlsafe_b64encode(random_bytes).decode().rstrip("=")
    return (LIVE_PREFIX if mode == "live" else TEST_PREFIX) + body


def hash_key(api_key: str) -> str:
    """The stored lookup hash of a key."""
    return hashlib.sha256(api_key.encode()).hexdigest()


def display_prefix(api_key: str) -> str:
    """Enough of a key to recognise it in a list, never enough to use it."""
    return api_key[: len(LIVE_PREFIX) + 4]
