"""Identifiers in the shapes the channel uses."""

from __future__ import annotations

import base64
import secrets


def wamid(wa_id: str) -> str:
    """A ``wamid.`` id: base64 of a protobuf-like blob naming the peer, as real ids are."""
    peer = wa_id.encode("ascii", "ignore")[:20]
    blob = (
        b"\x1c\x18"
        + bytes([len(peer)])
        + peer
        + b"\x15\x02\x00\x11\x18\x12"
        + secrets.token_hex(9).upper().encode()
    )
    return "wamid." + base64.b64encode(blob + b"\x00").decode("ascii")


def numeric_id(length: int = 16) -> str:
    """A Graph object id (media, template): digits, no leading zero."""
    return str(secrets.randbelow(9) + 1) + "".join(str(secrets.randbelow(10)) for _ in range(length - 1))


def conversation_id() -> str:
    """A conversation id: 32 hex characters."""
    return secrets.token_hex(16)
