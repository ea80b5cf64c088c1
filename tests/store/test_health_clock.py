"""Whether an attempt's outcome moves its webhook's failure clock (decided before any UPDATE is sent)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from switchboard.store.webhooks.deliveries import CLOCK_GRANULARITY, HealthClock, clock_needs_writing

AT = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
RECENT = AT - timedelta(seconds=5)
STALE = AT - CLOCK_GRANULARITY


def clock(*, failing=None, exhausted=0, success=None, failure=None) -> HealthClock:
    return HealthClock(
        failing_since=failing,
        exhausted_since_success=exhausted,
        last_success_at=success,
        last_failure_at=failure,
    )


@pytest.mark.parametrize(
    ("loaded", "needed"),
    [
        (clock(), True),  # never succeeded
        (clock(success=RECENT), False),  # the common case: healthy, reset moments ago
        (clock(success=STALE), True),  # the clock is kept to the granularity
        (clock(success=RECENT, failing=RECENT, failure=RECENT), True),  # a success ends a failing spell
        (clock(success=RECENT, exhausted=2), True),  # and resets the exhausted count
    ],
)
def test_a_success(loaded, needed):
    assert clock_needs_writing(loaded, success=True, at=AT) is needed


@pytest.mark.parametrize(
    ("loaded", "needed"),
    [
        (clock(success=RECENT), True),  # a failure starts the clock
        (clock(failing=RECENT), True),  # failing, but no failure time written yet
        (clock(failing=RECENT, failure=RECENT), False),  # already failing, written moments ago
        (clock(failing=STALE, failure=STALE), True),  # written a granularity ago: refreshed
    ],
)
def test_a_failure(loaded, needed):
    assert clock_needs_writing(loaded, success=False, at=AT) is needed
