"""The one exception the client raises for an error answer, parsed from the spec's error body."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

__all__ = ["SwitchboardError"]


class SwitchboardError(Exception):
    """An error answer: ``{"statusCode", "message", "error", "details"?, "code"?}``.

    ``code`` is the service's error code (``INVALID_API_KEY``,
    ``request_in_progress``, ...) when the body has one; ``retry_after_seconds``
    is set on a 429. ``body`` keeps every field of the answer.
    """

    def __init__(
        self,
        status_code: int,
        code: str | None,
        message: str,
        details: Mapping[str, Any] | None = None,
        *,
        error: str | None = None,
        retry_after_seconds: float | None = None,
        body: Mapping[str, Any] | None = None,
        request_id: str | None = None,
    ) -> None:
        super().__init__(f"{status_code} {code or error or 'error'}: {message}")
        self.status_code = status_code
        self.code = code
        self.message = message
        self.details: dict[str, Any] = dict(details or {})
        self.error = error
        self.retry_after_seconds = retry_after_seconds
        self.body: dict[str, Any] = dict(body or {})
        self.request_id = request_id

    @property
    def retryable(self) -> bool:
        """What the spec's retry guidance allows: 429 after its wait, 5xx with backoff."""
        return self.status_code == 429 or self.status_code >= 500

    @classmethod
    def from_response(cls, response: httpx.Response) -> SwitchboardError:
        """Parse an error answer; a body that is not the spec's shape still gives a usable error."""
        try:
            parsed = response.json()
        except ValueError:
            parsed = None
        body: dict[str, Any] = parsed if isinstance(parsed, dict) else {}
        message = body.get("message")
        if not isinstance(message, str):
            message = response.text[:500] or response.reason_phrase
        details = body.get("details")
        code = body.get("code")
        error = body.get("error")
        return cls(
            response.status_code,
            code if isinstance(code, str) else None,
            message,
            details if isinstance(details, dict) else None,
            error=error if isinstance(error, str) else None,
            retry_after_seconds=retry_after(response),
            body=body,
            request_id=response.headers.get("x-request-id"),
        )


def retry_after(response: httpx.Response) -> float | None:
    """Seconds to wait before retrying: the Retry-After header, else the body's retry_after_seconds."""
    header = response.headers.get("retry-after")
    if header is not None:
        try:
            return max(0.0, float(header))
        except ValueError:
            pass  # an HTTP date; the service sends seconds, and the body carries them too
    try:
        value = response.json().get("retry_after_seconds")
    except (ValueError, AttributeError):
        return None
    return max(0.0, float(value)) if isinstance(value, int | float) else None
