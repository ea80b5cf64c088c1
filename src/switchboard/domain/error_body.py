"""The spec's error body, shared by the API edge and the activities that compute API answers.

Every error carries a ``code``: the specific one its raiser names (``MESSAGE_NOT_FOUND``,
``VALIDATION_FAILED``, ...) or, when nothing more specific applies (an unknown route, a wrong method, a
body too large), the generic code of its status. A client can branch on ``code`` alone. ``error_json`` is
the one serializer of these bodies, for the answers written below FastAPI (the edge's 413 and 500).
"""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any, Final

# The code of an error with nothing more specific to say, by status (docs/api.md, "Errors").
GENERIC_CODES: Final = {
    400: "VALIDATION_FAILED",
    401: "UNAUTHORIZED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    409: "CONFLICT",
    413: "PAYLOAD_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
    422: "UNPROCESSABLE_ENTITY",
    429: "RATE_LIMITED",
    500: "INTERNAL_ERROR",
    502: "UPSTREAM_ERROR",
    503: "SERVICE_UNAVAILABLE",
}


def generic_code(status: int) -> str:
    """The code of an error of ``status`` with nothing more specific to say."""
    return GENERIC_CODES.get(status) or _phrase(status).upper().replace(" ", "_")


def error_body(
    status: int, message: str, *, code: str | None = None, details: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The spec's error body, with ``code`` always present."""
    body: dict[str, Any] = {"statusCode": status, "message": message, "error": _phrase(status)}
    if details:
        body["details"] = details
    body["code"] = code or generic_code(status)
    return body


def error_json(
    status: int, message: str, *, code: str | None = None, details: dict[str, Any] | None = None
) -> bytes:
    """``error_body`` as the bytes FastAPI's JSONResponse writes (compact, UTF-8)."""
    body = error_body(status, message, code=code, details=details)
    return json.dumps(body, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"
