"""Blanking secret values (provider keys, WABA tokens) out of text we did not write.

An upstream or a model endpoint may echo the request back in its error (proxies
and gateways do, headers included), so any error text built from an answer can
carry the credential we sent. The activities run that text through a
``Redactor`` of the values they sent before it becomes a Temporal failure, a
stored field or a log line.

What is blanked, for each secret of at least ``MIN_SECRET_CHARS`` characters:
the value itself (so also after ``Bearer `` or in a header dump), its
percent-encoded forms (upper- and lower-case hex, ``+`` for spaces), its JSON
string escape, its base64 (standard and URL-safe, padded or not), a ``Basic``
credential whose decoded ``user:password`` contains it, and a truncated piece
of it: at least ``FRAGMENT_CHARS`` characters of its start or of its end (an
error text cut mid-key). Shorter secrets are left alone: blanking them would
garble ordinary words and they protect nothing.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Collection, Iterable
from typing import Any
from urllib.parse import quote, quote_plus

REDACTED = "[redacted]"
MIN_SECRET_CHARS = 8
FRAGMENT_CHARS = 12

_BASIC = re.compile(r"(?i)\b(Basic\s+)([A-Za-z0-9+/_-]{4,}={0,2})")
_PERCENT_HEX = re.compile(r"%[0-9A-F]{2}")


def _encodings(secret: str) -> set[str]:
    raw = secret.encode()
    forms = {secret, quote(secret, safe=""), quote_plus(secret, safe=""), json.dumps(secret)[1:-1]}
    forms.add(json.dumps(secret)[1:-1].replace("/", "\\/"))
    for form in list(forms):
        forms.add(_PERCENT_HEX.sub(lambda m: m.group(0).lower(), form))
    for encoded in (base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode()):
        forms.update((encoded, encoded.rstrip("=")))
    return forms


def _decoded_basic(credential: str) -> str | None:
    padded = credential + "=" * (-len(credential) % 4)
    try:
        return base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return None


class Redactor:
    """Replaces every known form of a set of secret values with ``[redacted]``."""

    def __init__(self, secrets: Iterable[str | None]) -> None:
        self._secrets = tuple(sorted({s for s in secrets if s and len(s) >= MIN_SECRET_CHARS}, key=len))
        forms: set[str] = set()
        for secret in self._secrets:
            forms |= _encodings(secret)
        # Longest first, so a form that contains another is blanked whole.
        self._forms = sorted(forms, key=len, reverse=True)

    def __bool__(self) -> bool:
        return bool(self._secrets)

    def text(self, text: str) -> str:
        """``text`` with every form and every truncated piece of each secret blanked out."""
        if not self._secrets or not text:
            return text
        text = _BASIC.sub(self._basic, text)
        for form in self._forms:
            text = text.replace(form, REDACTED)
        for secret in self._secrets:
            text = _fragments(text, secret)
        return text

    def value(self, value: Any) -> Any:
        """A copy of a JSON-like value (dicts, lists, strings) with ``text`` applied to every string."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.value(key): self.value(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(item) for item in value]
        return value

    def _basic(self, match: re.Match[str]) -> str:
        decoded = _decoded_basic(match.group(2))
        if decoded is not None and any(secret in decoded for secret in self._secrets):
            return match.group(1) + REDACTED
        return match.group(0)


def _fragments(text: str, secret: str) -> str:
    """Blank runs of at least FRAGMENT_CHARS characters that begin or end the secret (a cut-off copy)."""
    if len(secret) <= FRAGMENT_CHARS:
        return text
    head, tail = secret[:FRAGMENT_CHARS], secret[-FRAGMENT_CHARS:]
    at = text.find(head)
    while at != -1:
        stop = at + FRAGMENT_CHARS
        while stop < len(text) and stop - at < len(secret) and text[stop] == secret[stop - at]:
            stop += 1
        text = text[:at] + REDACTED + text[stop:]
        at = text.find(head, at + len(REDACTED))
    at = text.find(tail)
    while at != -1:
        begin, matched = at, FRAGMENT_CHARS
        while begin > 0 and matched < len(secret) and text[begin - 1] == secret[-matched - 1]:
            begin, matched = begin - 1, matched + 1
        text = text[:begin] + REDACTED + text[at + FRAGMENT_CHARS :]
        at = text.find(tail, begin + len(REDACTED))
    return text


def redact_secrets(text: str, secrets: Collection[str | None]) -> str:
    """``text`` with every form of each of ``secrets`` blanked out (see the module's list)."""
    return Redactor(secrets).text(text)
