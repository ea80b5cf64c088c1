"""Graph API error envelopes, synchronous (HTTP) and asynchronous (failed status).

Synchronous errors answer ``{"error": {message, type, code, error_subcode?,
error_data: {messaging_product, details}, fbtrace_id}}``; ``error_subcode`` only
appears where Graph uses one (190/463, 100/33, 100/2388024), as on the real API.
Failed-status errors carry ``{code, title, message, error_data: {details}, href}``.
"""

from __future__ import annotations

import secrets
from typing import Any

ERROR_CODES_HREF = "/documentation/business-messaging/whatsapp/support/error-codes"

_UNKNOWN_OBJECT = (
    "Unsupported {method} request. Object with ID '{object_id}' does not exist, cannot be loaded due to "
    "missing permissions, or does not support this operation. Please read the Graph API documentation at "
    "https://developers.facebook.com/docs/graph-api"
)


def fbtrace_id() -> str:
    """A random trace id in the shape Graph returns."""
    return "A" + secrets.token_urlsafe(16)[:22]


class GraphError(Exception):
    """A Graph API error the simulator answers with its HTTP status and envelope."""

    def __init__(
        self,
        http_status: int,
        code: int,
        message: str,
        *,
        details: str | None = None,
        error_subcode: int | None = None,
        error_type: str = "OAuthException",
        is_transient: bool | None = None,
    ) -> None:
        super().__init__(message)
        self.http_status = http_status
        self.code = code
        self.message = message
        self.details = details
        self.error_subcode = error_subcode
        self.error_type = error_type
        self.is_transient = is_transient

    def envelope(self) -> dict[str, Any]:
        """The ``{"error": {...}}`` body."""
        error: dict[str, Any] = {"message": self.message, "type": self.error_type, "code": self.code}
        if self.error_subcode is not None:
            error["error_subcode"] = self.error_subcode
        if self.is_transient is not None:
            error["is_transient"] = self.is_transient
        if self.details is not None:
            error["error_data"] = {"messaging_product": "whatsapp", "details": self.details}
        error["fbtrace_id"] = fbtrace_id()
        return {"error": error}


def async_error(code: int, title: str, details: str) -> dict[str, Any]:
    """The error object inside a ``failed`` status webhook."""
    return {
        "code": code,
        "title": title,
        "message": title,
        "error_data": {"details": details},
        "href": ERROR_CODES_HREF,
    }


def invalid_token() -> GraphError:
    """401 code 190 for a missing or unparsable bearer token."""
    return GraphError(401, 190, "Invalid OAuth access token - Cannot parse access token")


def expired_token() -> GraphError:
    """401 code 190 subcode 463 for an expired token."""
    return GraphError(
        401,
        190,
        "Error validating access token: Session has expired.",
        error_subcode=463,
    )


def invalid_parameter(details: str) -> GraphError:
    """400 code 100 for a malformed request."""
    return GraphError(400, 100, "(#100) Invalid parameter", details=details)


def missing_parameter(name: str) -> GraphError:
    """400 code 131008 naming the missing parameter."""
    return GraphError(
        400, 131008, "(#131008) Required parameter is missing", details=f"The parameter {name} is required."
    )


def invalid_value(details: str) -> GraphError:
    """400 code 131009 for a value out of range or of the wrong shape."""
    return GraphError(400, 131009, "(#131009) Parameter value is not valid", details=details)


def unknown_object(object_id: str, *, method: str = "get") -> GraphError:
    """400 code 100 subcode 33: the object does not exist or is not reachable."""
    return GraphError(
        400,
        100,
        _UNKNOWN_OBJECT.format(method=method, object_id=object_id),
        error_subcode=33,
        error_type="GraphMethodException",
    )


def unknown_path(path: str) -> GraphError:
    """400 code 100 for a path Graph does not serve."""
    return GraphError(400, 100, f"Unknown path components: {path}")


def media_upload_error(details: str) -> GraphError:
    """400 code 131053 for a bad MIME type or size."""
    return GraphError(400, 131053, "(#131053) Media upload error", details=details)


def template_not_found(name: str, language: str) -> GraphError:
    """400 code 132001: no approved template with that name and language."""
    return GraphError(
        400,
        132001,
        "(#132001) Template name does not exist in the translation",
        details=f"template name ({name}) does not exist in {language}",
    )


def template_paused(name: str) -> GraphError:
    """400 code 132015: the template is paused for low quality."""
    return GraphError(400, 132015, "(#132015) Template is paused", details=f"Template {name} is paused.")


def template_disabled(name: str) -> GraphError:
    """400 code 132016: the template is disabled."""
    return GraphError(400, 132016, "(#132016) Template is disabled", details=f"Template {name} is disabled.")


def duplicate_template(name: str, language: str) -> GraphError:
    """400 code 100 subcode 2388024: a template with that name and language exists."""
    return GraphError(
        400,
        100,
        "Invalid parameter",
        error_subcode=2388024,
        details=f"Content in this language already exists: {name} ({language})",
    )
