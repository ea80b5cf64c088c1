"""Thread history rules: the inactivity reset and the caps on what a run may hold.

A thread's ``messages`` is the context the model sees. It is cleared after
``inactiveResetDays`` of silence (a customer coming back a week later starts a
new conversation, not the tail of an old one), and a run escalates when the
history reaches ``capConversacion`` exchanges or the loop reaches
``capExecucion`` model turns, so a runaway conversation goes to a person
instead of burning tokens.

Settings arrive as JSON written by tenants. A value that is not a usable
integer (a bool, a float with a fraction, a negative number, a non-numeric
string) is ignored and the next source applies, so a typo in ``params``
degrades to the documented default instead of breaking every run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

DEFAULT_CAP_CONVERSACION = 20
PLATFORM_MANAGED_CAP_CONVERSACION = 30
DEFAULT_CAP_EXECUCION = 6


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


def _int_setting(value: Any, *, minimum: int) -> int | None:
    """An integer of at least ``minimum`` from a JSON value, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, int) and value >= minimum:
        return value
    return None


def inactivity_reset_due(updated_at: datetime, *, threshold_days: int) -> datetime | None:
    """When a thread untouched since ``updated_at`` has its messages cleared; None when the reset is off."""
    if threshold_days < 0:
        raise ValueError("threshold_days must not be negative")
    if threshold_days == 0:
        return None
    return _utc(updated_at) + timedelta(days=threshold_days)


def inactivity_reset_needed(updated_at: datetime, now: datetime, *, threshold_days: int) -> bool:
    """Whether the inactivity reset is due at ``now`` (checked at turn start as well as by the timer)."""
    due = inactivity_reset_due(updated_at, threshold_days=threshold_days)
    return due is not None and _utc(now) >= due


def threshold(params: Mapping[str, Any], *, default_days: int) -> tuple[int, str]:
    """The inactivity threshold in days and its source: ``binding`` (params.inactiveResetDays) or ``env``."""
    days = _int_setting(params.get("inactiveResetDays"), minimum=0)
    if days is not None:
        return days, "binding"
    return default_days, "environment"


def cap_conversacion(
    params: Mapping[str, Any], guardrails_config: Mapping[str, Any], *, platform_managed: bool
) -> int:
    """The most message pairs a thread may hold: binding params, else the version's guardrails, else 20 (30)."""
    for source in (params, guardrails_config):
        cap = _int_setting(source.get("capConversacion"), minimum=1)
        if cap is not None:
            return cap
    return PLATFORM_MANAGED_CAP_CONVERSACION if platform_managed else DEFAULT_CAP_CONVERSACION


def cap_execucion(guardrails_config: Mapping[str, Any]) -> int:
    """The most model turns in one run: the version's ``capExecucion``, else 6."""
    cap = _int_setting(guardrails_config.get("capExecucion"), minimum=1)
    return DEFAULT_CAP_EXECUCION if cap is None else cap


def message_pairs(messages: Sequence[Mapping[str, Any]]) -> int:
    """The number of user→assistant exchanges in a stored history.

    A pair is a user message answered by an assistant message before the next
    user message: tool turns in between belong to the same exchange, several
    user messages in a row answered once count once, and a trailing user
    message not yet answered does not count.
    """
    pairs = 0
    waiting = False
    for entry in messages:
        role = entry.get("role") if isinstance(entry, Mapping) else None
        if role == "user":
            waiting = True
        elif role == "assistant" and waiting:
            pairs += 1
            waiting = False
    return pairs


def inactive_days(updated_at: datetime, now: datetime) -> int:
    """Whole days (floor) between ``updated_at`` and ``now``; 0 when ``now`` is not later."""
    elapsed = _utc(now) - _utc(updated_at)
    return max(elapsed // timedelta(days=1), 0)
