"""Business-initiated conversations: which sends open one, and the tier caps (table tests)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from switchboard.domain.business_conversations import (
    LIMIT_CODE,
    check_business_limit,
    may_open_business_conversation,
    opens_business_conversation,
    tier_limit,
)
from switchboard.domain.errors import RateLimited

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("message_type", "window_open", "already_counted", "opens"),
    [
        ("template", False, False, True),
        ("template", True, False, False),  # inside the customer-service window: user-initiated
        ("template", False, True, False),  # one is already open with this contact
        ("template", True, True, False),
        (
            "text",
            False,
            False,
            False,
        ),  # free-form never opens one (the upstream refuses it outside the window)
        ("image", False, False, False),
        ("reaction", False, False, False),
        ("interactive", True, False, False),
    ],
)
def test_which_sends_open_a_business_initiated_conversation(
    message_type: str, window_open: bool, already_counted: bool, opens: bool
) -> None:
    assert (
        opens_business_conversation(message_type, window_open=window_open, already_counted=already_counted)
        is opens
    )


@pytest.mark.parametrize(
    ("message_type", "may_open"),
    [("template", True), ("text", False), ("image", False), ("interactive", False), ("reaction", False)],
)
def test_only_templates_may_open_a_business_conversation(message_type: str, may_open: bool) -> None:
    # The sandbox skips the conversation lookup for every type this says no to.
    assert may_open_business_conversation(message_type) is may_open


@pytest.mark.parametrize(
    ("tier", "limit"),
    [("tier_1", 1_000), ("tier_2", 10_000), ("tier_3", 100_000), ("tier_4", None), ("tier_x", 1_000)],
)
def test_tier_limits(tier: str, limit: int | None) -> None:
    assert tier_limit(tier) == limit


@pytest.mark.parametrize(
    ("tier", "open_count", "refused"),
    [
        ("tier_1", 0, False),
        ("tier_1", 999, False),
        ("tier_1", 1_000, True),
        ("tier_1", 1_500, True),
        ("tier_2", 9_999, False),
        ("tier_2", 10_000, True),
        ("tier_3", 99_999, False),
        ("tier_3", 100_000, True),
        ("tier_4", 10_000_000, False),
    ],
)
def test_the_send_past_the_cap_is_refused(tier: str, open_count: int, refused: bool) -> None:
    frees_at = NOW + timedelta(hours=2)
    if not refused:
        check_business_limit(tier=tier, open_count=open_count, frees_at=frees_at, now=NOW, waba_id="1")
        return
    with pytest.raises(RateLimited) as caught:
        check_business_limit(tier=tier, open_count=open_count, frees_at=frees_at, now=NOW, waba_id="1")
    error = caught.value
    assert (error.status_code, error.code) == (429, LIMIT_CODE)
    assert error.details == {
        "waba_id": "1",
        "messaging_tier": tier,
        "limit": tier_limit(tier),
        "open": open_count,
    }


@pytest.mark.parametrize(
    ("frees_at", "retry_after"),
    [
        (NOW + timedelta(hours=2), 7_200),
        (NOW + timedelta(seconds=0.2), 1),  # rounded up, never 0
        (NOW - timedelta(seconds=5), 86_400),  # already past (a race): try again in a window
        (None, 86_400),
    ],
)
def test_retry_after_is_when_the_first_conversation_stops_counting(
    frees_at: datetime | None, retry_after: int
) -> None:
    with pytest.raises(RateLimited) as caught:
        check_business_limit(tier="tier_1", open_count=1_000, frees_at=frees_at, now=NOW, waba_id="1")
    assert caught.value.retry_after_seconds == retry_after
    assert caught.value.headers == {"Retry-After": str(retry_after)}
