"""Every activity of the service, bound to its dependencies.

Add one line per activity class here; worker.py registers the result.
"""

from __future__ import annotations

from typing import Any

from switchboard.activities.agents import build_agent_activities
from switchboard.activities.channel import ChannelActivities
from switchboard.activities.deps import ActivityDeps
from switchboard.activities.event_retention import event_retention_activities
from switchboard.activities.inbound_housekeeping import inbound_activities
from switchboard.activities.maintenance import MaintenanceActivities
from switchboard.activities.media import MediaActivities
from switchboard.activities.send_sweeper import SendSweeperActivities
from switchboard.activities.sends import SendRecordActivities
from switchboard.activities.template_sync import template_sync_activities
from switchboard.activities.tools import build_tool_activities
from switchboard.activities.webhooks import build_webhook_activities


def build_activities(deps: ActivityDeps) -> list[Any]:
    """All activity callables."""
    maintenance = MaintenanceActivities(deps.engine)
    channel = ChannelActivities(deps)
    media = MediaActivities(deps)
    sends = SendRecordActivities(deps)
    return [
        maintenance.prune_rate_limit_counters,
        maintenance.prune_idempotency_records,
        maintenance.prune_tool_tokens,
        channel.send,
        channel.acquire_slot,
        media.prepare_link,
        sends.record_outcome,
        SendSweeperActivities(deps).resume_queued_sends,
        *build_tool_activities(deps),
        *build_agent_activities(deps),
        *build_webhook_activities(deps),
        *inbound_activities(deps),
        *template_sync_activities(deps),
        *event_retention_activities(deps),
    ]
