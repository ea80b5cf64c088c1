"""Status transitions are monotonic, idempotent and order-independent; conversation and window rules."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest

from switchboard.domain.message_status import (
    MESSAGE_STATUSES,
    StatusTransition,
    apply_status_update,
    can_retry,
    conversation_status_after_inbound,
    latest_inbound_at,
    next_status,
    reopens_conversation,
    retry_wait_seconds,
    status_rank,
    window_expires_at,
    window_open,
)

UPDATES = ("sent", "delivered", "read", "failed", "played", "deleted")

# current -> the status each update in UPDATES leads to (None: no change).
TABLE: dict[str | None, tuple[str | None, ...]] = {
    None: ("sent", "delivered", "read", "failed", None, None),
    "failed_transient": ("sent", "delivered", "read", "failed", None, None),
    "sent": (None, "delivered", "read", "failed", None, None),
    "delivered": (None, None, "read", "failed", None, None),
    "read": (None, None, None, None, None, None),
    "failed": (None, None, None, None, None, None),
    "sent_sandbox": (None, None, None, None, None, None),
    "received": (None, None, None, None, None, None),
    "historical": (None, None, None, None, None, None),
    "mystery": (None, None, None, None, None, None),
}

PAIRS = [(current, update, TABLE[current][i]) for current in TABLE for i, update in enumerate(UPDATES)]


def test_table_covers_every_message_status() -> None:
    assert set(MESSAGE_STATUSES) <= set(TABLE)


@pytest.mark.parametrize(("current", "update", "expected"), PAIRS)
def test_next_status(current: str | None, update: str, expected: str | None) -> None:
    assert next_status(current, update) == expected


@pytest.mark.parametrize(
    ("current", "update", "expected"),
    [
        ("sent", "delivered", StatusTransition("delivered", "channel.message.delivered")),
        ("sent", "read", StatusTransition("read", "channel.message.read")),
        ("delivered", "failed", StatusTransition("failed", "channel.message.failed")),
        (None, "sent", StatusTransition("sent", "channel.message.sent")),
        ("read", "delivered", None),
        ("read", "failed", None),
        ("delivered", "delivered", None),
    ],
)
def test_apply_status_update_names_the_event(
    current: str | None, update: str, expected: StatusTransition | None
):
    assert apply_status_update(current, update) == expected


def replay(start: str, updates: tuple[str, ...]) -> str:
    status = start
    for update in updates:
        status = next_status(status, update) or status
    return status


@pytest.mark.parametrize("order", list(itertools.permutations(("sent", "delivered", "read"))))
def test_any_arrival_order_of_progress_ends_read(order: tuple[str, ...]) -> None:
    assert replay("sent", order) == "read"
    assert replay("sent", order + order) == "read"


@pytest.mark.parametrize("order", list(itertools.permutations(("sent", "delivered", "failed"))))
def test_any_arrival_order_with_failure_ends_failed(order: tuple[str, ...]) -> None:
    assert replay("sent", order) == "failed"


@pytest.mark.parametrize("status", ["sent", "delivered", "read", "failed"])
def test_a_repeated_update_changes_nothing(status: str) -> None:
    once = replay("sent", (status,))
    assert next_status(once, status) is None


@pytest.mark.parametrize(
    ("status", "rank"),
    [("failed_transient", 0), ("sent", 1), ("delivered", 2), ("read", 3), ("failed", None)],
)
def test_status_rank(status: str, rank: int | None) -> None:
    assert status_rank(status) == rank


@pytest.mark.parametrize(
    ("status", "allowed"), [(s, s in ("failed", "failed_transient")) for s in MESSAGE_STATUSES]
)
def test_retry_is_allowed_only_for_failures(status: str, allowed: bool) -> None:
    assert can_retry(status) is allowed


@pytest.mark.parametrize(
    ("current", "reopens", "after"),
    [(None, False, "active"), ("active", False, "active"), ("archived", True, "active")],
)
def test_inbound_reopens_an_archived_conversation(current: str | None, reopens: bool, after: str) -> None:
    assert reopens_conversation(current) is reopens
    assert conversation_status_after_inbound(current) == after


def test_unknown_conversation_status_is_refused() -> None:
    with pytest.raises(ValueError):
        conversation_status_after_inbound("resolved")


LAST = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def test_window_expires_24h_after_the_last_inbound() -> None:
    assert window_expires_at(LAST) == LAST + timedelta(hours=24)
    assert window_expires_at(None) is None


@pytest.mark.parametrize(
    ("last", "now", "is_open"),
    [
        (LAST, LAST, True),
        (LAST, LAST + timedelta(hours=23, minutes=59, seconds=59), True),
        (LAST, LAST + timedelta(hours=24), False),
        (LAST, LAST + timedelta(days=3), False),
        (None, LAST, False),
    ],
)
def test_window_open(last: datetime | None, now: datetime, is_open: bool) -> None:
    assert window_open(last, now=now) is is_open


@pytest.mark.parametrize(
    ("previous", "occurred", "expected"),
    [
        (None, LAST, LAST),
        (LAST, LAST + timedelta(minutes=1), LAST + timedelta(minutes=1)),
        (LAST, LAST - timedelta(minutes=1), LAST),
    ],
)
def test_late_older_messages_never_move_the_window_back(previous, occurred, expected) -> None:
    assert latest_inbound_at(previous, occurred) == expected


@pytest.mark.parametrize(
    ("requested_ago", "wait"),
    [
        (None, 0),
        (timedelta(0), 300),
        (timedelta(seconds=1), 299),
        (timedelta(seconds=200), 100),
        (timedelta(seconds=299, milliseconds=500), 1),  # rounded up
        (timedelta(minutes=5), 0),
        (timedelta(hours=3), 0),
    ],
)
def test_retry_guard_wait_is_the_time_left(requested_ago: timedelta | None, wait: int) -> None:
    now = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
    last = None if requested_ago is None else now - requested_ago
    assert retry_wait_seconds(last, now=now) == wait
