"""SQL for recovering deliveries: the failed ones of a window, and a settled delivery reopened for a resend.

A resent delivery keeps its id (receivers deduplicate on it) and its attempts: the resend is its next
attempt. Reopening is idempotent for a retried activity: the caller names the attempt count it saw,
and a delivery whose count has moved past it was resent already.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col, select
from sqlmodel.sql.expression import SelectOfScalar

from switchboard.domain.errors import Conflict, NotFound
from switchboard.models.events import WebhookDelivery
from switchboard.store.webhooks.deliveries import PENDING

FAILED = "failed"


@dataclass(frozen=True)
class ResendTarget:
    """A delivery to resend and the attempt count it had when chosen."""

    delivery_id: str
    attempts: int


def _failed_in_window(webhook_id: str, since: datetime, until: datetime) -> SelectOfScalar[WebhookDelivery]:
    return select(WebhookDelivery).where(
        WebhookDelivery.webhook_id == webhook_id,
        WebhookDelivery.status == FAILED,
        col(WebhookDelivery.completed_at) >= since,
        col(WebhookDelivery.completed_at) < until,
    )


async def count_failed(session: AsyncSession, webhook_id: str, *, since: datetime, until: datetime) -> int:
    """How many of the webhook's deliveries ended failed in [since, until)."""
    stmt = _failed_in_window(webhook_id, since, until).subquery()
    return int((await session.execute(select(func.count()).select_from(stmt))).scalar_one())


async def failed_page(
    session: AsyncSession, webhook_id: str, *, since: datetime, until: datetime, after: str | None, limit: int
) -> list[ResendTarget]:
    """The next ``limit`` deliveries that ended failed in [since, until), by id after ``after``.

    By id, not by time: a resent delivery that fails again is settled after ``until`` (the recovery's
    start at the latest) and lies behind the cursor, so one recovery resends each delivery once.
    """
    stmt = _failed_in_window(webhook_id, since, until)
    if after is not None:
        stmt = stmt.where(col(WebhookDelivery.id) > after)
    rows = (await session.execute(stmt.order_by(col(WebhookDelivery.id)).limit(limit))).scalars()
    return [ResendTarget(delivery_id=row.id, attempts=row.attempts) for row in rows]


async def resend_target(session: AsyncSession, tenant_id: str, delivery_id: str) -> tuple[ResendTarget, str]:
    """A settled delivery of the tenant to resend, and its webhook's id (404 unknown; 409 while its
    run still retries it)."""
    delivery = await session.get(WebhookDelivery, delivery_id)
    if delivery is None or delivery.tenant_id != tenant_id:
        raise NotFound("webhook delivery", delivery_id)
    if delivery.status == PENDING:
        raise Conflict(
            "this delivery is still being attempted; resend it once it has settled",
            code="DELIVERY_PENDING",
            details={"field": "status", "status": delivery.status},
        )
    return ResendTarget(delivery_id=delivery.id, attempts=delivery.attempts), delivery.webhook_id


async def reopen(session: AsyncSession, target: ResendTarget) -> int | None:
    """Reopen a settled delivery for its resend; the attempt number to make, or None when it is gone.

    A delivery still at the chosen count is set pending (if it is not already: a retried activity
    reopened it before); one past it had the resend's attempt recorded, which the attempt returns.
    """
    delivery = await session.get(WebhookDelivery, target.delivery_id, populate_existing=True)
    if delivery is None:
        return None
    if delivery.attempts == target.attempts and delivery.status != PENDING:
        await session.execute(
            update(WebhookDelivery)
            .where(
                col(WebhookDelivery.id) == target.delivery_id,
                col(WebhookDelivery.attempts) == target.attempts,
            )
            .values(status=PENDING, completed_at=None)
        )
    return target.attempts + 1
