"""AgentThread: one long-lived workflow per thread (``agent-thread-{thread_id}``) that serialises its turns.

Inbound processing signals-with-start it with each message that starts a turn.
It gathers a burst (messages within AGENT_DEBOUNCE_SECONDS of each other are
answered by one run), claims the turns (which creates the AgentRun, or
nothing when the thread is muted) and runs them as a child AgentRun workflow,
one at a time: messages arriving meanwhile wait for the next run. It keeps
only pending message ids; the history lives in the database. Idle for
AGENT_THREAD_IDLE_SECONDS, it completes (the next message starts it again);
it continues-as-new before its event history grows large.
"""

from __future__ import annotations

from datetime import timedelta
from functools import partial

from temporalio import workflow
from temporalio.exceptions import ChildWorkflowError

from switchboard.workflows.policies import AGENT_LOCAL

with workflow.unsafe.imports_passed_through():
    from switchboard.activities.agents.payloads import (
        ClaimInput,
        ClaimResult,
        FinishInput,
        RunInput,
        ThreadInput,
    )
    from switchboard.activities.agents.runs import AgentRunActivities
    from switchboard.activities.workflow_starts import run_workflow_id, search_attributes
    from switchboard.domain.workflow_names import RUN_WORKFLOW, THREAD_WORKFLOW, TURN_SIGNAL

# Continue-as-new after this many runs even if the server does not suggest it yet.
RUNS_PER_HISTORY = 100
# A burst is cut off after this many debounce periods, so a chatty customer still gets answers.
MAX_DEBOUNCE_ROUNDS = 5


# An unexpected error fails the workflow instead of retrying its task forever; the turn sweeper
# signals the unanswered turns again, which starts a fresh one.
@workflow.defn(name=THREAD_WORKFLOW, failure_exception_types=[Exception])
class AgentThreadWorkflow:
    """Queues a thread's turns and answers them one run at a time."""

    def __init__(self) -> None:
        self._pending: list[str] = []
        self._seen: set[str] = set()

    @workflow.signal(name=TURN_SIGNAL)
    def turn(self, message_id: str) -> None:
        """A new inbound message to answer (a repeated id is ignored)."""
        if message_id not in self._seen:
            self._seen.add(message_id)
            self._pending.append(message_id)

    @workflow.query
    def pending(self) -> list[str]:
        """Message ids waiting for the next run."""
        return list(self._pending)

    @workflow.run
    async def run(self, request: ThreadInput) -> int:
        for message_id in request.pending:
            self.turn(message_id)
        runs = 0
        while True:
            try:
                await workflow.wait_condition(
                    lambda: bool(self._pending), timeout=timedelta(seconds=request.idle_seconds)
                )
            except TimeoutError:
                if not self._pending:
                    return runs
            await self._gather_burst(request.debounce_seconds)
            batch, self._pending = self._pending, []
            await self._answer(request, batch)
            runs += 1
            if runs >= RUNS_PER_HISTORY or workflow.info().is_continue_as_new_suggested():
                await workflow.wait_condition(workflow.all_handlers_finished)
                workflow.continue_as_new(request.model_copy(update={"pending": list(self._pending)}))

    async def _gather_burst(self, debounce_seconds: float) -> None:
        for _ in range(MAX_DEBOUNCE_ROUNDS):
            count = len(self._pending)
            try:
                await workflow.wait_condition(
                    partial(self._grew_past, count), timeout=timedelta(seconds=debounce_seconds)
                )
            except TimeoutError:
                return

    def _grew_past(self, count: int) -> bool:
        return len(self._pending) > count

    async def _answer(self, request: ThreadInput, batch: list[str]) -> None:
        claim: ClaimResult = await workflow.execute_local_activity_method(
            AgentRunActivities.claim_agent_turns,
            ClaimInput(thread_id=request.thread_id, message_ids=batch),
            **AGENT_LOCAL,
        )
        if claim.run_id is None:
            return
        run = RunInput(run_id=claim.run_id, thread_id=request.thread_id, tenant_id=request.tenant_id)
        try:
            await workflow.execute_child_workflow(
                RUN_WORKFLOW,
                run,
                id=run_workflow_id(claim.run_id),
                search_attributes=(
                    search_attributes(request.tenant_id, request.thread_id)
                    if request.search_attributes
                    else None
                ),
            )
        except ChildWorkflowError as error:
            # The run could not even record its own failure: record it here, never leave it running.
            await workflow.execute_local_activity_method(
                AgentRunActivities.finish_agent_run,
                FinishInput(
                    run_id=claim.run_id,
                    tenant_id=request.tenant_id,
                    thread_id=request.thread_id,
                    status="failed",
                    error_message=f"the run workflow failed: {error.cause or error}",
                ),
                **AGENT_LOCAL,
            )
