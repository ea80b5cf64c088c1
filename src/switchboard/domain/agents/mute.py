"""The thread mute state machine of the spec, as a pure transition function.

A muted thread starts no run, so every path that can silence or wake the agent
goes through ``apply_trigger``: the runtime (urgency, human scan, cost breaker,
escalation), the thread workflow's timer and the reactivate endpoint. Keeping
the table in one function lets each caller persist the returned state and
events atomically, and lets the tests walk every row of the spec's table.

Decisions beyond the spec's table (CONTRACTS 7a settles the first two):

- Urgency is checked on every inbound message, muted or not; on a thread
  muted for another reason it turns the reason into ``handoff`` (a person must
  act now, and ``handoff`` never unmutes by itself). A run checks the messages
  it answers; ``unread_urgency`` checks those no run will read (the thread is
  muted when they arrive, or when their turn comes after the run that was in
  progress), and the ``thread.muted`` event then carries the decision.
- A human-source message while muted ``human_detected`` restarts the 24 h (the
  person is still talking); ``muted_at`` never moves backwards, so a late
  report of an older message cannot shorten the mute.
- An escalation is a person-needed signal like urgency: from active, or from
  any other muted reason, it becomes ``handoff``.
- Cost caps and human messages never replace another mute reason: the thread
  is silent already, and replacing e.g. ``handoff`` with an auto-unmuting
  reason would wake the agent before a person looked.
- A timer carries the due time it was armed for and acts only when that is
  still the state's due time, so a timer armed for an earlier mute (before a
  reactivation, a restart of the 24 h or a new reason) does nothing.

Naive datetimes are read as UTC (SQLite returns them naive).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from switchboard.domain.agents.urgency import UrgencyModel, UrgencyVerdict, assess_urgency_in_burst

MuteReason = Literal[
    "handoff", "human_detected", "cost_cap_thread", "cost_cap_tenant_day", "cost_cap_tenant_month"
]
MuteTrigger = Literal[
    "urgency",
    "human_message",
    "cost_cap_thread",
    "cost_cap_tenant_day",
    "cost_cap_tenant_month",
    "escalation",
    "timer",
    "reactivate",
]

MUTE_REASONS: frozenset[str] = frozenset(
    {"handoff", "human_detected", "cost_cap_thread", "cost_cap_tenant_day", "cost_cap_tenant_month"}
)
TRIGGERS: frozenset[str] = frozenset(
    {
        "urgency",
        "human_message",
        "cost_cap_thread",
        "cost_cap_tenant_day",
        "cost_cap_tenant_month",
        "escalation",
        "timer",
        "reactivate",
    }
)
AUTO_UNMUTE_REASONS: frozenset[str] = frozenset(
    {"human_detected", "cost_cap_tenant_day", "cost_cap_tenant_month"}
)
HUMAN_WINDOW = timedelta(hours=24)

THREAD_MUTED = "thread.muted"
THREAD_UNMUTED = "thread.unmuted"
THREAD_REACTIVATED = "thread.reactivated"

# Triggers that mute an active thread, and the reason they mute it with.
_MUTING: dict[str, str] = {
    "urgency": "handoff",
    "escalation": "handoff",
    "human_message": "human_detected",
    "cost_cap_thread": "cost_cap_thread",
    "cost_cap_tenant_day": "cost_cap_tenant_day",
    "cost_cap_tenant_month": "cost_cap_tenant_month",
}


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _zone(tz: str) -> ZoneInfo:
    try:
        return ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(f"unknown time zone: {tz!r}") from exc


@dataclass(frozen=True)
class MuteState:
    """An AgentThread's ``muted_at`` and ``muted_reason``: both None when active, both set when muted."""

    muted_at: datetime | None
    muted_reason: str | None

    def __post_init__(self) -> None:
        if (self.muted_at is None) != (self.muted_reason is None):
            raise ValueError("muted_at and muted_reason are set and cleared together")
        if self.muted_reason is not None and self.muted_reason not in MUTE_REASONS:
            raise ValueError(f"unknown mute reason: {self.muted_reason!r}")

    @property
    def active(self) -> bool:
        """Whether the agent answers this thread."""
        return self.muted_reason is None


ACTIVE = MuteState(muted_at=None, muted_reason=None)


