"""Typed service errors.

Every failure the service reports to a client is one of these. They carry the
HTTP status and the spec's ``code`` so the API edge can render the spec's error
body (``statusCode``, ``message``, ``error``, ``details``, ``code``) without
knowing where the error came from, and the activity edge can decide whether a
failure is retryable. Nothing here does I/O.
"""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """Base of every error that maps to an HTTP answer."""

    status_code: int = 400
    default_code: str | None = None

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        details: dict[str, Any] | None = None,
        extra: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code if code is not None else self.default_code
        self.details = details
        # Top-level body fields beyond the standard ones (e.g. error_message,
        # retry_after_seconds) that some spec answers carry.
        self.extra = extra or {}
        self.headers = headers or {}


class ValidationFailed(ServiceError):
    """400: the request is malformed or breaks a field rule."""

    status_code = 400


class MissingRequiredField(ValidationFailed):
    """400 MISSING_REQUIRED_FIELD with ``details.field`` naming the field."""

    default_code = "MISSING_REQUIRED_FIELD"

    def __init__(self, field: str, message: str | None = None) -> None:
        super().__init__(message or f"{field} is required", details={"field": field})
        self.field = field


class Unauthorized(ServiceError):
    """401: missing, malformed, unknown or revoked key."""

    status_code = 401


class Forbidden(ServiceError):
    """403: the caller may not do this (role, paused sending, ...)."""

    status_code = 403


class NotFound(ServiceError):
    """404: unknown, or owned by another tenant (never 403 for that)."""

    status_code = 404

    def __init__(self, resource: str, resource_id: str | None = None) -> None:
        message = f"{resource} not found" if resource_id is None else f"{resource} {resource_id} not found"
        super().__init__(message)
        self.resource = resource


class MethodNotAllowed(ServiceError):
    """405: e.g. PATCH on an immutable AgentVersion."""

    status_code = 405


class Conflict(ServiceError):
    """409: request_in_progress, delete and ownership conflicts."""

    status_code = 409


class UnsupportedMediaType(ServiceError):
    """415: a body that is not application/json where JSON is expected."""

    status_code = 415


class Unprocessable(ServiceError):
    """422: semantically invalid (e.g. unknown model, bad tool declaration)."""

    status_code = 422


class RateLimited(ServiceError):
    """429: carries ``retry_after_seconds`` in the body and ``Retry-After``."""

    status_code = 429

    def __init__(
        self,
        message: str,
        *,
        retry_after_seconds: int,
        code: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        retry_after_seconds = max(1, int(retry_after_seconds))
        super().__init__(
            message,
            code=code,
            details=details,
            extra={"retry_after_seconds": retry_after_seconds},
            headers={"Retry-After": str(retry_after_seconds)},
        )
        self.retry_after_seconds = retry_after_seconds


class InternalFailure(ServiceError):
    """500: the service failed; the body still has the spec's shape, never a trace."""

    status_code = 500


class UpstreamUnavailable(ServiceError):
    """502/503/504: the channel could not be reached or is failing."""

    status_code = 503
