"""Which received messages ask someone to read them (the conversation's unread count)."""

from __future__ import annotations

# A reaction (or its removal) answers a message already there: the inbox shows it, counts nothing.
NOT_UNREAD_TYPES = frozenset({"reaction"})


def counts_unread(message_type: str) -> bool:
    """Whether a received message of this type raises its conversation's unread count."""
    return message_type not in NOT_UNREAD_TYPES
