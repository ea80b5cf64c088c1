"""The 24 h customer service window rule for free-form sends."""

from __future__ import annotations

from datetime import datetime, timedelta

from switchboard.domain.errors import ValidationFailed

CONVERSATION_WINDOW = timedelta(hours=24)
# Templates open conversations and reactions are always allowed; everything else is free-form.
WINDOW_FREE_TYPES = frozenset({"template", "reaction"})


def requires_open_window(message_type: str) -> bool:
    """Tell whether a send type needs the recipient to have written in the last 24 h."""
    return message_type not in WINDOW_FREE_TYPES


def check_conversation_window(message_type: str, *, last_inbound_at: datetime | None, now: datetime) -> None:
    """Refuse a free-form send outside the 24 h window with OUTSIDE_CONVERSATION_WINDOW."""
    if not requires_open_window(message_type):
        return
    if last_inbound_at is None or now - last_inbound_at >= CONVERSATION_WINDOW:
        raise ValidationFailed(
            f"{message_type} messages can only be sent within 24 h of the recipient's last message; "
            "send an approved template instead",
            code="OUTSIDE_CONVERSATION_WINDOW",
            details={"field": "type", "value": message_type},
        )
