"""The tenant event outbox: events are written in the transaction that raises them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col, select

from switchboard.domain.events import WEBHOOK_TEST
from switchboard.models.events import Event
from switchboard.store.webhooks.active import active_webhooks

# session.info key: the events this session recorded, by id. The session's identity map holds clean
# rows weakly, so an event its caller let go of would be gone by the time its deliveries are planned.
_RECORDED = "switchboard.recorded_events"


async def record_event(
    session: AsyncSession,
    *,
    tenant_id: str,
    kind: str,
    payload: dict[str, Any],
    occurred_at: datetime,
    phone_number_id: str | None = None,
    flush: bool = True,
) -> Event:
    """Add an event (the envelope without delivery_id) to the outbox; the caller commits.

    After the commit the caller hands the ids to the dispatcher, which starts
    the deliveries; if the caller crashes first, the outbox sweeper does. An
    event that no enabled webhook of the tenant wants is stored already
    dispatched: events are not delivered to webhooks enabled later, so it
    would never have a delivery, and it costs no dispatch workflow.
    ``flush=False`` leaves the INSERT to the caller's next flush, which
    batches it with the events added since.
    """
    event = Event(
        tenant_id=tenant_id,
        kind=kind,
        payload=payload,
        occurred_at=occurred_at,
        phone_number_id=phone_number_id,
    )
    if kind != WEBHOOK_TEST and not await _wanted(session, tenant_id, kind, phone_number_id):
        event.dispatched_at = occurred_at
    session.add(event)
    if flush:
        await session.flush()
    session.info.setdefault(_RECORDED, {})[event.id] = event
    return event


def recorded_here(session: AsyncSession, event_id: str) -> Event | None:
    """The event if this session recorded it (no read); None otherwise."""
    recorded: dict[str, Event] = session.info.get(_RECORDED, {})
    return recorded.get(event_id)


async def _wanted(session: AsyncSession, tenant_id: str, kind: str, phone_number_id: str | None) -> bool:
    return any(webhook.wants(kind, phone_number_id) for webhook in await active_webhooks(session, tenant_id))


async def awaiting_dispatch(session: AsyncSession, event_ids: list[str]) -> list[str]:
    """The ones of these events that still need their dispatch workflow."""
    if not event_ids:
        return []
    stmt = select(Event.id).where(col(Event.id).in_(event_ids), col(Event.dispatched_at).is_(None))
    pending = set((await session.execute(stmt)).scalars().all())
    return [event_id for event_id in event_ids if event_id in pending]
