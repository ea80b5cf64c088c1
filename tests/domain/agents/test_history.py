"""Thread history rules: inactivity reset timing, threshold source, caps and exchange counting."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from switchboard.domain.agents.history import (
    cap_conversacion,
    cap_execucion,
    inactive_days,
    inactivity_reset_due,
    inactivity_reset_needed,
    message_pairs,
    threshold,
)

T0 = datetime(2025, 5, 1, 10, 0, tzinfo=UTC)

DUE_ROWS: list[tuple[datetime, int, datetime | None]] = [
    (T0, 3, T0 + timedelta(days=3)),
    (T0, 1, T0 + timedelta(days=1)),
    (T0, 30, T0 + timedelta(days=30)),
    (T0, 0, None),
    (datetime(2025, 5, 1, 10, 0), 3, T0 + timedelta(days=3)),
]


@pytest.mark.parametrize(("updated_at", "days", "expected"), DUE_ROWS)
def test_inactivity_reset_due(updated_at: datetime, days: int, expected: datetime | None) -> None:
    assert inactivity_reset_due(updated_at, threshold_days=days) == expected


def test_negative_threshold_is_refused() -> None:
    with pytest.raises(ValueError):
        inactivity_reset_due(T0, threshold_days=-1)


NEEDED_ROWS: list[tuple[timedelta, int, bool]] = [
    (timedelta(days=3), 3, True),
    (timedelta(days=3) - timedelta(seconds=1), 3, False),
    (timedelta(days=10), 3, True),
    (timedelta(days=400), 0, False),
    (timedelta(0), 1, False),
]


@pytest.mark.parametrize(("elapsed", "days", "expected"), NEEDED_ROWS)
def test_inactivity_reset_needed(elapsed: timedelta, days: int, expected: bool) -> None:
    assert inactivity_reset_needed(T0, T0 + elapsed, threshold_days=days) is expected


THRESHOLD_ROWS: list[tuple[dict[str, Any], tuple[int, str]]] = [
    ({}, (3, "environment")),
    ({"inactiveResetDays": 7}, (7, "binding")),
    ({"inactiveResetDays": 0}, (0, "binding")),
    ({"inactiveResetDays": "5"}, (5, "binding")),
    ({"inactiveResetDays": 2.0}, (2, "binding")),
    ({"inactiveResetDays": None}, (3, "environment")),
    ({"inactiveResetDays": -1}, (3, "environment")),
    ({"inactiveResetDays": True}, (3, "environment")),
    ({"inactiveResetDays": 2.5}, (3, "environment")),
    ({"inactiveResetDays": "tres"}, (3, "environment")),
    ({"otherKey": 9}, (3, "environment")),
]


@pytest.mark.parametrize(("params", "expected"), THRESHOLD_ROWS)
def test_threshold(params: dict[str, Any], expected: tuple[int, str]) -> None:
    assert threshold(params, default_days=3) == expected


def test_threshold_env_default_passes_through() -> None:
    assert threshold({}, default_days=0) == (0, "environment")


CAP_ROWS: list[tuple[dict[str, Any], dict[str, Any], bool, int]] = [
    ({}, {}, False, 20),
    ({}, {}, True, 30),
    ({}, {"capConversacion": 12}, False, 12),
    ({}, {"capConversacion": 12}, True, 12),
    ({"capConversacion": 8}, {"capConversacion": 12}, False, 8),
    ({"capConversacion": 40}, {}, True, 40),
    ({"capConversacion": "15"}, {}, False, 15),
    ({"capConversacion": 0}, {"capConversacion": 12}, False, 12),
    ({"capConversacion": -3}, {}, True, 30),
    ({"capConversacion": False}, {}, False, 20),
    ({"capConversacion": "mucho"}, {"capConversacion": None}, False, 20),
]


@pytest.mark.parametrize(("params", "guardrails", "platform_managed", "expected"), CAP_ROWS)
def test_cap_conversacion(
    params: dict[str, Any], guardrails: dict[str, Any], platform_managed: bool, expected: int
) -> None:
    assert cap_conversacion(params, guardrails, platform_managed=platform_managed) == expected


EXEC_ROWS: list[tuple[dict[str, Any], int]] = [
    ({}, 6),
    ({"capExecucion": 3}, 3),
    ({"capExecucion": "10"}, 10),
    ({"capExecucion": 0}, 6),
    ({"capExecucion": True}, 6),
    ({"capConversacion": 3}, 6),
]


@pytest.mark.parametrize(("guardrails", "expected"), EXEC_ROWS)
def test_cap_execucion(guardrails: dict[str, Any], expected: int) -> None:
    assert cap_execucion(guardrails) == expected


U, A, TOOL, SYS = {"role": "user"}, {"role": "assistant"}, {"role": "tool"}, {"role": "system"}

PAIR_ROWS: list[tuple[str, list[Any], int]] = [
    ("empty", [], 0),
    ("one exchange", [U, A], 1),
    ("two exchanges", [U, A, U, A], 2),
    ("unanswered user", [U], 0),
    ("trailing unanswered user", [U, A, U], 1),
    ("tool turns inside one exchange", [U, A, TOOL, A], 1),
    ("tool loop then answer", [U, A, TOOL, A, TOOL, A, U, A], 2),
    ("burst of users answered once", [U, U, U, A], 1),
    ("assistant first (wizard greeting)", [A, U, A], 1),
    ("assistant without user", [A, A], 0),
    ("other roles and junk ignored", [SYS, U, "junk", {"content": "x"}, A], 1),
]


@pytest.mark.parametrize(("label", "messages", "expected"), PAIR_ROWS)
def test_message_pairs(label: str, messages: list[Any], expected: int) -> None:
    assert message_pairs(messages) == expected, label


DAYS_ROWS: list[tuple[timedelta, int]] = [
    (timedelta(0), 0),
    (timedelta(hours=23, minutes=59), 0),
    (timedelta(days=1), 1),
    (timedelta(days=3, hours=23), 3),
    (timedelta(days=-2), 0),
]


@pytest.mark.parametrize(("elapsed", "expected"), DAYS_ROWS)
def test_inactive_days(elapsed: timedelta, expected: int) -> None:
    assert inactive_days(T0, T0 + elapsed) == expected


def test_inactive_days_mixes_naive_and_aware() -> None:
    assert inactive_days(datetime(2025, 5, 1, 10, 0), T0 + timedelta(days=4)) == 4
