"""Bookkeeping activities of agent runs: claiming turns, loading a run, recording steps, finishing.

Each is one short transaction keyed by our own ids, so Temporal may retry any
of them. Events a transaction raises are dispatched after its commit (the
outbox sweeper covers a crash in between).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from temporalio import activity

from switchboard import metrics
from switchboard.activities.agents.context import load_run_context
from switchboard.activities.agents.payloads import (
    ClaimInput,
    ClaimResult,
    FinishInput,
    RunContext,
    RunInput,
    SweepTurnsResult,
)
from switchboard.activities.deps import ActivityDeps
from switchboard.activities.workflow_starts import (
    dispatch_events,
    signal_turn,
    wake_thread_timers,
    wake_timers_or_log,
)
from switchboard.models.agent_runtime import RUN_RUNNING, AgentRun, AgentThread
from switchboard.models.base import utcnow
from switchboard.models.urgency_model import load_urgency_model
from switchboard.store.agents.agent_events import record_agent_event
from switchboard.store.agents.budget import STALE_AFTER, settle, stale_reservations
from switchboard.store.agents.guardrails import apply_mute_trigger, overdue_auto_mutes
from switchboard.store.agents.runs import record_steps
from switchboard.store.agents.threads import claim_turns, history_entries, mark_signalled, unsignalled_turns
from switchboard.store.database import unit_of_work

log = logging.getLogger("switchboard.agents")

SWEEP_BATCH = 500
# A signalled turn no run took after this long: its thread workflow was lost (signal it again; the
# workflow ignores ids it already has, and claiming skips answered turns).
LOST_THREAD_AFTER = timedelta(minutes=10)
# A mute that unmutes by itself still in place this long after muted_at: its timer workflow was never
# started (the shortest automatic mute is 24 h; a month cap's thread is woken too, and its timer decides).
OVERDUE_MUTE = timedelta(hours=24, minutes=5)


class AgentRunActivities:
    """The database side of the thread and run workflows."""

    def __init__(self, deps: ActivityDeps) -> None:
        self._deps = deps
        # Read when the worker is built: loading a run's context scores its messages inside the load's
        # transaction, which must not wait for the file (about 0.4 s) the first time.
        load_urgency_model()

    @activity.defn(name="claim_agent_turns")
    async def claim_agent_turns(self, claim: ClaimInput) -> ClaimResult:
        """Create the run that answers these turns (none when the thread is muted or they were answered).

        Skipped turns are checked for urgency first; a handoff they raise is dispatched as a run's is.
        """
        event_ids: list[str] = []
        async with unit_of_work(self._deps.sessions) as session:
            run, message_ids, skipped = await claim_turns(
                session,
                thread_id=claim.thread_id,
                message_ids=claim.message_ids,
                now=utcnow(),
                workflow_id_prefix=claim.workflow_id_prefix,
                event_ids=event_ids,
            )
            thread = await session.get(AgentThread, claim.thread_id) if event_ids else None
        if thread is not None:
            await self._raised(thread.tenant_id, thread.id, event_ids)
        if run is None:
            log.debug("no run for turns", extra={"thread_id": claim.thread_id, "reason": skipped})
            return ClaimResult(skipped_reason=skipped)
        return ClaimResult(run_id=run.id, message_ids=message_ids)

    async def _raised(self, tenant_id: str, thread_id: str, event_ids: list[str]) -> None:
        """After the commit: dispatch the mute's events and let the thread's timers re-read their due time."""
        task_queue = self._deps.settings.temporal_task_queue
        await dispatch_events(
            self._deps.temporal, task_queue=task_queue, event_ids=event_ids, sessions=self._deps.sessions
        )
        await wake_timers_or_log(
            self._deps.temporal, tenant_id=tenant_id, thread_id=thread_id, task_queue=task_queue
        )

    @activity.defn(name="load_agent_run")
    async def load_agent_run(self, request: RunInput) -> RunContext:
        """Resolve the binding, load the version snapshot, hydrate tools and add the turn to the history."""
        settings = self._deps.settings
        event_ids: list[str] = []
        async with unit_of_work(self._deps.sessions) as session:
            context, notes = await load_run_context(
                session,
                request,
                default_max_tokens=settings.agent_max_output_tokens,
                default_inactive_days=settings.agent_inactive_reset_days,
                event_ids=event_ids,
            )
            if notes:
                run = await session.get(AgentRun, request.run_id)
                if run is not None:
                    run.notes = sorted({*(run.notes or []), *notes})
        await dispatch_events(
            self._deps.temporal,
            task_queue=settings.temporal_task_queue,
            event_ids=event_ids,
            sessions=self._deps.sessions,
        )
        return context

    @activity.defn(name="finish_agent_run")
    async def finish_agent_run(self, finish: FinishInput) -> None:
        """End the run: status, history, wizard state, milestone reset, and the handoff mute on escalation."""
        event_ids: list[str] = []
        async with unit_of_work(self._deps.sessions) as session:
            run = await session.get(AgentRun, finish.run_id, with_for_update=True)
            thread = await session.get(AgentThread, finish.thread_id, with_for_update=True)
            if run is None or thread is None:
                raise LookupError(f"run {finish.run_id} or thread {finish.thread_id} not found")
            if run.status != RUN_RUNNING:
                return
            now = utcnow()
            await record_steps(session, run, [step.model_dump() for step in finish.steps], at=now)
            run.status = finish.status
            run.error_message = finish.error_message
            run.intent = finish.intent
            run.ended_at = now
            if finish.notes:
                run.notes = sorted({*(run.notes or []), *finish.notes})
            messages = [*history_entries(thread), *finish.history]
            thread.updated_at = now
            if not finish.keep_wizard:
                thread.wizard_state = finish.wizard_state
            if finish.status == "completed" and finish.milestone_tool:
                thread.messages = []
                thread.wizard_state = None
                event_ids.append(
                    await record_agent_event(
                        session,
                        thread,
                        "thread.messages_auto_reset",
                        {"milestone_tool": finish.milestone_tool, "previous_message_count": len(messages)},
                        at=now,
                        run_id=run.id,
                    )
                )
            else:
                thread.messages = messages
            if finish.status == "escalated":
                event_ids += await apply_mute_trigger(
                    session, thread, finish.mute_trigger, now=now, run_id=run.id
                )
        # Counted once: a retried finish finds the run ended and returns above.
        metrics.count_run(finish.status, [step.model_dump() for step in finish.steps])
        await dispatch_events(
            self._deps.temporal,
            task_queue=self._deps.settings.temporal_task_queue,
            event_ids=event_ids,
            sessions=self._deps.sessions,
        )
        await wake_thread_timers(
            self._deps.temporal,
            tenant_id=finish.tenant_id,
            thread_id=finish.thread_id,
            task_queue=self._deps.settings.temporal_task_queue,
        )

    @activity.defn(name="sweep_agent_turns")
    async def sweep_agent_turns(self) -> SweepTurnsResult:
        """Signal turns a crash left unanswered, release stale cost reservations, wake overdue timers (scheduled)."""
        settings = self._deps.settings
        now = utcnow()
        async with self._deps.sessions() as session:
            turns = await unsignalled_turns(
                session,
                older_than=now - timedelta(seconds=settings.agent_turn_sweep_after_seconds),
                signalled_before=now - LOST_THREAD_AFTER,
                limit=SWEEP_BATCH,
            )
        signalled = 0
        for turn in turns:
            await signal_turn(
                self._deps.temporal,
                tenant_id=turn.tenant_id,
                thread_id=turn.thread_id,
                message_id=turn.message_id,
                task_queue=settings.temporal_task_queue,
                with_search_attributes=settings.temporal_search_attributes,
                debounce_seconds=settings.agent_debounce_seconds,
                idle_seconds=settings.agent_thread_idle_seconds,
            )
            async with unit_of_work(self._deps.sessions) as session:
                await mark_signalled(session, [turn.message_id], at=utcnow())
            signalled += 1
        if signalled:
            log.warning("signalled stranded agent turns", extra={"count": signalled})
        released = await self._release_stale_reservations()
        woken = await self._wake_overdue_timers(now)
        return SweepTurnsResult(signalled=signalled, released_reservations=released, woken_timers=woken)

    async def _wake_overdue_timers(self, now: datetime) -> int:
        """Threads still muted past their 24 h (or a month cap past a month): their timers were never woken."""
        async with self._deps.sessions() as session:
            threads = await overdue_auto_mutes(session, muted_before=now - OVERDUE_MUTE, limit=SWEEP_BATCH)
        for thread in threads:
            await wake_timers_or_log(
                self._deps.temporal,
                tenant_id=thread.tenant_id,
                thread_id=thread.id,
                task_queue=self._deps.settings.temporal_task_queue,
            )
        return len(threads)

    async def _release_stale_reservations(self) -> int:
        """Cost reservations of model calls whose run died without settling them."""
        async with self._deps.sessions() as session:
            stale = await stale_reservations(session, older_than=utcnow() - STALE_AFTER, limit=SWEEP_BATCH)
        for reservation_id in stale:
            async with unit_of_work(self._deps.sessions) as session:
                await settle(session, reservation_id=reservation_id, actual_e10=None)
        if stale:
            log.warning("released stale cost reservations", extra={"count": len(stale)})
        return len(stale)
