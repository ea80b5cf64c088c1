"""The workflows as they were before each ``workflow.patched`` call was added (no tests here).

Copied from git (the commit is named on each), registered under the production
name on a task queue of their own by tests/workflows/record_support.py: their
histories stand for the runs that were in flight when the patch shipped, and
must keep replaying on the current code's unpatched branch. Delete a class
(and its histories) when its patch becomes ``workflow.deprecate_patch``.
"""

from __future__ import annotations

import json
from datetime import timedelta

from temporalio import workflow

from switchboard.workflows.agent_run import AgentRunWorkflow
from switchboard.workflows.agent_run_steps import RunSteps, Stop
from switchboard.workflows.inbound import _add
from switchboard.workflows.policies import (
    HOUSEKEEPING,
    INBOUND_APPLY,
    INBOUND_DEFERRED_STATUS_DELAYS,
    WEBHOOK_ATTEMPT,
    WEBHOOK_BOOKKEEPING,
)
from switchboard.workflows.webhook_delivery import DeliverWebhookWorkflow

with workflow.unsafe.imports_passed_through():
    from switchboard.activities.agents.payloads import RunContext, RunInput
    from switchboard.activities.inbound import InboundActivities
    from switchboard.activities.maintenance import MaintenanceActivities, PruneResult
    from switchboard.activities.webhooks.delivery import WebhookDeliveryActivities
    from switchboard.activities.webhooks.types import (
        AttemptInput,
        AttemptResult,
        DeliveryInput,
        DeliveryOutcome,
        DeliveryReport,
        FinishInput,
    )
    from switchboard.domain.agents.prompt import system_prompt
    from switchboard.domain.webhook_policy import next_retry_delay
    from switchboard.domain.workflow_names import DELIVERY_WORKFLOW, RUN_WORKFLOW
    from switchboard.models.inbound import InboundItemsInput, InboundPayload, InboundSummary
    from switchboard.models.llm import LlmMessage, LlmRequest, LlmTool, ToolResultMessage, UserMessage


@workflow.defn(name="PruneRateLimitCounters")
class LegacyPruneRateLimitCountersWorkflow:
    """workflows/maintenance.py before ``event-retention`` (d04d80f^): no tenant-event pruning."""

    @workflow.run
    async def run(self) -> PruneResult:
        await workflow.execute_activity_method(
            MaintenanceActivities.prune_idempotency_records, **HOUSEKEEPING
        )
        await workflow.execute_activity_method(MaintenanceActivities.prune_tool_tokens, **HOUSEKEEPING)
        return await workflow.execute_activity_method(
            MaintenanceActivities.prune_rate_limit_counters, **HOUSEKEEPING
        )


@workflow.defn(name="ProcessInbound")
class LegacyProcessInboundWorkflow:
    """workflows/inbound.py before ``inbound-local-apply`` (02dfec0^): the payload as a regular activity."""

    @workflow.run
    async def run(self, payload: InboundPayload) -> InboundSummary:
        summary = await workflow.execute_activity_method(
            InboundActivities.process_inbound_payload, payload, **INBOUND_APPLY
        )
        pending = summary.deferred
        for delay in INBOUND_DEFERRED_STATUS_DELAYS:
            if not pending:
                break
            await workflow.sleep(delay)
            retry = await workflow.execute_activity_method(
                InboundActivities.apply_inbound_items,
                InboundItemsInput(payload_id=payload.payload_id, items=pending),
                **INBOUND_APPLY,
            )
            _add(summary, retry)
            pending = retry.deferred
        if pending:
            workflow.logger.warning(
                "statuses for unknown messages dropped",
                extra={"payload_id": payload.payload_id, "wamids": [p.get("wa_message_id") for p in pending]},
            )
        summary.dropped = len(pending)
        summary.deferred = []
        return summary


@workflow.defn(name=DELIVERY_WORKFLOW)
class LegacyDeliverWebhookWorkflow(DeliverWebhookWorkflow):
    """workflows/webhook_delivery.py before ``delivery-settled-with-attempt`` (02dfec0^).

    Every delivery ends with finish_delivery, a successful one included.
    """

    @workflow.run
    async def run(self, request: DeliveryInput) -> DeliveryReport:
        policy = request.schedule.policy()
        delivery_id = request.delivery.delivery_id
        attempt = 0
        while True:
            attempt += 1
            result: AttemptResult = await workflow.execute_activity_method(
                WebhookDeliveryActivities.attempt_delivery,
                AttemptInput(delivery_id=delivery_id, attempt=attempt, at=workflow.now()),
                **WEBHOOK_ATTEMPT,
            )
            await self._notify(result.notification_ids)
            outcome = self._outcome(result)
            if outcome is None:
                delay = next_retry_delay(
                    attempt,
                    result.status_code,
                    random_unit=workflow.random().random(),
                    retry_after_seconds=result.retry_after_seconds,
                    timed_out=result.timed_out,
                    policy=policy,
                )
                if delay is not None:
                    await workflow.sleep(timedelta(seconds=delay))
                    continue
                outcome = DeliveryOutcome.FAILED
            break
        finished = await workflow.execute_activity_method(
            WebhookDeliveryActivities.finish_delivery,
            FinishInput(delivery_id=delivery_id, outcome=outcome, at=workflow.now()),
            **WEBHOOK_BOOKKEEPING,
        )
        await self._notify(finished.notification_ids)
        attempts = attempt - 1 if outcome is DeliveryOutcome.CANCELED else attempt
        return DeliveryReport(
            delivery_id=delivery_id, outcome=outcome, attempts=attempts, auto_disabled=finished.auto_disabled
        )


@workflow.defn(name=DELIVERY_WORKFLOW)
class LegacyRegularAttemptDeliverWebhookWorkflow(DeliverWebhookWorkflow):
    """workflows/webhook_delivery.py before ``delivery-local-attempt`` (b0e4c33): attempts as regular activities."""

    @workflow.run
    async def run(self, request: DeliveryInput) -> DeliveryReport:
        return await super().run(request)

    @staticmethod
    async def _attempt(request: AttemptInput) -> AttemptResult:
        return await workflow.execute_activity_method(
            WebhookDeliveryActivities.attempt_delivery, request, **WEBHOOK_ATTEMPT
        )


@workflow.defn(name=RUN_WORKFLOW, failure_exception_types=[Exception])
class LegacyAgentRunWorkflow(AgentRunWorkflow):
    """workflows/agent_run.py before ``milestone-ends-run`` (2a22aa0): the loop goes on after a milestone.

    A successful terminating tool call only marks the milestone; the other calls of the same model
    answer run, and the loop takes its next turn (with tools) as after any other call.
    """

    @workflow.run
    async def run(self, request: RunInput) -> str:
        return await super().run(request)

    async def _model_loop(self, ctx: RunContext, steps: RunSteps, intent: str | None) -> None:
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
            for call in response.tool_calls:
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
        steps.guardrail("capExecucion", "escalate", cap=ctx.cap_execucion)
        raise Stop("escalated", f"capExecucion reached: {ctx.cap_execucion} model turns without a reply")
