"""The one reader of ``Retry-After`` (and the ``retry-after-ms`` some model providers send).

``Retry-After`` is either delta-seconds or an HTTP date (RFC 9110 section 10.2.3).
Receivers and providers bend the first form, so a fractional number of seconds
is accepted too; a negative, non-finite or unreadable value means "no advice"
(None) rather than "retry now". A date in the past means 0. The clock comes in
as ``now``; caps belong to the caller's policy, not here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _wait(value: float) -> float | None:
    return value if math.isfinite(value) and value >= 0 else None


def parse_retry_after(value: str | None, *, now: datetime) -> float | None:
    """Seconds a ``Retry-After`` value asks for (delta-seconds or an HTTP date), or None if unreadable."""
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    number = _number(text)
    if number is not None:
        return _wait(number)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:
        # "-0000" parses naive; HTTP dates are always GMT.
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - now).total_seconds())


def parse_retry_after_ms(value: str | None) -> float | None:
    """Seconds a ``retry-after-ms`` value (milliseconds, OpenAI and Anthropic) asks for, or None."""
    if value is None:
        return None
    number = _number(value.strip())
    millis = None if number is None else _wait(number)
    return millis / 1000 if millis is not None else None


def retry_after_from_headers(headers: Mapping[str, str] | None, *, now: datetime) -> float | None:
    """Seconds to wait from a response's headers: ``retry-after-ms`` first, then ``retry-after``."""
    if not headers:
        return None
    lowered = {key.lower(): value for key, value in headers.items()}
    from_ms = parse_retry_after_ms(lowered.get("retry-after-ms"))
    if from_ms is not None:
        return from_ms
    return parse_retry_after(lowered.get("retry-after"), now=now)
