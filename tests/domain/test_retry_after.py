"""The one Retry-After reader: delta-seconds, HTTP dates, retry-after-ms, and what counts as no advice."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from switchboard.domain.retry_after import parse_retry_after, parse_retry_after_ms, retry_after_from_headers

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("120", 120.0),
        (" 7 ", 7.0),
        ("0", 0.0),
        ("0.5", 0.5),
        ("1.25", 1.25),
        ("Sun, 22 Nov 2026 12:00:30 GMT", 30.0),
        ("22 Nov 2026 12:05:00 GMT", 300.0),
        ("Sun, 22 Nov 2026 12:00:30 -0000", 30.0),
        ("Sun, 22 Nov 2026 11:00:00 GMT", 0.0),
        ("Sun, 06 Nov 1994 08:49:37 GMT", 0.0),
        ("-5", None),
        ("-0.5", None),
        ("inf", None),
        ("nan", None),
        ("1e400", None),
        ("soon", None),
        ("12 seconds", None),
        ("Sun, 99 Nov 2026 12:00:30 GMT", None),
        ("", None),
        ("   ", None),
        (None, None),
    ],
)
def test_parse_retry_after(value: str | None, expected: float | None) -> None:
    assert parse_retry_after(value, now=NOW) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [("250", 0.25), ("1500.5", 1.5005), ("0", 0.0), ("-1", None), ("later", None), ("", None), (None, None)],
)
def test_parse_retry_after_ms(value: str | None, expected: float | None) -> None:
    assert parse_retry_after_ms(value) == expected


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        (None, None),
        ({}, None),
        ({"content-type": "application/json"}, None),
        ({"Retry-After": "12"}, 12.0),
        ({"RETRY-AFTER": "Sun, 22 Nov 2026 12:01:00 GMT"}, 60.0),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"Retry-After-Ms": "bogus", "Retry-After": "9"}, 9.0),
        ({"retry-after-ms": "-3", "retry-after": "soon"}, None),
    ],
)
def test_retry_after_from_headers_prefers_milliseconds(
    headers: dict[str, str] | None, expected: float | None
) -> None:
    assert retry_after_from_headers(headers, now=NOW) == expected
