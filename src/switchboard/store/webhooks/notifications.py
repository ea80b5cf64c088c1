"""Owner notifications: written once per transition, then claimed by whoever mails them.

The ``transition_key`` is unique, so two processes (or a retried activity)
that notice the same transition store one row; a row is mailed only by the
sender that claims it (``pending`` -> ``sending``).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import or_, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col, select

from switchboard.domain.webhook_policy import (
    NOTIFICATION_SEVERITY,
    NOTIFY_DEGRADED,
    NOTIFY_DISABLED_AUTO,
    NOTIFY_FAILING,
    NOTIFY_REACTIVATED,
)
from switchboard.models.base import iso_millis, new_id
from switchboard.models.events import OwnerNotification, WebhookEndpoint
from switchboard.models.tenancy import Tenant
from switchboard.store.tables import table_of
from switchboard.store.webhooks.common import dialect_insert

PENDING = "pending"
SENDING = "sending"
# A claim older than this belongs to a sender that crashed; it may be taken over.
STALE_CLAIM = timedelta(minutes=10)

_table = table_of(OwnerNotification)

_SUBJECTS = {
    NOTIFY_DISABLED_AUTO: "[critical] Webhook auto-disabled: {url}",
    NOTIFY_DEGRADED: "[warning] Webhook degraded: {url}",
    NOTIFY_FAILING: "[critical] Webhook failing: {url}",
    NOTIFY_REACTIVATED: "[info] Webhook reactivated: {url}",
}
_LEADS = {
    NOTIFY_DISABLED_AUTO: (
        "Deliveries to this webhook kept failing, so it was disabled automatically. Events raised while "
        "it is disabled are not delivered later. To recover: fix the endpoint, POST "
        "/v1/webhooks/{id}/reactivate, then POST /v1/webhooks/{id}/recover with since set to when it "
        "started failing (see Detail) to resend the deliveries that failed meanwhile; "
        "GET /v1/webhooks/{id}/deliveries?status=failed lists them."
    ),
    NOTIFY_DEGRADED: (
        "Only 10 to 50 percent of the deliveries to this webhook succeeded over the last 24 hours. Failed "
        "deliveries are retried on the documented schedule; check the endpoint's logs."
    ),
    NOTIFY_FAILING: (
        "Fewer than 10 percent of the deliveries to this webhook succeeded over the last 24 hours, so "
        "almost no events reach it. Failed deliveries are retried on the documented schedule; if it keeps "
        "failing it will be disabled automatically. Check the endpoint now."
    ),
    NOTIFY_REACTIVATED: "This webhook was reactivated and receives new events again.",
}


def compose(kind: str, webhook: WebhookEndpoint, *, at: datetime, detail: str | None) -> tuple[str, str]:
    """Subject and plain-text body of a notification about one webhook."""
    subject = _SUBJECTS[kind].format(url=webhook.url)
    lines = [
        _LEADS[kind].replace("{id}", webhook.id),
        "",
        f"Webhook: {webhook.id}",
        f"URL: {webhook.url}",
        f"Severity: {NOTIFICATION_SEVERITY[kind]}",
        f"When: {iso_millis(at)}",
    ]
    if detail:
        lines.append(f"Detail: {detail}")
    return subject, "\n".join(lines) + "\n"


async def record_notification(
    session: AsyncSession,
    webhook: WebhookEndpoint,
    *,
    kind: str,
    transition_key: str,
    at: datetime,
    detail: str | None = None,
) -> str | None:
    """Store a notification for the tenant's owner; None when this transition was already notified."""
    recipient = (
        await session.execute(select(Tenant.notification_email).where(Tenant.id == webhook.tenant_id))
    ).scalar()
    subject, body = compose(kind, webhook, at=at, detail=detail)
    stmt = (
        dialect_insert(session, _table)
        .values(
            id=new_id("ntf", at=at),
            tenant_id=webhook.tenant_id,
            kind=kind,
            severity=NOTIFICATION_SEVERITY[kind],
            transition_key=transition_key,
            webhook_id=webhook.id,
            recipient=recipient,
            subject=subject,
            body=body,
            delivery=PENDING,
            created_at=at,
        )
        .on_conflict_do_nothing(index_elements=[_table.c.transition_key])
        .returning(_table.c.id)
    )
    return (await session.execute(stmt)).scalar()


async def last_warned_at(session: AsyncSession, webhook_id: str, *, since: datetime) -> datetime | None:
    """The latest degraded or failing notice of this webhook's owner at or after ``since``."""
    stmt = (
        select(OwnerNotification.created_at)
        .where(
            OwnerNotification.webhook_id == webhook_id,
            col(OwnerNotification.kind).in_([NOTIFY_DEGRADED, NOTIFY_FAILING]),
            col(OwnerNotification.created_at) >= since,
        )
        .order_by(col(OwnerNotification.created_at).desc())
        .limit(1)
    )
    return (await session.execute(stmt)).scalar()


async def last_notified_at(session: AsyncSession, webhook_id: str, kind: str) -> datetime | None:
    """When this webhook's owner was last sent a notification of this kind."""
    stmt = (
        select(OwnerNotification.created_at)
        .where(OwnerNotification.webhook_id == webhook_id, OwnerNotification.kind == kind)
        .order_by(col(OwnerNotification.created_at).desc())
        .limit(1)
    )
    return (await session.execute(stmt)).scalar()


async def claim(session: AsyncSession, notification_id: str, *, now: datetime) -> OwnerNotification | None:
    """Take a pending (or stale) notification for sending; None when someone else has it or it is done."""
    stmt = (
        update(_table)
        .where(
            _table.c.id == notification_id,
            or_(
                _table.c.delivery == PENDING,
                (_table.c.delivery == SENDING) & (_table.c.sent_at < now - STALE_CLAIM),
            ),
        )
        .values(delivery=SENDING, sent_at=now)
        .returning(_table.c.id)
    )
    if (await session.execute(stmt)).scalar() is None:
        return None
    return await session.get(OwnerNotification, notification_id, populate_existing=True)


async def settle(
    session: AsyncSession, notification_id: str, *, delivery: str, sent_at: datetime | None
) -> None:
    """Record how a claimed notification ended (mailed, stored, no_recipient) or release it (pending)."""
    await session.execute(
        update(_table).where(_table.c.id == notification_id).values(delivery=delivery, sent_at=sent_at)
    )


async def unsent(session: AsyncSession, *, now: datetime, min_age: timedelta, limit: int) -> list[str]:
    """Notifications nobody has mailed yet, or whose sender crashed (the outbox sweeper retries them)."""
    stmt = (
        select(OwnerNotification.id)
        .where(
            or_(
                (_table.c.delivery == PENDING) & (_table.c.created_at < now - min_age),
                (_table.c.delivery == SENDING) & (_table.c.sent_at < now - STALE_CLAIM),
            )
        )
        .order_by(col(OwnerNotification.created_at))
        .limit(limit)
    )
    return list((await session.execute(stmt)).scalars().all())
