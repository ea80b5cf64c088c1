"""The names workflows register under and the signals they take: recorded in every history, so never
renamed. Workflows, the code that starts them (activities/workflow_starts.py) and tracing read them here
(tests/activities/test_workflow_starts.py checks them against the workflow classes)."""

from __future__ import annotations

from typing import Final

SEND_WORKFLOW: Final = "SendMessage"
DISPATCH_WORKFLOW: Final = "DispatchEvent"
NOTIFICATION_WORKFLOW: Final = "SendOwnerNotification"
DELIVERY_WORKFLOW: Final = "DeliverWebhook"
RECOVERY_WORKFLOW: Final = "RecoverDeliveries"
PROCESS_INBOUND_WORKFLOW: Final = "ProcessInbound"
THREAD_WORKFLOW: Final = "AgentThread"
RUN_WORKFLOW: Final = "AgentRun"
TIMERS_WORKFLOW: Final = "AgentThreadTimers"
# Signals the agent workflows are started with (the search attributes they carry: search_attributes.py).
TURN_SIGNAL: Final = "turn"
WAKE_SIGNAL: Final = "wake"
