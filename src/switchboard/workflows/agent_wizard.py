"""The booking wizard's turn inside a run: deterministic, no model calls.

It asks for each required field of the reservation tool's input_schema one
at a time, validates each answer, confirms, then calls the reservation tool
through the executor. Its state is saved on the thread by the finish activity
(and is part of this workflow's history meanwhile), so it survives worker
restarts. Questions and answers are history messages.
"""

from __future__ import annotations

from typing import Any

from temporalio import workflow

from switchboard.workflows.agent_run_steps import RunSteps, Stop

with workflow.unsafe.imports_passed_through():
    from switchboard.activities.agents.payloads import RunContext, RunTool
    from switchboard.domain.agents.wizard import (
        WizardState,
        WizardStep,
        advance_wizard,
        retry_after_business_error,
        start_wizard,
        to_send_payload,
    )
    from switchboard.models.llm import AssistantMessage

RESERVED_TEXT = "Listo, tu reserva quedó registrada. ¡Gracias!"
CANCELLED_TEXT = "De acuerdo, dejamos la reserva sin hacer. ¿Te ayudo con algo más?"


async def wizard_turn(ctx: RunContext, steps: RunSteps) -> None:
    """Advance the wizard by one answer and reply with the next question, the booking, or the cancellation."""
    tool = ctx.wizard_tool
    steps.wizard_touched = True
    if tool is None:
        # Forget the wizard, so that after a person reactivates the thread the router decides again.
        steps.wizard_state = None
        raise Stop("escalated", f"the reservation tool {ctx.wizard_tool_slug!r} is missing or disabled")
    schema = tool.input_schema
    if ctx.wizard_state is None:
        step = start_wizard(tool.slug, schema)
    else:
        state = WizardState.model_validate(ctx.wizard_state)
        step = advance_wizard(state, schema, text=ctx.user_text, reply_id=ctx.reply_id)
    steps.record("wizard", name=step.action, status="ok", error=step.error, field=_field(step))
    if step.action == "reserve":
        retry = await _reserve(tool, step, steps, schema)
        if retry is None:
            return
        step = retry
    if step.action == "cancelled":
        steps.wizard_state = None
        await _say(steps, {"type": "text", "text": {"body": CANCELLED_TEXT}}, CANCELLED_TEXT)
        return
    if step.question is None or step.state is None:
        raise Stop("escalated", f"the wizard produced no question for step {step.action}")
    steps.wizard_state = step.state.model_dump(mode="json")
    await _say(steps, to_send_payload(step.question), step.question.text)


async def _reserve(
    tool: RunTool, step: WizardStep, steps: RunSteps, schema: dict[str, Any]
) -> WizardStep | None:
    """Call the reservation tool; None when the booking is done, else the step to ask next."""
    result = await steps.call_tool(tool, step.arguments or {})
    if result.escalates:
        raise Stop("escalated", f"tool {tool.slug}: {result.error or result.error_code or 'infra'}")
    if result.call_class == "ok":
        steps.wizard_state = None
        await _say(steps, {"type": "text", "text": {"body": RESERVED_TEXT}}, RESERVED_TEXT)
        return None
    if step.state is None:
        raise Stop("escalated", "the wizard lost its state before the reservation")
    return retry_after_business_error(step.state, schema, hint=result.hint or "No se pudo reservar.")


async def _say(steps: RunSteps, content: dict[str, Any], text: str) -> None:
    await steps.reply(content)
    steps.history.append(AssistantMessage(text=text).model_dump(mode="json"))


def _field(step: WizardStep) -> str | None:
    return step.state.pending_field if step.state is not None else None
