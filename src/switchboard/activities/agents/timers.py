"""The thread timers' activities: when the next automatic unmute or inactivity reset is due, and doing it.

Both take the timer workflow's clock (``now``) rather than reading their own,
so Temporal's time-skipping tests drive them, and both re-read the thread:
a reactivation, a new mute or a new message since the timer was armed simply
moves the due time (a stale timer does nothing).
"""

from __future__ import annotations

from datetime import datetime

from temporalio import activity

from switchboard.activities.agents.payloads import TimerDue, TimerQuery
from switchboard.activities.deps import ActivityDeps
from switchboard.activities.workflow_starts import dispatch_events
from switchboard.models.agent_runtime import AgentThread
from switchboard.store.agents.guardrails import apply_mute_trigger, reset_if_inactive, thread_dues
from switchboard.store.database import unit_of_work


def _earliest(unmute: datetime | None, reset: datetime | None) -> TimerDue:
    candidates = [(at, reason) for at, reason in ((unmute, "unmute"), (reset, "inactivity_reset")) if at]
    if not candidates:
        return TimerDue()
    at, reason = min(candidates)
    return TimerDue(at=at, reason=reason)


class ThreadTimerActivities:
    """Automatic unmutes (human_detected, cost_cap_tenant_day, cost_cap_tenant_month) and inactivity resets."""

    def __init__(self, deps: ActivityDeps) -> None:
        self._deps = deps

    @activity.defn(name="next_thread_timer")
    async def next_thread_timer(self, query: TimerQuery) -> TimerDue:
        """The thread's next due time (None when nothing will happen by itself)."""
        async with self._deps.sessions() as session:
            thread = await session.get(AgentThread, query.thread_id)
            if thread is None:
                return TimerDue()
            unmute, reset, _days, _source = await thread_dues(
                session, thread, default_days=self._deps.settings.agent_inactive_reset_days
            )
        return _earliest(unmute, reset)

    @activity.defn(name="fire_thread_timer")
    async def fire_thread_timer(self, query: TimerQuery) -> None:
        """Unmute and/or reset the history if due at ``now``; events dispatched after the commit."""
        event_ids: list[str] = []
        default_days = self._deps.settings.agent_inactive_reset_days
        async with unit_of_work(self._deps.sessions) as session:
            thread = await session.get(AgentThread, query.thread_id, with_for_update=True)
            if thread is None:
                return
            unmute, _reset, _days, _source = await thread_dues(session, thread, default_days=default_days)
            if unmute is not None and unmute <= query.now:
                event_ids += await apply_mute_trigger(
                    session, thread, "timer", now=query.now, timer_due_at=unmute
                )
            event_ids += await reset_if_inactive(session, thread, now=query.now, default_days=default_days)
        await dispatch_events(
            self._deps.temporal,
            task_queue=self._deps.settings.temporal_task_queue,
            event_ids=event_ids,
            sessions=self._deps.sessions,
        )
