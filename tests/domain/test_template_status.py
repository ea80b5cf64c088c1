"""Template approval states and the time order of upstream facts about a template (table tests)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from switchboard.domain.template_status import (
    event_as_of,
    event_is_current,
    later,
    read_is_current,
    status_after_event,
)

T = datetime(2026, 5, 1, 12, 0, 5, tzinfo=UTC)
MS = timedelta(milliseconds=1)


@pytest.mark.parametrize(
    ("event", "status"),
    [
        ("APPROVED", "APPROVED"),
        ("approved", "APPROVED"),
        (" PENDING ", "PENDING"),
        ("REJECTED", "REJECTED"),
        ("PAUSED", "PAUSED"),
        ("DISABLED", "DISABLED"),
        ("FLAGGED", "FLAGGED"),
        ("IN_APPEAL", "IN_APPEAL"),
        ("PENDING_DELETION", "PENDING_DELETION"),
        ("DELETED", "DELETED"),
        ("LIMIT_EXCEEDED", "LIMIT_EXCEEDED"),
        ("ARCHIVED", "ARCHIVED"),
        ("LOCKED", "LOCKED"),
        # A transition, not a state: reinstated templates are approved again.
        ("REINSTATED", "APPROVED"),
        # Back to a state the event does not name: left to the periodic sync.
        ("UNARCHIVED", None),
        ("SOMETHING_NEW", None),
        ("", None),
        (None, None),
    ],
)
def test_status_after_event(event: str | None, status: str | None) -> None:
    assert status_after_event(event) == status


@pytest.mark.parametrize(
    ("event_at", "state_at", "current"),
    [
        (T, None, True),
        # webhook vs webhook (state held as of the end of its second)
        (T + timedelta(seconds=1), event_as_of(T), True),
        (T, event_as_of(T), True),
        (T - timedelta(seconds=1), event_as_of(T), False),
        # webhook vs our create or read within the same second: the webhook wins
        (T, T + 300 * MS, True),
        (T, T + 999 * MS, True),
        (T - timedelta(seconds=1), T + 300 * MS, False),
    ],
)
def test_event_is_current(event_at: datetime, state_at: datetime | None, current: bool) -> None:
    assert event_is_current(event_at, state_at) is current


@pytest.mark.parametrize(
    ("read_at", "state_at", "current"),
    [
        (T, None, True),
        # read vs read or create: the later start wins
        (T + MS, T, True),
        (T, T, True),
        (T - MS, T, False),
        # read vs webhook: only a read that started after the webhook's second
        (T + 300 * MS, event_as_of(T), False),
        (T + timedelta(seconds=1), event_as_of(T), True),
    ],
)
def test_read_is_current(read_at: datetime, state_at: datetime | None, current: bool) -> None:
    assert read_is_current(read_at, state_at) is current


def test_as_of_times_never_move_back() -> None:
    assert event_as_of(T) == T.replace(microsecond=999_999)
    assert later(T, None) == T
    assert later(T, T + MS) == T + MS
    assert later(T + MS, T) == T + MS
