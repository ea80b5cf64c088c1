"""Stored state that ``/metrics`` reports at scrape time: queued sends per number, webhooks by health."""

from __future__ import annotations

from sqlalchemy import case, func
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col, select

from switchboard.domain.message_status import QUEUED
from switchboard.models.events import WebhookEndpoint
from switchboard.models.messaging import Message


async def queued_sends_by_phone(session: AsyncSession) -> dict[str, int]:
    """Live sends waiting in each business number's queue (``ix_messages_phone_status`` answers it)."""
    stmt = (
        select(Message.phone_number_id, func.count())
        .where(col(Message.status) == QUEUED)
        .group_by(col(Message.phone_number_id))
    )
    return {phone: int(count) for phone, count in (await session.execute(stmt)).all()}


async def webhooks_by_state(session: AsyncSession) -> dict[str, int]:
    """Webhook endpoints by state: disabled, auto_disabled, or their health (healthy when never judged)."""
    state = case(
        (col(WebhookEndpoint.enabled).is_(False), "disabled"),
        (col(WebhookEndpoint.auto_disabled_at).is_not(None), "auto_disabled"),
        else_=func.coalesce(col(WebhookEndpoint.health_state), "healthy"),
    )
    stmt = select(state, func.count()).group_by(state)
    return {str(name): int(count) for name, count in (await session.execute(stmt)).all()}
