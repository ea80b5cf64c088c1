"""Signed tokens of the embedded inbox: short-lived links and the session they are exchanged for.

A token is ``<payload>.<signature>``: the payload is compact JSON in base64url,
the signature HMAC-SHA256 over the encoded payload. Keys are derived from
SWITCHBOARD_SECRETS_KEY with a distinct label per purpose, so a link can never
be replayed as a session (or the other way round) and rotating the secrets key
invalidates every outstanding link and session at once.

Claims: ``typ`` (link or session), ``tid`` (tenant), ``kid`` (the API key that
issued the link: the session acts with that key's tenant, role and limits, and
dies with it), ``ral`` (requireAgentLogin), ``pn`` (optional phone-number
scope, the channel id), ``iat``, ``exp`` (epoch seconds) and ``jti`` (random).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
from dataclasses import asdict, dataclass
from typing import Any

LINK = "link"
SESSION = "session"
_LABELS = {
    LINK: b"switchboard/portal/inbox-embed-link/v1",
    SESSION: b"switchboard/portal/inbox-session/v1",
    "csrf": b"switchboard/portal/inbox-csrf/v1",
}
# A token issued "in the future" by more than this (clock skew between API processes) is refused.
MAX_CLOCK_SKEW_SECONDS = 60
MAX_TOKEN_LENGTH = 2048


class BadToken(Exception):
    """The token is malformed, forged, of the wrong kind or expired (``reason`` says which)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Claims:
    typ: str
    tid: str
    kid: str
    ral: bool
    pn: str | None
    iat: int
    exp: int
    jti: str


def derive_key(secrets_key: bytes, purpose: str) -> bytes:
    """The HMAC key for one purpose (link, session, csrf), derived from the service secret."""
    return hmac.new(secrets_key, _LABELS[purpose], hashlib.sha256).digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)


def issue(
    secrets_key: bytes,
    *,
    typ: str,
    tenant_id: str,
    key_id: str,
    require_agent_login: bool,
    phone_number_id: str | None,
    now: int,
    ttl_seconds: int,
    jti: str | None = None,
) -> tuple[str, Claims]:
    """A signed token of kind ``typ`` and its claims."""
    claims = Claims(
        typ=typ,
        tid=tenant_id,
        kid=key_id,
        ral=require_agent_login,
        pn=phone_number_id,
        iat=now,
        exp=now + ttl_seconds,
        jti=jti or os.urandom(12).hex(),
    )
    body = _b64(json.dumps(asdict(claims), separators=(",", ":"), sort_keys=True).encode())
    signature = hmac.new(derive_key(secrets_key, typ), body.encode(), hashlib.sha256).digest()
    return f"{body}.{_b64(signature)}", claims


def verify(secrets_key: bytes, token: str, *, typ: str, now: int) -> Claims:
    """The claims of a genuine, unexpired token of kind ``typ``; BadToken otherwise."""
    if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_LENGTH or token.count(".") != 1:
        raise BadToken("malformed")
    body, signature = token.split(".")
    expected = hmac.new(derive_key(secrets_key, typ), body.encode(), hashlib.sha256).digest()
    try:
        given = _unb64(signature)
    except (binascii.Error, ValueError):
        raise BadToken("malformed") from None
    if not hmac.compare_digest(given, expected):
        raise BadToken("bad signature")
    try:
        raw: Any = json.loads(_unb64(body))
        claims = Claims(**raw)
    except (binascii.Error, ValueError, TypeError):
        raise BadToken("malformed") from None
    if claims.typ != typ:
        raise BadToken("wrong kind")
    if claims.iat > now + MAX_CLOCK_SKEW_SECONDS:
        raise BadToken("issued in the future")
    if claims.exp <= now:
        raise BadToken("expired")
    return claims


def csrf_token(secrets_key: bytes, session_jti: str) -> str:
    """The anti-forgery value bound to one session (sent back by the page as X-Portal-CSRF)."""
    return _b64(hmac.new(derive_key(secrets_key, "csrf"), session_jti.encode(), hashlib.sha256).digest())


def csrf_matches(secrets_key: bytes, session_jti: str, given: str | None) -> bool:
    """Constant-time check of a page's X-Portal-CSRF header against its session."""
    if not given:
        return False
    return hmac.compare_digest(given.encode(), csrf_token(secrets_key, session_jti).encode())
