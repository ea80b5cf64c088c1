"""AgentRun: one turn of an agent (``agent-run-{run_id}``), the guardrails floor in the order it runs.

1. Load: the binding resolved anew, the version snapshot, tools hydrated by slug.
2. Guardrails before the loop: the urgency detector (a match hands the thread
   to a person, no model is called), the human-intervention scan (a person
   wrote in the last 24 h), the conversation cap.
3. Router, when the version declares intents; ``catch_all`` follows catchAllAction.
4. The booking wizard (deterministic, no model) or the model loop: up to
   capExecucion model turns, tool calls through the executor, classified;
   ``infra`` and configuration errors stop the run and escalate. A milestone
   tool (terminates_thread) answering ``ok`` ends the loop at once: one closing
   call with no tools, or a fixed text, is the reply (workflows/agent_milestone.py).
5. Guardrails before sending: output safety (a claimed action needs a
   successful non-GET tool call in this run).
6. Reply through the one send path (AUTO_AGENT_PLATFORM), then finish:
   history, milestone reset, cost, and on escalation the handoff mute.

Decisions live in ``domain.agents``; every side effect is an activity. An
escalation sends nothing for the turn (CONTRACTS 7a).
"""

from __future__ import annotations

import json
from typing import Any

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

from switchboard.workflows.agent_milestone import close_after_milestone
from switchboard.workflows.agent_run_steps import RunSteps, Stop, activity_failure
from switchboard.workflows.agent_wizard import wizard_turn
from switchboard.workflows.policies import AGENT_LOCAL, AGENT_MODEL_CALL

with workflow.unsafe.imports_passed_through():
    from switchboard.activities.agents.model import ModelCallActivities
    from switchboard.activities.agents.payloads import (
        FinishInput,
        ModelCallResult,
        RunContext,
        RunInput,
    )
    from switchboard.activities.agents.runs import AgentRunActivities
    from switchboard.domain.agents.prompt import parse_intent, router_prompt, system_prompt
    from switchboard.domain.agents.urgency import detect_urgency, detect_urgency_in_burst
    from switchboard.domain.workflow_names import RUN_WORKFLOW
    from switchboard.models.llm import (
        LlmMessage,
        LlmRequest,
        LlmResponse,
        LlmTool,
        ToolResultMessage,
        UserMessage,
    )

CATCH_ALL = "catch_all"
# Runs whose milestone tool call answered before this change replay with the loop going on after it
# (the other calls of that model answer, then the next turn with tools); later ones end the run there.
MILESTONE_ENDS_RUN = "milestone-ends-run"
# Runs loaded before this change read a burst only as one text; later ones also read each message
# alone, so one message's veto (a pet, a joke) cannot hide another's emergency.
URGENCY_EACH_MESSAGE = "urgency-each-message"
WIZARD_INTENT = "pedir_turno"
ROUTER_MAX_TOKENS = 32


