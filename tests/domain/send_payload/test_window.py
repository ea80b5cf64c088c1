from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from switchboard.domain.errors import ValidationFailed
from switchboard.domain.send_payload import MESSAGE_TYPES, check_conversation_window, requires_open_window

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize("message_type", MESSAGE_TYPES)
def test_only_template_and_reaction_skip_the_window(message_type: str) -> None:
    assert requires_open_window(message_type) is (message_type not in ("template", "reaction"))


@pytest.mark.parametrize(
    ("message_type", "last_inbound", "allowed"),
    [
        ("text", NOW - timedelta(hours=23, minutes=59), True),
        ("text", NOW - timedelta(hours=24), False),
        ("text", None, False),
        ("interactive", NOW - timedelta(days=3), False),
        ("template", None, True),
        ("reaction", NOW - timedelta(days=3), True),
    ],
)
def test_check_conversation_window(message_type: str, last_inbound: datetime | None, allowed: bool) -> None:
    if allowed:
        check_conversation_window(message_type, last_inbound_at=last_inbound, now=NOW)
        return
    with pytest.raises(ValidationFailed) as caught:
        check_conversation_window(message_type, last_inbound_at=last_inbound, now=NOW)
    assert caught.value.code == "OUTSIDE_CONVERSATION_WINDOW"
