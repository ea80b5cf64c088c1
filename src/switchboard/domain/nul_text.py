"""Finding the NUL character in a JSON body: no text column can store it (PostgreSQL refuses 0x00).

Nothing a client legitimately sends contains U+0000, so the API refuses such a
body with a 400 that names the field instead of failing later in the database.
"""

from __future__ import annotations

from typing import Any

NUL = "\x00"


def might_hold_nul(raw: bytes) -> bool:
    """A cheap test on the raw body: False means no string in it can hold a NUL."""
    return b"\\u0000" in raw or b"\x00" in raw


def nul_path(value: Any, path: str = "") -> str | None:
    """The dotted path of the first key or string holding a NUL (``$`` for the body itself), or None."""
    if isinstance(value, str):
        return (path or "$") if NUL in value else None
    if isinstance(value, dict):
        for key, item in value.items():
            here = f"{path}.{key}" if path else str(key)
            if NUL in str(key):
                return here
            found = nul_path(item, here)
            if found is not None:
                return found
    if isinstance(value, list):
        for index, item in enumerate(value):
            found = nul_path(item, f"{path}[{index}]")
            if found is not None:
                return found
    return None


def strip_nul(value: Any) -> Any:
    """A copy of a decoded JSON value with every NUL removed from its strings and keys.

    For bodies the service must accept as they come (the channel's webhooks): the
    characters around a NUL are kept, the NUL alone could not be stored.
    """
    if isinstance(value, str):
        return value.replace(NUL, "")
    if isinstance(value, dict):
        return {str(key).replace(NUL, ""): strip_nul(item) for key, item in value.items()}
    if isinstance(value, list):
        return [strip_nul(item) for item in value]
    return value
