"""How a model-loop run ends once a milestone tool (terminates_thread) has answered ``ok``.

The spec: such a call "completes the run, sends the reply, clears messages". So nothing else runs
after it: the other tool calls of the same model answer are not made and the loop takes no further
turn. One closing model call, with no tools declared, writes the reply. When it gives none (the call
fails or a cost cap refuses it, the answer has no text, output safety blocks it), the run sends
``CLOSING_FALLBACK_TEXT``: the business action has happened, so the customer is told, not handed to a
person. The run completes with the milestone, and finish clears the history.

A transcript holding tool calls and results is refused by some providers when the request declares no
tools (Anthropic), so the closing call's transcript holds none: ``closing_messages`` writes each tool
call and result as a line of the assistant's turn and ends with the runtime's note as the user's turn,
which keeps roles alternating and the last turn the user's on every provider.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Literal

from temporalio import workflow
from temporalio.exceptions import ActivityError

from switchboard.workflows.agent_run_steps import RunSteps, Stop, activity_failure
from switchboard.workflows.policies import AGENT_MODEL_CALL

with workflow.unsafe.imports_passed_through():
    from switchboard.activities.agents.model import ModelCallActivities
    from switchboard.activities.agents.payloads import ModelCallResult, RunContext
    from switchboard.models.llm import (
        AssistantMessage,
        LlmMessage,
        LlmRequest,
        ToolResultMessage,
        UserMessage,
    )

# Sent when the closing call gives no reply; it states no action, so it reads true whatever the tool did.
CLOSING_FALLBACK_TEXT = "Listo, quedó hecho. ¿Te ayudo con algo más?"
CLOSING_NOTE = (
    "[Runtime note, not written by the customer] The tool {tool} succeeded, and that completes this "
    "conversation's task. Write your final message to the customer now, in their language: confirm "
    "briefly what was done, using only the tool results above. No tools are available any more."
)


def closing_messages(transcript: Sequence[LlmMessage], *, tool_slug: str) -> list[LlmMessage]:
    """The run's transcript without tool blocks, alternating roles, ending with the closing note."""
    turns: list[tuple[Literal["user", "assistant"], list[str]]] = []

    def add(role: Literal["user", "assistant"], text: str | None) -> None:
        if not text or not text.strip():
            return
        if turns and turns[-1][0] == role:
            turns[-1][1].append(text.strip())
        else:
            turns.append((role, [text.strip()]))

    for message in transcript:
        if isinstance(message, UserMessage):
            add("user", message.text)
        elif isinstance(message, AssistantMessage):
            add("assistant", message.text)
            for call in message.tool_calls:
                arguments = json.dumps(call.arguments, ensure_ascii=False, default=str)
                add("assistant", f"[tool call {call.name} {arguments}]")
        elif isinstance(message, ToolResultMessage):
            outcome = "error" if message.is_error else "ok"
            add("assistant", f"[tool result {message.tool_name} ({outcome}): {message.content}]")
    add("user", CLOSING_NOTE.format(tool=tool_slug))
    return [
        UserMessage(text="\n\n".join(parts)) if role == "user" else AssistantMessage(text="\n\n".join(parts))
        for role, parts in turns
    ]


async def close_after_milestone(
    ctx: RunContext, steps: RunSteps, *, system: str, transcript: Sequence[LlmMessage], skipped: list[str]
) -> None:
    """The closing reply (the model's, else the fallback text), sent; the run then completes."""
    milestone = steps.milestone or ""
    request = LlmRequest(
        model=ctx.model,
        system=system,
        messages=closing_messages(transcript, tool_slug=milestone),
        max_tokens=ctx.max_tokens,
    )
    text, fallback_reason = await _closing_text(steps, request)
    steps.record(
        "milestone",
        name=milestone,
        status="fallback" if text is None else "closing_reply",
        skipped_calls=skipped,
        reason=fallback_reason,
    )
    body = text or CLOSING_FALLBACK_TEXT
    await steps.reply({"type": "text", "text": {"body": body}})
    steps.history.append(AssistantMessage(text=body).model_dump(mode="json"))


async def _closing_text(steps: RunSteps, request: LlmRequest) -> tuple[str | None, str | None]:
    """The closing call's text, or None and why not (any failure ends in the fallback, never a handoff)."""
    try:
        result: ModelCallResult = await workflow.execute_activity_method(
            ModelCallActivities.call_agent_model, steps.model_call("closing", request), **AGENT_MODEL_CALL
        )
    except ActivityError as error:
        return None, f"the closing call failed: {activity_failure(error)}"
    if result.blocked is not None:
        # No spend, so nothing to mute for: the next turn's first model call meets the same cap.
        steps.guardrail("cost_circuit_breaker", "skip_closing_call", scope=result.blocked)
        return None, f"cost cap reached ({result.blocked}): the closing call was not made"
    if result.response is None:
        return None, "the closing call returned no answer"
    text = (result.response.text or "").strip()
    if not text:
        return None, f"the closing call answered with no text (stop reason {result.response.stop_reason})"
    try:
        steps.check_output_safety(text)
    except Stop as stop:
        return None, stop.reason
    return text, None
