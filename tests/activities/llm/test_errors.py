"""Provider error classification, Retry-After parsing and the Temporal error at the activity edge."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from switchboard.activities.llm.errors import (
    ProviderAuthError,
    ProviderBadRequest,
    ProviderError,
    ProviderOverloaded,
    ProviderRateLimited,
    ProviderUnavailable,
    as_application_error,
    error_for_status,
    retry_after_seconds,
)


@pytest.mark.parametrize(
    ("status", "error_class", "retryable"),
    [
        (400, ProviderBadRequest, False),
        (401, ProviderAuthError, False),
        (403, ProviderAuthError, False),
        (404, ProviderBadRequest, False),
        (408, ProviderUnavailable, True),
        (409, ProviderUnavailable, True),
        (413, ProviderBadRequest, False),
        (422, ProviderBadRequest, False),
        (429, ProviderRateLimited, True),
        (500, ProviderUnavailable, True),
        (502, ProviderUnavailable, True),
        (503, ProviderOverloaded, True),
        (504, ProviderUnavailable, True),
        (529, ProviderOverloaded, True),
    ],
)
def test_status_codes_map_to_typed_errors(
    status: int, error_class: type[ProviderError], retryable: bool
) -> None:
    error = error_for_status(status, provider="openai", message="m")
    assert type(error) is error_class
    assert error.retryable is retryable
    assert error.status_code == status


@pytest.mark.parametrize(
    ("status", "header", "retryable"),
    [(500, "false", False), (400, "true", True), (429, "maybe", True)],
)
def test_x_should_retry_overrides_the_default(status: int, header: str, retryable: bool) -> None:
    error = error_for_status(status, provider="anthropic", message="m", headers={"X-Should-Retry": header})
    assert error.retryable is retryable


NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, None),
        ({"retry-after": "12"}, 12.0),
        ({"Retry-After": "0.5"}, 0.5),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after": "Sun, 22 Nov 2026 12:00:30 GMT"}, 30.0),
        ({"retry-after": "Sun, 22 Nov 2026 11:00:00 GMT"}, 0.0),
        ({"retry-after": "soon"}, None),
    ],
)
def test_retry_after_is_read_from_either_header(headers: dict[str, str], expected: float | None) -> None:
    assert retry_after_seconds(headers, now=NOW) == expected


def test_retryable_errors_become_retryable_application_errors_with_the_delay() -> None:
    error = error_for_status(429, provider="mistral", message="slow down", headers={"retry-after": "3"})
    converted = as_application_error(error, secrets=())
    assert converted.type == "ProviderRateLimited"
    assert converted.non_retryable is False
    assert converted.next_retry_delay == timedelta(seconds=3)
    assert converted.details[0]["status_code"] == 429


def test_non_retryable_errors_become_non_retryable_application_errors() -> None:
    converted = as_application_error(error_for_status(401, provider="google", message="bad key"), secrets=())
    assert converted.type == "ProviderAuthError"
    assert converted.non_retryable is True
    assert converted.next_retry_delay is None
    assert "bad key" in converted.message


def test_long_provider_messages_are_truncated() -> None:
    error = error_for_status(400, provider="openai", message="x" * 5000)
    assert len(error.message) == 500
