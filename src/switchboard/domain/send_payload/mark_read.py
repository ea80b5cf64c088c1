"""The mark-read request's optional typing indicator (Cloud API: mark a message read, show "typing…")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from switchboard.domain.send_payload.fields import invalid, refuse_unknown

# The only kind the Cloud API offers; it shows for up to 25 s or until the business's next message.
TYPING_INDICATOR_TYPES = ("text",)


def typing_indicator(raw: Any) -> dict[str, str] | None:
    """``{"type": "text"}`` to forward upstream with the read receipt, or None when not asked for."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise invalid("typing_indicator", 'typing_indicator must be an object like {"type": "text"}')
    refuse_unknown(raw, {"type"}, "typing_indicator")
    kind = raw.get("type")
    if kind not in TYPING_INDICATOR_TYPES:
        raise invalid("typing_indicator.type", "typing_indicator.type must be text", value=kind)
    return {"type": str(kind)}
