"""AgentThreadTimers: a thread's durable timers (``agent-timers-{thread_id}``).

It asks when the next automatic change is due (an unmute 24 h after a
human_detected or cost_cap_tenant_day mute, on the 1st of next month in the
tenant's time zone for cost_cap_tenant_month, or the inactivity reset after
inactiveResetDays), sleeps on a Temporal timer until then and applies it. A
``wake`` signal (a new mute, a finished run) makes it re-read the due time at
once; a due time that moved later is simply slept on again. Nothing due: it
completes, and the next change starts it again (signal-with-start).
"""

from __future__ import annotations

from temporalio import workflow

from switchboard.workflows.policies import AGENT_BOOKKEEPING

with workflow.unsafe.imports_passed_through():
    from switchboard.activities.agents.payloads import TimerDue, TimerQuery, TimersInput
    from switchboard.activities.agents.timers import ThreadTimerActivities
    from switchboard.domain.workflow_names import TIMERS_WORKFLOW, WAKE_SIGNAL

ROUNDS_PER_HISTORY = 200


@workflow.defn(name=TIMERS_WORKFLOW)
class AgentThreadTimersWorkflow:
    """Sleeps until the thread's next automatic unmute or inactivity reset, then applies it."""

    def __init__(self) -> None:
        self._woken = False

    @workflow.signal(name=WAKE_SIGNAL)
    def wake(self) -> None:
        """Something changed: re-read the due time."""
        self._woken = True

    @workflow.run
    async def run(self, request: TimersInput) -> None:
        for _ in range(ROUNDS_PER_HISTORY):
            self._woken = False
            due: TimerDue = await workflow.execute_activity_method(
                ThreadTimerActivities.next_thread_timer,
                TimerQuery(thread_id=request.thread_id, now=workflow.now()),
                **AGENT_BOOKKEEPING,
            )
            if due.at is None:
                if self._woken:
                    continue
                return
            wait = due.at - workflow.now()
            if wait.total_seconds() > 0:
                try:
                    await workflow.wait_condition(lambda: self._woken, timeout=wait)
                except TimeoutError:
                    pass
                if self._woken:
                    continue
            await workflow.execute_activity_method(
                ThreadTimerActivities.fire_thread_timer,
                TimerQuery(thread_id=request.thread_id, now=workflow.now()),
                **AGENT_BOOKKEEPING,
            )
        await workflow.wait_condition(workflow.all_handlers_finished)
        workflow.continue_as_new(request)
