"""What a run has done so far, and the two side effects every path shares: tool calls and the reply.

Runs in the workflow (deterministic): it numbers steps, collects the ones the
finish activity records in one write (model calls record themselves, with
their cost), remembers whether a successful non-GET tool call happened (for
output safety) and whether a milestone tool succeeded.
"""

from __future__ import annotations

from typing import Any

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.workflow import ParentClosePolicy

from switchboard.workflows.policies import AGENT_LOCAL, AGENT_TOOL_RETRY

with workflow.unsafe.imports_passed_through():
    from switchboard.activities.agents.payloads import (
        FinishInput,
        ModelCallInput,
        ReplyInput,
        ReplyResult,
        RunContext,
        RunTool,
        StepRecord,
    )
    from switchboard.activities.agents.reply import AgentReplyActivities
    from switchboard.activities.tools.executor import ToolActivities
    from switchboard.activities.tools.payloads import ToolCallInput, ToolCallResult, start_to_close_timeout
    from switchboard.activities.workflow_starts import send_workflow_id
    from switchboard.domain.agents.claims import detect_action_claim
    from switchboard.domain.workflow_names import SEND_WORKFLOW
    from switchboard.models.llm import LlmRequest
    from switchboard.models.send import SendInput

DEFAULT_TOOL_TIMEOUT_MS = 10_000


class Stop(Exception):
    """Ends a run early with a status and a readable reason (the run's errorMessage)."""

    def __init__(self, status: str, reason: str, *, mute_trigger: str = "escalation") -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        # Which row of the mute table an escalated run applies (escalation mutes as handoff).
        self.mute_trigger = mute_trigger


class RunSteps:
    """The run's ledger inside the workflow."""

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx
        self.status = "completed"
        self.error: str | None = None
        self.intent: str | None = None
        self.history: list[dict[str, Any]] = []
        self.steps: list[StepRecord] = []
        self.made_change = False
        self.milestone: str | None = None
        self.wizard_state: dict[str, Any] | None = None
        self.wizard_touched = False
        self.mute_trigger = "escalation"
        self._seq = 0

    def next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def record(self, kind: Any, *, name: str | None = None, status: str | None = None, **data: Any) -> None:
        latency = data.pop("latency_ms", None)
        self.steps.append(
            StepRecord(
                seq=self.next_seq(), kind=kind, name=name, status=status, latency_ms=latency, data=data
            )
        )

    def guardrail(self, name: str, decision: str, **data: Any) -> None:
        """Record a guardrail decision (pass, escalate, block ...)."""
        self.record("guardrail", name=name, status=decision, **data)

    def end(self, status: str, reason: str | None, *, mute_trigger: str = "escalation") -> None:
        self.status = status
        self.error = reason
        self.mute_trigger = mute_trigger

    def model_call(self, purpose: Any, request: LlmRequest) -> ModelCallInput:
        """The input of one model call of this run, numbered as its next step."""
        return ModelCallInput(
            run_id=self.ctx.run_id,
            tenant_id=self.ctx.tenant_id,
            thread_id=self.ctx.thread_id,
            seq=self.next_seq(),
            purpose=purpose,
            provider=self.ctx.provider,
            request=request,
        )

    def check_output_safety(self, text: str) -> None:
        """Output safety: a claimed action is sent only after a successful non-GET tool call in this run."""
        claim = detect_action_claim(text)
        if claim is not None and not self.made_change:
            self.guardrail("output_safety", "block", action=claim.action, matched=claim.matched)
            raise Stop(
                "escalated",
                f"output safety: the reply claims '{claim.action}' without a successful non-GET tool call",
            )
        self.guardrail("output_safety", "pass", action=claim.action if claim else None)

    async def call_tool(self, tool: RunTool, arguments: dict[str, Any]) -> ToolCallResult:
        """Run one tool call through the executor activity and record it."""
        if self.ctx.binding is None:
            raise Stop("escalated", "the run has no binding to call tools with")
        timeout_ms = int((tool.declaration.get("request") or {}).get("timeout_ms") or DEFAULT_TOOL_TIMEOUT_MS)
        result: ToolCallResult = await workflow.execute_activity_method(
            ToolActivities.execute_tool_call,
            ToolCallInput(
                tenant_id=self.ctx.tenant_id,
                tool_slug=tool.slug,
                declaration=tool.declaration,
                input=arguments,
                binding=self.ctx.binding,
                context=self.ctx.tool_context,
            ),
            start_to_close_timeout=start_to_close_timeout(min(max(timeout_ms, 100), 30_000)),
            retry_policy=AGENT_TOOL_RETRY,
        )
        self.record(
            "tool_call",
            name=tool.slug,
            status=result.call_class,
            latency_ms=result.latency_ms,
            method=tool.method,
            status_code=result.status_code,
            error_code=result.error_code,
            token=result.token,
        )
        if result.call_class == "ok":
            if tool.method != "GET":
                self.made_change = True
            if tool.terminates_thread or result.terminates_thread:
                self.milestone = tool.slug
        return result

    async def reply(self, content: dict[str, Any]) -> None:
        """Store the reply as an AUTO_AGENT_PLATFORM send and start its SendMessage workflow."""
        result: ReplyResult = await workflow.execute_local_activity_method(
            AgentReplyActivities.create_agent_reply,
            ReplyInput(
                run_id=self.ctx.run_id,
                tenant_id=self.ctx.tenant_id,
                thread_id=self.ctx.thread_id,
                content=content,
            ),
            **AGENT_LOCAL,
        )
        if result.error or result.message_id is None or result.send_input is None:
            self.record("reply", status="refused", error=result.error)
            raise Stop("escalated", result.error or "the reply could not be sent")
        await workflow.start_child_workflow(
            SEND_WORKFLOW,
            SendInput.model_validate(result.send_input),
            id=send_workflow_id(result.message_id),
            parent_close_policy=ParentClosePolicy.ABANDON,
        )
        self.record("reply", status="queued", message_id=result.message_id, type=content.get("type"))

    def finish_input(self) -> FinishInput:
        completed = self.status == "completed"
        return FinishInput(
            run_id=self.ctx.run_id,
            tenant_id=self.ctx.tenant_id,
            thread_id=self.ctx.thread_id,
            status=self.status,
            error_message=self.error,
            intent=self.intent,
            history=self.history if completed else [],
            milestone_tool=self.milestone if completed else None,
            wizard_state=self.wizard_state,
            keep_wizard=not self.wizard_touched,
            steps=self.steps,
            mute_trigger=self.mute_trigger,
        )


def activity_failure(error: ActivityError) -> str:
    """A readable reason for an activity that kept failing after its retries."""
    cause = error.cause
    detail = cause.message if isinstance(cause, ApplicationError) else str(cause or error)
    return f"{error.activity_type or 'activity'} kept failing after retries: {detail}"
