"""Every workflow of the service. Add one line per workflow; worker.py registers them."""

from __future__ import annotations

from workflows.agent_run import AgentRunWorkflow
from workflows.agent_thread import AgentThreadWorkflow
from workflows.agent_timers import AgentThreadTimersWorkflow
from workflows.event_dispatch import WEBHOOK_WORKFLOWS
from workflows.maintenance import (
    PruneRateLimitCountersWorkflow,
    SweepAgentTurnsWorkflow,
    SweepQueuedSendsWorkflow,
)
from workflows.owner_notification import SendOwnerNotificationWorkflow
from workflows.retention import INBOUND_WORKFLOWS
from workflows.send_message import SendMessageWorkflow
from workflows.template_sync import SyncTemplatesWorkflow

WORKFLOWS: list[type] = [
    PruneRateLimitCountersWorkflow,
    SendMessageWorkflow,
    SweepQueuedSendsWorkflow,
    AgentThreadWorkflow,
    AgentRunWorkflow,
    AgentThreadTimersWorkflow,
    SweepAgentTurnsWorkflow,
    SyncTemplatesWorkflow,
    SendOwnerNotificationWorkflow,
    *WEBHOOK_WORKFLOWS,
    *INBOUND_WORKFLOWS,
]
