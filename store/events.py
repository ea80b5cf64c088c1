"""The tenant event outbox: events are written in the transaction that raises them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from models.events import Event


async def record_event(
    session: AsyncSession,
    *,
    tenant_id: str,
    kind: str,
    payload: dict[str, Any],
    occurred_at: datetime,
    phone_number_id: str | None = None,
) -> Event:
    """Add an event (the envelope without delivery_id) to the outbox; the caller commits.

    After the commit the caller hands the ids to the dispatcher, which starts
    the deliveries; if the caller crashes first, the outbox sweeper does.
    """
    event = Event(
        tenant_id=tenant_id, kind=kind, payload=payload, occurred_at=occurred_at, phone_number_id=phone_number_id
    )
    session.add(event)
    await session.flush()
    return event
