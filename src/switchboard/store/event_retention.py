"""Pruning of the tenant event outbox with its webhook deliveries and attempts.

Events, deliveries and attempts grow with every message and status; nothing
reads them after the health windows (24 h, 7 d) and support look-ups have
passed, so they are kept ``EVENT_RETENTION_DAYS`` and then deleted in batches,
attempts first, then deliveries, then the event (the foreign keys point that
way). An event is kept, however old, while it is undispatched or any of its
deliveries is still pending (being retried): its delivery workflow still reads
it. Message rows are never touched here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from switchboard.models.events import Event, WebhookAttempt, WebhookDelivery
from switchboard.store.tables import table_of
from switchboard.store.webhooks.deliveries import PENDING

_events = table_of(Event)
_deliveries = table_of(WebhookDelivery)
_attempts = table_of(WebhookAttempt)


@dataclass(frozen=True)
class PrunedEvents:
    """Rows one batch deleted."""

    events: int = 0
    deliveries: int = 0
    attempts: int = 0


def _count(result: object) -> int:
    return int(getattr(result, "rowcount", 0) or 0)


async def prune_events(session: AsyncSession, *, created_before: datetime, batch: int) -> PrunedEvents:
    """Delete up to ``batch`` settled events created before the cut-off, with their deliveries and attempts."""
    e, d, a = _events.c, _deliveries.c, _attempts.c
    unsettled = select(d.id).where(d.event_id == e.id, d.status == PENDING).exists()
    stmt = (
        select(e.id)
        .where(e.created_at < created_before, e.dispatched_at.is_not(None), ~unsettled)
        .order_by(e.created_at)
        .limit(batch)
    )
    ids = list((await session.execute(stmt)).scalars())
    if not ids:
        return PrunedEvents()
    settled = select(d.id).where(d.event_id.in_(ids), d.status != PENDING)
    attempts = await session.execute(delete(_attempts).where(a.delivery_id.in_(settled)))
    deliveries = await session.execute(delete(_deliveries).where(d.event_id.in_(ids), d.status != PENDING))
    # Re-checked at delete time: a delivery planned meanwhile keeps its event.
    orphan = ~select(d.id).where(d.event_id == e.id).exists()
    events = await session.execute(delete(_events).where(e.id.in_(ids), orphan))
    return PrunedEvents(events=_count(events), deliveries=_count(deliveries), attempts=_count(attempts))
