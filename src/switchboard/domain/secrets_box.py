"""AES-256-GCM sealing of secrets at rest (binding secrets, WABA tokens).

Each value gets a fresh 96-bit nonce and is bound to its owner through the
associated data (e.g. the binding id), so a ciphertext copied onto another row
fails to open instead of leaking into the wrong tenant's requests.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

_VERSION = b"\x01"
_NONCE_BYTES = 12


class SecretDecryptionError(Exception):
    """The ciphertext does not open with this key and associated data."""


def seal(
    key: bytes, plaintext: str, *, associated_data: str, nonce_source: Callable[[int], bytes] = os.urandom
) -> str:
    """Encrypt ``plaintext``; returns base64 of version, nonce and ciphertext."""
    nonce = nonce_source(_NONCE_BYTES)
    sealed = AESGCM(key).encrypt(nonce, plaintext.encode(), associated_data.encode())
    return base64.b64encode(_VERSION + nonce + sealed).decode()


def open_sealed(key: bytes, token: str, *, associated_data: str) -> str:
    """Decrypt a value produced by :func:`seal` with the same associated data."""
    try:
        raw = base64.b64decode(token, validate=True)
    except ValueError as exc:
        raise SecretDecryptionError("not a sealed value") from exc
    if len(raw) < 1 + _NONCE_BYTES + 16 or raw[:1] != _VERSION:
        raise SecretDecryptionError("not a sealed value")
    nonce, sealed = raw[1 : 1 + _NONCE_BYTES], raw[1 + _NONCE_BYTES :]
    try:
        return AESGCM(key).decrypt(nonce, sealed, associated_data.encode()).decode()
    except InvalidTag as exc:
        raise SecretDecryptionError("wrong key or associated data") from exc
