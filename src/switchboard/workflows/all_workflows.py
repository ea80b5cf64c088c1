"""Every workflow of the service. Add one line per workflow; worker.py registers them."""

from __future__ import annotations

from switchboard.workflows.agent_run import AgentRunWorkflow
from switchboard.workflows.agent_thread import AgentThreadWorkflow
from switchboard.workflows.agent_timers import AgentThreadTimersWorkflow
from switchboard.workflows.event_dispatch import WEBHOOK_WORKFLOWS
from switchboard.workflows.inbound_housekeeping import INBOUND_WORKFLOWS
from switchboard.workflows.maintenance import (
    PruneRateLimitCountersWorkflow,
    SweepAgentTurnsWorkflow,
    SweepQueuedSendsWorkflow,
)
from switchboard.workflows.owner_notification import SendOwnerNotificationWorkflow
from switchboard.workflows.send_message import SendMessageWorkflow
from switchboard.workflows.template_sync import SyncTemplatesWorkflow
from switchboard.workflows.webhook_recovery import RecoverDeliveriesWorkflow

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
    RecoverDeliveriesWorkflow,
    *INBOUND_WORKFLOWS,
]
