"""Shape checks shared by the declaration validators; each raises ToolDeclarationError naming the field."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from switchboard.domain.tools.errors import ToolDeclarationError


def require_object(value: Any, *, field: str) -> dict[str, Any]:
    """``value`` must be a JSON object."""
    if not isinstance(value, dict):
        raise ToolDeclarationError(f"{field} must be an object", field=field)
    return value


def reject_unknown_keys(block: dict[str, Any], allowed: Collection[str], *, field: str) -> None:
    """A misspelt key would be silently ignored, so every key must be one the block defines."""
    for key in block:
        if key not in allowed:
            raise ToolDeclarationError(
                f"{field}.{key} is not a known field (expected one of: {', '.join(allowed)})",
                field=f"{field}.{key}",
            )


def require_key(block: dict[str, Any], key: str, *, field: str) -> Any:
    """``block[key]`` must be present."""
    if key not in block:
        raise ToolDeclarationError(f"{field}.{key} is required", field=f"{field}.{key}")
    return block[key]


def require_string(value: Any, *, field: str) -> str:
    """``value`` must be a non-empty string."""
    if not isinstance(value, str) or not value.strip():
        raise ToolDeclarationError(f"{field} must be a non-empty string", field=field)
    return value


def require_int(value: Any, *, field: str, low: int, high: int | None = None) -> int:
    """``value`` must be an integer (not a boolean) in ``low..high`` inclusive."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ToolDeclarationError(f"{field} must be an integer", field=field, value=value)
    if value < low or (high is not None and value > high):
        bounds = f"{low} to {high} inclusive" if high is not None else f"at least {low}"
        raise ToolDeclarationError(f"{field} must be {bounds}, got {value}", field=field, value=value)
    return value


def require_bool(value: Any, *, field: str) -> bool:
    """``value`` must be true or false."""
    if not isinstance(value, bool):
        raise ToolDeclarationError(f"{field} must be a boolean", field=field, value=value)
    return value
