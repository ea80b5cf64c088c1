"""Webhook health figures from recorded attempts (GET /v1/webhooks/health-by-phone, owner alerts).

Rates are per attempt: successes over attempts in the window (24 h, 7 d). One
grouped query over ``ix_webhook_attempts_webhook_time`` (webhook_id,
attempted_at, success) yields the window counts without touching the table
rows; the latest success and failure are one backward index probe each.

A phone's health combines the webhooks that cover it (filtered to that number
or unfiltered): counts are summed, and the status is the most severe of the
webhooks' own statuses (a manually disabled webhook only counts when nothing
else covers the phone).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Select, case, func, or_, update
from sqlalchemy import select as sql_select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col, select

from switchboard.domain.webhook_policy import HealthFigures, HealthStatus, WebhookPolicy, health_status
from switchboard.models.base import iso_millis
from switchboard.models.events import WebhookAttempt, WebhookEndpoint
from switchboard.store.scoping import owned
from switchboard.store.tables import table_of
from switchboard.store.webhooks.endpoints import check_phone

DAY = timedelta(hours=24)
WEEK = timedelta(days=7)
# Most severe first: a phone is as healthy as its least healthy webhook.
SEVERITY = [
    HealthStatus.FAILING,
    HealthStatus.AUTO_DISABLED,
    HealthStatus.DEGRADED,
    HealthStatus.HEALTHY,
    HealthStatus.NO_DELIVERIES,
    HealthStatus.DISABLED,
    HealthStatus.NOT_CONFIGURED,
]
_endpoints = table_of(WebhookEndpoint)


@dataclass
class AttemptStats:
    total_24h: int = 0
    ok_24h: int = 0
    total_7d: int = 0
    ok_7d: int = 0
    last_success_at: datetime | None = None
    last_failure_at: datetime | None = None

    @property
    def last_at(self) -> datetime | None:
        known = [t for t in (self.last_success_at, self.last_failure_at) if t is not None]
        return max(known) if known else None

    @property
    def rate_24h(self) -> float | None:
        return self.ok_24h / self.total_24h if self.total_24h else None

    @property
    def rate_7d(self) -> float | None:
        return self.ok_7d / self.total_7d if self.total_7d else None


async def attempt_stats(
    session: AsyncSession, webhook_ids: list[str], *, now: datetime, last_times: bool = True
) -> dict[str, AttemptStats]:
    """Window counts (and optionally the latest success and failure) per webhook."""
    stats = {webhook_id: AttemptStats() for webhook_id in webhook_ids}
    if not webhook_ids:
        return stats
    stmt = window_counts(webhook_ids, now=now)
    for webhook_id, total_24h, ok_24h, total_7d, ok_7d in await session.execute(stmt):
        stats[webhook_id] = AttemptStats(
            int(total_24h or 0), int(ok_24h or 0), int(total_7d or 0), int(ok_7d or 0)
        )
    if last_times:
        for webhook_id, entry in stats.items():
            entry.last_success_at = await _latest(session, webhook_id, success=True)
            entry.last_failure_at = await _latest(session, webhook_id, success=False)
    return stats


def window_counts(webhook_ids: list[str], *, now: datetime) -> Select[str, Any, Any, int, Any]:
    """Per webhook: attempts and successes over 24 h and over 7 d (an index-only range scan)."""
    a = WebhookAttempt
    recent = col(a.attempted_at) >= now - DAY
    # SQLAlchemy's own select: SQLModel's types at most four columns.
    return (
        sql_select(
            col(a.webhook_id),
            func.sum(case((recent, 1), else_=0)),
            func.sum(case((recent & col(a.success), 1), else_=0)),
            func.count(),
            func.sum(case((col(a.success), 1), else_=0)),
        )
        .where(col(a.webhook_id).in_(webhook_ids), col(a.attempted_at) >= now - WEEK)
        .group_by(a.webhook_id)
    )


async def _latest(session: AsyncSession, webhook_id: str, *, success: bool) -> datetime | None:
    a = WebhookAttempt
    stmt = (
        select(a.attempted_at)
        .where(a.webhook_id == webhook_id, a.success == success)
        .order_by(col(a.attempted_at).desc())
        .limit(1)
    )
    return (await session.execute(stmt)).scalar()


def webhook_status(webhook: WebhookEndpoint, stats: AttemptStats, *, policy: WebhookPolicy) -> HealthStatus:
    """One webhook's health status from its figures."""
    figures = HealthFigures(
        configured=True,
        enabled=webhook.enabled,
        auto_disabled_at=webhook.auto_disabled_at,
        deliveries_24h_total=stats.total_24h,
        success_rate_24h=stats.rate_24h,
        success_rate_7d=stats.rate_7d,
    )
    return health_status(figures, policy=policy)


