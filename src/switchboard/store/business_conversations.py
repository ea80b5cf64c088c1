"""Counting a WABA's open business-initiated conversations from our own sends (no counter table).

A conversation counts while a template we sent in it in the last 24 h went
out with no customer-service window open, that is with no message from the
contact in the 24 h before it (domain/business_conversations.py). The count
is one query over ``messages``: the WABA's outbound rows of the last 24 h come
from the (tenant_id, phone_number_id, created_at) index, the window test of
each from the (conversation_id, occurred_at) index. Refused and failed sends
opened nothing upstream and do not count; queued ones do. The check takes the
WABA row's lock, so on PostgreSQL two sends that would open the limit's last
conversation cannot both pass.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, exists, func, literal_column
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased
from sqlmodel import col, select

from switchboard.domain.business_conversations import (
    BUSINESS_CONVERSATION_WINDOW,
    check_business_limit,
    may_open_business_conversation,
    opens_business_conversation,
    tier_limit,
)
from switchboard.domain.message_status import FAILED, FAILED_TRANSIENT, window_open
from switchboard.models.messaging import Conversation, Message
from switchboard.models.tenancy import PhoneNumber, Waba

_inbound = aliased(Message)


def _earlier(session: AsyncSession, column: Any, delta: timedelta) -> ColumnElement[Any]:
    """``column - delta`` in SQL; SQLite keeps datetimes as text, so shift it with strftime."""
    if session.get_bind().dialect.name == "sqlite":
        return func.strftime("%Y-%m-%d %H:%M:%f", column, f"-{int(delta.total_seconds())} seconds")
    return column - literal_column(f"interval '{int(delta.total_seconds())} seconds'")


def _counted_sends(session: AsyncSession, *, since: datetime) -> Any:
    """Outbound templates since ``since`` that went out with the contact's window closed."""
    window_was_open = exists().where(
        col(_inbound.conversation_id) == Message.conversation_id,
        col(_inbound.direction) == "inbound",
        col(_inbound.occurred_at) < Message.created_at,
        col(_inbound.occurred_at) >= _earlier(session, Message.created_at, BUSINESS_CONVERSATION_WINDOW),
    )
    return (
        Message.direction == "outbound",
        Message.message_type == "template",
        Message.created_at > since,
        col(Message.conversation_id).is_not(None),
        col(Message.status).not_in((FAILED, FAILED_TRANSIENT)),
        ~window_was_open,
    )


async def already_counted(session: AsyncSession, conversation_id: str, *, now: datetime) -> bool:
    """Whether this conversation is already open as business-initiated (reached in the last 24 h)."""
    since = now - BUSINESS_CONVERSATION_WINDOW
    stmt = select(Message.id).where(
        Message.conversation_id == conversation_id,
        Message.occurred_at > since,
        *_counted_sends(session, since=since),
    )
    return (await session.execute(stmt.limit(1))).first() is not None


async def open_count(
    session: AsyncSession, *, tenant_id: str, waba_id: str, now: datetime
) -> tuple[int, datetime | None]:
    """How many business-initiated conversations the WABA has open, and when the first stops counting."""
    since = now - BUSINESS_CONVERSATION_WINDOW
    phones = select(PhoneNumber.phone_number_id).where(PhoneNumber.waba_id == waba_id)
    per_conversation = (
        select(Message.conversation_id, func.max(Message.created_at).label("last_sent_at"))
        .where(
            Message.tenant_id == tenant_id,
            col(Message.phone_number_id).in_(phones),
            *_counted_sends(session, since=since),
        )
        .group_by(Message.conversation_id)
        .subquery()
    )
    count, oldest = (
        await session.execute(select(func.count(), func.min(per_conversation.c.last_sent_at)))
    ).one()
    return int(count), (oldest + BUSINESS_CONVERSATION_WINDOW if oldest is not None else None)


async def check_send(
    session: AsyncSession,
    *,
    phone: PhoneNumber,
    message_type: str,
    conversation: Conversation | None,
    now: datetime,
) -> None:
    """Refuse (429 BUSINESS_INITIATED_LIMIT_REACHED) a template that would open one conversation too many.

    ``conversation`` is the recipient's (None: a contact this number never talked to).
    """
    if not may_open_business_conversation(message_type):
        return
    is_open = conversation is not None and window_open(conversation.last_inbound_at, now=now)
    counted = conversation is not None and await already_counted(session, conversation.id, now=now)
    if not opens_business_conversation(message_type, window_open=is_open, already_counted=counted):
        return
    waba = (
        (await session.execute(select(Waba).where(Waba.waba_id == phone.waba_id).with_for_update()))
        .scalars()
        .one()
    )
    if tier_limit(waba.messaging_tier) is None:
        return
    count, frees_at = await open_count(session, tenant_id=phone.tenant_id, waba_id=waba.waba_id, now=now)
    check_business_limit(
        tier=waba.messaging_tier, open_count=count, frees_at=frees_at, now=now, waba_id=waba.waba_id
    )
