"""The spec's error body, shared by the API edge and the activities that compute API answers."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any


def error_body(
    status: int, message: str, *, code: str | None = None, details: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The spec's error body."""
    body: dict[str, Any] = {"statusCode": status, "message": message, "error": _phrase(status)}
    if details:
        body["details"] = details
    if code:
        body["code"] = code
    return body


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"