async def claim_health_check(
    session: AsyncSession, webhook_id: str, *, at: datetime, interval: timedelta
) -> bool:
    """Whether this caller evaluates the webhook's health now (at most once per interval)."""
    stmt = (
        update(_endpoints)
        .where(
            _endpoints.c.id == webhook_id,
            or_(_endpoints.c.health_checked_at.is_(None), _endpoints.c.health_checked_at <= at - interval),
        )
        .values(health_checked_at=at)
        .returning(_endpoints.c.id)
    )
    return (await session.execute(stmt)).scalar() is not None


async def swap_health_state(
    session: AsyncSession, webhook_id: str, *, previous: str | None, current: str
) -> bool:
    """Compare-and-set the stored health state; True for the one caller that made the transition."""
    same = _endpoints.c.health_state.is_(None) if previous is None else _endpoints.c.health_state == previous
    stmt = (
        update(_endpoints)
        .where(_endpoints.c.id == webhook_id, same, _endpoints.c.auto_disabled_at.is_(None))
        .values(health_state=current)
        .returning(_endpoints.c.id)
    )
    return (await session.execute(stmt)).scalar() is not None


def _rate(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _iso(value: datetime | None) -> str | None:
    return None if value is None else iso_millis(value)


def _figures(stats: AttemptStats) -> dict[str, Any]:
    return {
        "successRate24h": _rate(stats.rate_24h),
        "successRate7d": _rate(stats.rate_7d),
        "deliveries24hTotal": stats.total_24h,
        "successes24h": stats.ok_24h,
        "failures24h": stats.total_24h - stats.ok_24h,
        "deliveries7dTotal": stats.total_7d,
        "lastDeliveryAt": _iso(stats.last_at),
        "lastSuccessAt": _iso(stats.last_success_at),
        "lastFailureAt": _iso(stats.last_failure_at),
    }


def _combined(stats: list[AttemptStats]) -> AttemptStats:
    def latest(values: list[datetime | None]) -> datetime | None:
        known = [v for v in values if v is not None]
        return max(known) if known else None

    return AttemptStats(
        total_24h=sum(s.total_24h for s in stats),
        ok_24h=sum(s.ok_24h for s in stats),
        total_7d=sum(s.total_7d for s in stats),
        ok_7d=sum(s.ok_7d for s in stats),
        last_success_at=latest([s.last_success_at for s in stats]),
        last_failure_at=latest([s.last_failure_at for s in stats]),
    )


async def phone_health(
    session: AsyncSession, tenant_id: str, phone_number_id: str, *, now: datetime, policy: WebhookPolicy
) -> dict[str, Any]:
    """The health of webhook delivery for one of the tenant's numbers, with a per-webhook breakdown."""
    await check_phone(session, tenant_id, phone_number_id)
    stmt = owned(WebhookEndpoint, tenant_id).where(
        or_(
            col(WebhookEndpoint.phone_number_id) == phone_number_id,
            col(WebhookEndpoint.phone_number_id).is_(None),
        )
    )
    webhooks = list((await session.execute(stmt.order_by(WebhookEndpoint.id))).scalars())
    stats = await attempt_stats(session, [w.id for w in webhooks], now=now)
    breakdown = []
    statuses = []
    for webhook in webhooks:
        status = webhook_status(webhook, stats[webhook.id], policy=policy)
        statuses.append(status)
        breakdown.append(
            {
                "webhookId": webhook.id,
                "url": webhook.url,
                "phoneNumberId": webhook.phone_number_id,
                "status": status.value,
                "enabled": webhook.enabled,
                "autoDisabledAt": _iso(webhook.auto_disabled_at),
                "autoDisabledReason": webhook.auto_disabled_reason,
                **_figures(stats[webhook.id]),
            }
        )
    status = min(statuses, key=SEVERITY.index) if statuses else HealthStatus.NOT_CONFIGURED
    return {
        "phoneNumberId": phone_number_id,
        "status": status.value,
        **_figures(_combined(list(stats.values()))),
        "webhooksTotal": len(webhooks),
        "webhooksActive": sum(1 for w in webhooks if w.enabled and w.auto_disabled_at is None),
        "thresholds": {"failingBelow": policy.failing_below, "healthyAbove": policy.healthy_above},
        "windowEnd": iso_millis(now),
        "webhooks": breakdown,
    }