@dataclass(frozen=True)
class MuteEvent:
    """An AgentEvent to record with the new state: its type and properties."""

    type: str
    properties: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Transition:
    """The state after a trigger and the events to record with it (none when nothing changed visibly)."""

    state: MuteState
    events: tuple[MuteEvent, ...] = ()


def unmute_due_at(state: MuteState, *, tz: str = "UTC") -> datetime | None:
    """When a muted thread unmutes by itself (aware UTC), or None for active, handoff and cost_cap_thread."""
    if state.muted_at is None or state.muted_reason not in AUTO_UNMUTE_REASONS:
        return None
    muted_at = _utc(state.muted_at)
    if state.muted_reason == "cost_cap_tenant_month":
        zone = _zone(tz)
        local = muted_at.astimezone(zone)
        year, month = (local.year + 1, 1) if local.month == 12 else (local.year, local.month + 1)
        return datetime(year, month, 1, tzinfo=zone).astimezone(UTC)
    return muted_at + HUMAN_WINDOW


def _muted(
    reason: str, *, now: datetime, run_id: str | None, details: Mapping[str, Any] | None = None
) -> Transition:
    properties = {"muted_reason": reason, "run_id": run_id, **(details or {})}
    return Transition(MuteState(muted_at=now, muted_reason=reason), (MuteEvent(THREAD_MUTED, properties),))


def unread_urgency(state: MuteState, texts: Sequence[str], model: UrgencyModel) -> UrgencyVerdict | None:
    """The urgency in messages no run will read that turns the thread's mute into handoff, if any.

    None when nothing changes: on an active thread a run reads the messages and checks them itself,
    and a handed-off thread is handed off already. The messages are read as a run reads a burst
    (``assess_urgency_in_burst``: together, then each alone).
    """
    if state.active or state.muted_reason == "handoff":
        return None
    return assess_urgency_in_burst(texts, model)


def urgency_details(verdict: UrgencyVerdict, message_ids: Sequence[str]) -> dict[str, Any]:
    """What a ``thread.muted`` event raised outside a run says of the urgency decision (a run's step says it there)."""
    return {"urgency": {**verdict_details(verdict), "message_ids": list(message_ids)}}


def verdict_details(verdict: UrgencyVerdict) -> dict[str, Any]:
    """The decision as a guardrail step or an event shows it: category, what decided, on what, how sure."""
    return {
        "category": verdict.category,
        "matched": verdict.matched,
        "decided_by": verdict.decided_by,
        "score": verdict.score,
        "language": verdict.language,
    }


def apply_trigger(
    state: MuteState,
    trigger: str,
    *,
    now: datetime,
    run_id: str | None = None,
    user_id: str | None = None,
    reason: str | None = None,
    timer_due_at: datetime | None = None,
    tz: str = "UTC",
    details: Mapping[str, Any] | None = None,
) -> Transition:
    """The thread's mute state after a trigger, with the events to record; ``tz`` is the tenant's zone.

    ``details`` are further properties of the ``thread.muted`` event the trigger raises, if it raises one.
    """
    if trigger not in TRIGGERS:
        raise ValueError(f"unknown mute trigger: {trigger!r}")
    now = _utc(now)
    unchanged = Transition(state)

    if trigger == "reactivate":
        if state.active:
            return unchanged
        return Transition(
            ACTIVE,
            (
                MuteEvent(
                    THREAD_REACTIVATED,
                    {
                        "previous_muted_reason": state.muted_reason,
                        "reactivated_by_user_id": user_id,
                        "reason": reason,
                    },
                ),
            ),
        )

    if trigger == "timer":
        due = unmute_due_at(state, tz=tz)
        if due is None or timer_due_at is None or _utc(timer_due_at) != due or now < due:
            return unchanged
        return Transition(ACTIVE, (MuteEvent(THREAD_UNMUTED, {"previous_muted_reason": state.muted_reason}),))

    new_reason = _MUTING[trigger]
    if state.active:
        return _muted(new_reason, now=now, run_id=run_id, details=details)
    if new_reason == "handoff":
        if state.muted_reason == "handoff":
            return unchanged
        return _muted("handoff", now=now, run_id=run_id, details=details)
    if trigger == "human_message" and state.muted_reason == "human_detected":
        restarted = max(_utc(state.muted_at), now) if state.muted_at is not None else now
        return Transition(MuteState(muted_at=restarted, muted_reason="human_detected"))
    return unchanged
