"""Inbound activities: the ProcessInbound workflow's way of applying a payload the endpoint handed over.

POST /channel/webhook applies most payloads itself (``inbound_apply``). A
payload reaches these activities when the endpoint did not apply it (a large
body, an error during the request, INBOUND_APPLY_IN_REQUEST off, or the
raw-envelope sweeper found it unapplied) or when some of its statuses arrived
before their outbound message was stored: the workflow retries those on
durable timers.
"""

from __future__ import annotations

import logging

from temporalio import activity

from switchboard.activities.deps import ActivityDeps
from switchboard.activities.inbound_apply import InboundApplier
from switchboard.domain.inbound import item_from_dict
from switchboard.models.inbound import InboundItemsInput, InboundPayload, InboundSummary
from switchboard.store import inbound as store

log = logging.getLogger("switchboard.inbound")


def _heartbeat(index: int) -> None:
    # A local activity has no heartbeat; a regular one (runs recorded before the local apply) does.
    if not activity.info().is_local:
        activity.heartbeat(index)


class InboundActivities:
    """Applying inbound items to the database and dispatching the events they raise."""

    def __init__(self, deps: ActivityDeps) -> None:
        self._deps = deps
        self.applier = InboundApplier(deps)

    @activity.defn(name="process_inbound_payload")
    async def process_inbound_payload(self, payload: InboundPayload) -> InboundSummary:
        """Parse a verified webhook body, apply every item, and keep the raw envelope as processed."""
        body = payload.body
        if body is None:
            async with self._deps.sessions() as session:
                body = await store.raw_inbound_body(session, payload.payload_id)
            if body is None:
                log.error("stored webhook body not found; skipped", extra={"payload_id": payload.payload_id})
                return InboundSummary()
        # The workflow holds deferred statuses on its own timers, so the envelope is stamped processed.
        summary, _ = await self.applier.apply_payload(
            payload, body, keep_deferred_for_sweeper=False, progress=_heartbeat
        )
        return summary

    @activity.defn(name="apply_inbound_items")
    async def apply_inbound_items(self, data: InboundItemsInput) -> InboundSummary:
        """Apply items again (statuses deferred because their message was not stored yet)."""
        items = [item_from_dict(raw) for raw in data.items]
        return await self.applier.apply_all(items, payload_id=data.payload_id, progress=_heartbeat)
