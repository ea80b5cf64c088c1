"""SQL for the attempt log: a webhook's deliveries, newest first, and one delivery with every attempt.

Reads only, always scoped to the tenant: another tenant's webhook or delivery is a 404, as everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col, select

from switchboard.domain.errors import NotFound
from switchboard.models.events import Event, WebhookAttempt, WebhookDelivery
from switchboard.store.webhooks.endpoints import get_webhook


@dataclass(frozen=True)
class DeliveryFilters:
    status: str | None = None
    event: str | None = None
    since: datetime | None = None


@dataclass(frozen=True)
class LoggedDelivery:
    """A delivery with its event's kind and time, and its latest attempt (None before the first)."""

    delivery: WebhookDelivery
    event_kind: str
    occurred_at: datetime
    last_attempt: WebhookAttempt | None


async def list_deliveries(
    session: AsyncSession,
    tenant_id: str,
    webhook_id: str,
    filters: DeliveryFilters,
    *,
    page: int,
    per_page: int,
) -> tuple[list[LoggedDelivery], int]:
    """One page of the webhook's deliveries, newest first, and how many match (404: not the tenant's)."""
    await get_webhook(session, tenant_id, webhook_id)
    stmt = (
        select(WebhookDelivery, Event.kind, Event.occurred_at)
        .join(Event, col(Event.id) == col(WebhookDelivery.event_id))
        .where(WebhookDelivery.tenant_id == tenant_id, WebhookDelivery.webhook_id == webhook_id)
    )
    if filters.status is not None:
        stmt = stmt.where(WebhookDelivery.status == filters.status)
    if filters.event is not None:
        stmt = stmt.where(Event.kind == filters.event)
    if filters.since is not None:
        stmt = stmt.where(WebhookDelivery.created_at >= filters.since)
    total = (await session.execute(select(func.count()).select_from(stmt.subquery()))).scalar_one()
    ordered = stmt.order_by(col(WebhookDelivery.created_at).desc(), col(WebhookDelivery.id).desc())
    rows = (await session.execute(ordered.limit(per_page).offset((page - 1) * per_page))).all()
    latest = await _latest_attempts(session, [row[0].id for row in rows])
    return [
        LoggedDelivery(
            delivery=row[0], event_kind=row[1], occurred_at=row[2], last_attempt=latest.get(row[0].id)
        )
        for row in rows
    ], int(total)


async def delivery_with_attempts(
    session: AsyncSession, tenant_id: str, delivery_id: str
) -> tuple[LoggedDelivery, list[WebhookAttempt]]:
    """One delivery of the tenant with every attempt, oldest first (404 otherwise)."""
    row = (
        await session.execute(
            select(WebhookDelivery, Event.kind, Event.occurred_at)
            .join(Event, col(Event.id) == col(WebhookDelivery.event_id))
            .where(WebhookDelivery.id == delivery_id, WebhookDelivery.tenant_id == tenant_id)
        )
    ).first()
    if row is None:
        raise NotFound("webhook delivery", delivery_id)
    attempts = list(
        (
            await session.execute(
                select(WebhookAttempt)
                .where(WebhookAttempt.delivery_id == delivery_id)
                .order_by(col(WebhookAttempt.attempt))
            )
        ).scalars()
    )
    logged = LoggedDelivery(
        delivery=row[0],
        event_kind=row[1],
        occurred_at=row[2],
        last_attempt=attempts[-1] if attempts else None,
    )
    return logged, attempts


async def _latest_attempts(session: AsyncSession, delivery_ids: list[str]) -> dict[str, WebhookAttempt]:
    """Each delivery's attempt with the highest number (a page's worth: one query)."""
    if not delivery_ids:
        return {}
    stmt = select(WebhookAttempt).where(col(WebhookAttempt.delivery_id).in_(delivery_ids))
    latest: dict[str, WebhookAttempt] = {}
    for attempt in (await session.execute(stmt)).scalars():
        seen = latest.get(attempt.delivery_id)
        if seen is None or attempt.attempt > seen.attempt:
            latest[attempt.delivery_id] = attempt
    return latest
