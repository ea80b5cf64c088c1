"""Sandboxed twins of the workflows that run outside the sandbox, so tests still run their code inside it.

SendMessage and DeliverWebhook opt out of the sandbox (``sandboxed=False``): they run once per send and
per webhook delivery, and the sandbox's fresh import of their module per run was about a fifth of the
worker's CPU for each (docs/decisions/0002-workflow-sandbox-cost.md). Each twin here has the same workflow name and runs the same code
under the worker's sandbox, so that replaying the recorded histories through the twins shows that code
still makes no call the sandbox refuses (the wall clock, randomness, I/O) and stays deterministic.

Kept in its own module because the sandbox re-imports a workflow's module per run.
"""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from switchboard.activities.webhooks.types import DeliveryInput, DeliveryReport
    from switchboard.domain.workflow_names import DELIVERY_WORKFLOW, SEND_WORKFLOW
    from switchboard.models.send import SendInput, SendReport

from switchboard.workflows.send_message import SendMessageWorkflow
from switchboard.workflows.webhook_delivery import DeliverWebhookWorkflow


@workflow.defn(name=SEND_WORKFLOW, sandboxed=True)
class SendMessageInTheSandbox(SendMessageWorkflow):
    @workflow.run
    async def run(self, request: SendInput) -> SendReport:
        return await super().run(request)


@workflow.defn(name=DELIVERY_WORKFLOW, sandboxed=True)
class DeliverWebhookInTheSandbox(DeliverWebhookWorkflow):
    @workflow.run
    async def run(self, request: DeliveryInput) -> DeliveryReport:
        return await super().run(request)


# By the workflow name they stand in for.
TWINS: dict[str, type] = {
    SEND_WORKFLOW: SendMessageInTheSandbox,
    DELIVERY_WORKFLOW: DeliverWebhookInTheSandbox,
}
