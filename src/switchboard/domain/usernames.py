"""Business usernames: format rules, transferAction, the upstream request body and error translation."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from switchboard.domain.errors import (
    Conflict,
    Forbidden,
    MissingRequiredField,
    ServiceError,
    ValidationFailed,
)

USERNAME_MIN = 3
USERNAME_MAX = 35
TRANSFER_ACTIONS = ("none", "force_transfer")
UsernameStatus = Literal["approved", "reserved"]

_ALLOWED = re.compile(r"^[A-Za-z0-9._]+$")
# A username that reads as a web address is refused upstream; these are the common endings.
_DOMAIN_SUFFIXES = (".com", ".net", ".org", ".io", ".co", ".gov", ".edu", ".info", ".biz", ".app")


def _invalid(message: str, value: Any) -> ValidationFailed:
    return ValidationFailed(message, code="INVALID_USERNAME", details={"field": "username", "value": value})


def validate_username(raw: Any) -> str:
    """Check the username rules and return it in lower case (usernames are case-insensitive)."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        raise MissingRequiredField("username")
    if not isinstance(raw, str):
        raise _invalid("username must be a string", raw)
    if not USERNAME_MIN <= len(raw) <= USERNAME_MAX:
        raise _invalid(f"username must be {USERNAME_MIN} to {USERNAME_MAX} characters (got {len(raw)})", raw)
    if not _ALLOWED.fullmatch(raw):
        raise _invalid("username may contain only letters, digits, periods and underscores", raw)
    if not any(c.isalpha() for c in raw):
        raise _invalid("username must contain at least one letter", raw)
    if ".." in raw:
        raise _invalid("username may not contain consecutive periods", raw)
    if raw.startswith(".") or raw.endswith("."):
        raise _invalid("username may not start or end with a period", raw)
    lowered = raw.lower()
    if lowered.startswith("www"):
        raise _invalid("username may not start with www", raw)
    if lowered.endswith(_DOMAIN_SUFFIXES):
        raise _invalid("username may not end in a domain suffix such as .com", raw)
    return lowered


def validate_transfer_action(raw: Any) -> str:
    """Return the transferAction (none when omitted); only none and force_transfer are accepted."""
    if raw is None or raw == "":
        return "none"
    if raw not in TRANSFER_ACTIONS:
        raise ValidationFailed(
            f"transferAction must be one of {', '.join(TRANSFER_ACTIONS)}",
            code="VALIDATION_FAILED",
            details={"field": "transferAction", "value": raw},
        )
    return str(raw)


def username_request_body(username: str, *, transfer_action: str = "none") -> dict[str, str]:
    """Build the Cloud API POST /{phone_number_id}/username body."""
    return {"username": username, "transfer_action": transfer_action}


def username_status(body: Any) -> UsernameStatus:
    """Read the upstream success answer: approved, or reserved while the upstream is still processing."""
    status = str(body.get("status") or "").lower() if isinstance(body, Mapping) else ""
    return "approved" if status == "approved" else "reserved"


_USERNAME_ERRORS: dict[int, tuple[type[ServiceError], str, str]] = {
    147001: (Conflict, "USERNAME_TAKEN", "username is already taken by another business"),
    147002: (
        Forbidden,
        "USERNAME_NOT_ELIGIBLE",
        "this account is not eligible for a username (insufficient messaging tier)",
    ),
    147003: (ValidationFailed, "INVALID_USERNAME", "the upstream refused the username format"),
    147004: (
        Conflict,
        "USERNAME_TRANSFER_NOT_ALLOWED",
        "the username cannot be transferred (limits reached)",
    ),
    147005: (
        Conflict,
        "USERNAME_IN_USE_ON_OTHER_PHONE",
        "username is already used on another of your phone numbers; retry with transferAction force_transfer",
    ),
}


def username_error(upstream_code: int | None, *, upstream_message: str = "") -> ServiceError | None:
    """Translate an upstream 147001-147005 error; None for codes the general upstream mapping handles."""
    if upstream_code not in _USERNAME_ERRORS:
        return None
    cls, code, message = _USERNAME_ERRORS[upstream_code]
    details: dict[str, Any] = {"field": "username", "upstream_code": upstream_code}
    if upstream_code == 147005:
        details["retry_with"] = {"transferAction": "force_transfer"}
    error = cls(message, code=code, details=details)
    error.extra["error_message"] = upstream_message or message
    return error
