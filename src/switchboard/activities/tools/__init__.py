"""The AgentTool executor: the activity, its egress-guarded HTTP client and the shared token cache."""

from __future__ import annotations

from switchboard.activities.tools.egress import EgressGuard, EgressRefused, refusal_reason
from switchboard.activities.tools.executor import MAX_MODEL_DATA_BYTES, ToolActivities, build_tool_activities
from switchboard.activities.tools.http_client import MAX_RESPONSE_BYTES, ToolHttpClient
from switchboard.activities.tools.payloads import (
    ToolBinding,
    ToolCallInput,
    ToolCallResult,
    ToolContext,
    start_to_close_timeout,
)

__all__ = [
    "MAX_MODEL_DATA_BYTES",
    "MAX_RESPONSE_BYTES",
    "EgressGuard",
    "EgressRefused",
    "ToolActivities",
    "ToolBinding",
    "ToolCallInput",
    "ToolCallResult",
    "ToolContext",
    "ToolHttpClient",
    "build_tool_activities",
    "refusal_reason",
    "start_to_close_timeout",
]
