"""Every workflow of the service. Add one line per workflow; worker.py registers them."""

from __future__ import annotations

from workflows.maintenance import PruneRateLimitCountersWorkflow
from workflows.send_message import SendMessageWorkflow

WORKFLOWS: list[type] = [
    PruneRateLimitCountersWorkflow,
    SendMessageWorkflow,
]