# A bug in a run (say, an unreadable tool schema) must fail the run, not retry its workflow task
# forever: the thread workflow then records it as failed and the thread goes on.
@workflow.defn(name=RUN_WORKFLOW, failure_exception_types=[Exception])
class AgentRunWorkflow:
    """Answers one turn of a thread; returns the run's final status."""

    @workflow.run
    async def run(self, request: RunInput) -> str:
        ctx: RunContext = await workflow.execute_local_activity_method(
            AgentRunActivities.load_agent_run, request, **AGENT_LOCAL
        )
        steps = RunSteps(ctx)
        try:
            if ctx.refusal:
                raise Stop("escalated", ctx.refusal)
            self._guard_before_loop(ctx, steps)
            wizard_under_way = ctx.wizard_enabled and ctx.wizard_state is not None
            if ctx.wizard_state is not None and not ctx.wizard_enabled:
                # The wizard was turned off mid-conversation: forget it and route as usual.
                steps.wizard_touched, steps.wizard_state = True, None
            intent = WIZARD_INTENT if wizard_under_way else await self._route(ctx, steps)
            if ctx.wizard_enabled and intent == WIZARD_INTENT:
                steps.intent = WIZARD_INTENT
                await wizard_turn(ctx, steps)
            else:
                await self._model_loop(ctx, steps, intent)
        except Stop as stop:
            steps.end(stop.status, stop.reason, mute_trigger=stop.mute_trigger)
        except ActivityError as error:
            steps.end("failed", activity_failure(error))
        await workflow.execute_local_activity_method(
            AgentRunActivities.finish_agent_run, steps.finish_input(), **AGENT_LOCAL
        )
        return steps.status

    def _guard_before_loop(self, ctx: RunContext, steps: RunSteps) -> None:
        """Guardrails that run before any model call: urgency, human intervention, conversation cap."""
        if ctx.urgency_assessed:
            self._guard_urgency(ctx, steps)
        else:
            self._guard_urgency_by_rules(ctx, steps)
        steps.guardrail("urgency", "pass")
        if ctx.human_message_at is not None:
            steps.guardrail("human_intervention", "mute", human_message_at=ctx.human_message_at.isoformat())
            raise Stop(
                "escalated",
                f"a person wrote in this conversation at {ctx.human_message_at.isoformat()} (last 24 h)",
                mute_trigger="human_message",
            )
        steps.guardrail("human_intervention", "pass")
        if ctx.history_pairs >= ctx.cap_conversacion:
            steps.guardrail("capConversacion", "escalate", pairs=ctx.history_pairs, cap=ctx.cap_conversacion)
            raise Stop("escalated", f"capConversacion reached: {ctx.history_pairs} message pairs")
        steps.guardrail("capConversacion", "pass", pairs=ctx.history_pairs, cap=ctx.cap_conversacion)

    def _guard_urgency(self, ctx: RunContext, steps: RunSteps) -> None:
        """The layered detector's verdict, made when the context was loaded: a match hands off."""
        urgency = ctx.urgency
        if urgency is not None:
            steps.guardrail("urgency", "handoff", **urgency.model_dump())
            raise Stop(
                "escalated",
                f"urgency detector: {urgency.category} ({urgency.decided_by}: {urgency.matched!r})",
                mute_trigger="urgency",
            )

    def _guard_urgency_by_rules(self, ctx: RunContext, steps: RunSteps) -> None:
        """The rules alone, in the workflow: runs whose context was loaded before the layered detector."""
        urgency = detect_urgency(ctx.user_text)
        if urgency is None:
            # Asked only when a message alone is urgent and the burst read together is not: that is the
            # one place the two versions differ, so other runs record no marker.
            alone = detect_urgency_in_burst(ctx.user_texts)
            if alone is not None and workflow.patched(URGENCY_EACH_MESSAGE):
                urgency = alone
        if urgency is not None:
            steps.guardrail("urgency", "handoff", category=urgency.category, matched=urgency.matched)
            raise Stop(
                "escalated",
                f"urgency detector: {urgency.category} ({urgency.matched!r})",
                mute_trigger="urgency",
            )

    async def _route(self, ctx: RunContext, steps: RunSteps) -> str | None:
        """One cheap classification call when the version declares intents; none otherwise."""
        if not ctx.intents:
            return None
        response = await self._call_model(
            ctx,
            steps,
            "router",
            LlmRequest(
                model=ctx.model,
                system=router_prompt(ctx.intents),
                messages=[UserMessage(text=ctx.user_text)],
                max_tokens=ROUTER_MAX_TOKENS,
            ),
        )
        intent = parse_intent(response.text, ctx.intents)
        steps.intent = intent
        steps.record("router", name=intent, status="ok", answer=(response.text or "")[:200])
        if intent == CATCH_ALL and ctx.catch_all_action != "respond":
            raise Stop("escalated", "the router found no intent (catch_all) and catchAllAction is escalate")
        return intent

    async def _model_loop(self, ctx: RunContext, steps: RunSteps, intent: str | None) -> None:
        """Model turns with tool calls until the model answers in text, a milestone tool succeeds, or capExecucion."""
        tools = {tool.slug: tool for tool in ctx.tools}
        transcript: list[LlmMessage] = [*ctx.history, UserMessage(text=ctx.user_text)]
        system = system_prompt(ctx.system_prompt, ctx.reglas, intent=intent)
        declared = [
            LlmTool(name=t.slug, description=t.description, parameters=t.input_schema) for t in ctx.tools
        ]
        for _ in range(ctx.cap_execucion):
            request = LlmRequest(
                model=ctx.model, system=system, messages=transcript, tools=declared, max_tokens=ctx.max_tokens
            )
            response = await self._call_model(ctx, steps, "loop", request)
            answer = response.as_assistant_message()
            transcript.append(answer)
            steps.history.append(answer.model_dump(mode="json"))
            if not response.tool_calls:
                text = (response.text or "").strip()
                if not text:
                    raise Stop(
                        "escalated", f"the model answered with no text (stop reason {response.stop_reason})"
                    )
                steps.check_output_safety(text)
                await steps.reply({"type": "text", "text": {"body": text}})
                return
            for index, call in enumerate(response.tool_calls):
                tool = tools.get(call.name)
                if tool is None:
                    raise Stop(
                        "escalated", f"the model called a tool this agent does not have: {call.name!r}"
                    )
                if call.invalid_arguments is not None:
                    raise Stop(
                        "escalated", f"the model sent arguments that are not a JSON object to {call.name}"
                    )
                result = await steps.call_tool(tool, call.arguments)
                if result.escalates:
                    raise Stop(
                        "escalated", f"tool {tool.slug}: {result.error or result.error_code or 'infra'}"
                    )
                message = ToolResultMessage(
                    tool_call_id=call.id,
                    tool_name=call.name,
                    content=json.dumps(result.for_model(), ensure_ascii=False, default=str),
                    is_error=result.call_class != "ok",
                )
                transcript.append(message)
                steps.history.append(message.model_dump(mode="json"))
                # Asked only once a milestone succeeded: that is where the two versions first differ.
                if steps.milestone is not None and workflow.patched(MILESTONE_ENDS_RUN):
                    skipped = [later.name for later in response.tool_calls[index + 1 :]]
                    await close_after_milestone(
                        ctx, steps, system=system, transcript=transcript, skipped=skipped
                    )
                    return
        steps.guardrail("capExecucion", "escalate", cap=ctx.cap_execucion)
        raise Stop("escalated", f"capExecucion reached: {ctx.cap_execucion} model turns without a reply")

    async def _call_model(
        self, ctx: RunContext, steps: RunSteps, purpose: Any, request: LlmRequest
    ) -> LlmResponse:
        """One model call; a cost cap or a permanent provider error stops the run."""
        try:
            result: ModelCallResult = await workflow.execute_activity_method(
                ModelCallActivities.call_agent_model, steps.model_call(purpose, request), **AGENT_MODEL_CALL
            )
        except ActivityError as error:
            cause = error.cause
            if isinstance(cause, ApplicationError) and cause.non_retryable:
                raise Stop(
                    "escalated", f"permanent provider error ({cause.type}): {cause.message}"
                ) from error
            raise
        if result.blocked is not None:
            steps.guardrail("cost_circuit_breaker", "mute", scope=result.blocked)
            raise Stop(
                "escalated",
                f"cost cap reached ({result.blocked}): the model call was not made",
                mute_trigger=f"cost_cap_{result.blocked}",
            )
        if result.response is None:
            raise Stop("failed", "the model call returned no answer")
        return result.response


__all__ = ["AgentRunWorkflow", "FinishInput"]
