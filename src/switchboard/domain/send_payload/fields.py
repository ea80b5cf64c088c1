"""Field access helpers that raise the spec's validation errors with a dotted field path."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from switchboard.domain.errors import MissingRequiredField, ValidationFailed

# The one code of a field that is present but breaks a rule, on every endpoint (docs/api.md).
# Send payloads answered INVALID_PARAMETER until the codes were unified.
VALIDATION_FAILED = "VALIDATION_FAILED"


def invalid(
    field: str, message: str, *, value: Any = None, code: str = VALIDATION_FAILED
) -> ValidationFailed:
    """Build the 400 for a field that is present but breaks a rule."""
    details: dict[str, Any] = {"field": field}
    if value is not None:
        details["value"] = value
    return ValidationFailed(message, code=code, details=details)


def refuse_unknown(obj: Mapping[str, Any], known: set[str] | frozenset[str], path: str) -> None:
    """Refuse a field the service does not forward (never accepted and dropped), naming it."""
    unknown = sorted(key for key in obj if key not in known)
    if unknown:
        field = f"{path}.{unknown[0]}" if path else unknown[0]
        error = invalid(
            field, f"{field} is not a field this service sends (allowed: {', '.join(sorted(known))})"
        )
        error.details = {"field": field, "unknown": [f"{path}.{k}" if path else k for k in unknown]}
        raise error


def is_blank(value: Any) -> bool:
    """Tell whether a value counts as absent (missing, null or an empty/blank string)."""
    return value is None or (isinstance(value, str) and not value.strip())


def require_object(parent: Mapping[str, Any], key: str, path: str) -> Mapping[str, Any]:
    """Return a required JSON object member, or raise MISSING_REQUIRED_FIELD / VALIDATION_FAILED."""
    value = parent.get(key)
    if value is None:
        raise MissingRequiredField(path)
    if not isinstance(value, Mapping):
        raise invalid(path, f"{path} must be an object")
    return value


def optional_object(parent: Mapping[str, Any], key: str, path: str) -> Mapping[str, Any] | None:
    """Return an optional JSON object member (None when absent)."""
    value = parent.get(key)
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise invalid(path, f"{path} must be an object")
    return value


def require_str(parent: Mapping[str, Any], key: str, path: str, *, max_len: int | None = None) -> str:
    """Return a required non-blank string member."""
    value = parent.get(key)
    if is_blank(value):
        raise MissingRequiredField(path)
    if not isinstance(value, str):
        raise invalid(path, f"{path} must be a string")
    return _check_len(value, path, max_len)


def optional_str(parent: Mapping[str, Any], key: str, path: str, *, max_len: int | None = None) -> str | None:
    """Return an optional string member (None when absent or null)."""
    value = parent.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise invalid(path, f"{path} must be a string")
    return _check_len(value, path, max_len)


def require_list(parent: Mapping[str, Any], key: str, path: str) -> list[Any]:
    """Return a required non-empty JSON array member."""
    value = parent.get(key)
    if value is None or value == []:
        raise MissingRequiredField(path)
    if not isinstance(value, list):
        raise invalid(path, f"{path} must be an array")
    return value


def optional_list(parent: Mapping[str, Any], key: str, path: str) -> list[Any] | None:
    """Return an optional JSON array member (None when absent or null)."""
    value = parent.get(key)
    if value is None:
        return None
    if not isinstance(value, list):
        raise invalid(path, f"{path} must be an array")
    return value


def item_object(value: Any, path: str) -> Mapping[str, Any]:
    """Check that an array item is a JSON object."""
    if not isinstance(value, Mapping):
        raise invalid(path, f"{path} must be an object")
    return value


def _check_len(value: str, path: str, max_len: int | None) -> str:
    if max_len is not None and len(value) > max_len:
        raise invalid(path, f"{path} must be at most {max_len} characters (got {len(value)})")
    return value
