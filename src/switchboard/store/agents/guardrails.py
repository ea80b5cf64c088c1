"""Guardrail state in the database: mute transitions with their events, and the human-intervention scan.

Every mute change goes through ``domain.agents.mute.apply_trigger`` and is
written with its AgentEvents (and their ``agent.thread.*`` webhook events) in
the caller's transaction, so the state and its audit trail never disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col, select

from switchboard.domain.agents.history import inactive_days, inactivity_reset_due, threshold
from switchboard.domain.agents.mute import (
    AUTO_UNMUTE_REASONS,
    HUMAN_WINDOW,
    MuteState,
    apply_trigger,
    unmute_due_at,
    unread_urgency,
    urgency_details,
)
from switchboard.domain.agents.turns import user_text
from switchboard.domain.message_status import DELIVERED, HISTORICAL, READ, SENT
from switchboard.models.agent_runtime import AgentThread
from switchboard.models.agents import AgentBinding
from switchboard.models.messaging import Message
from switchboard.models.tenancy import Tenant
from switchboard.models.urgency_model import load_urgency_model
from switchboard.store.agents.agent_events import record_agent_event

HUMAN_SOURCES = ("HUMAN_COEXISTENCE", "HUMAN_PORTAL", "HUMAN_EMBED_ANONYMOUS")
# Outbound statuses that mean the upstream accepted the message (history imports are "historical").
ACCEPTED_STATUSES = (SENT, DELIVERED, READ, HISTORICAL)


async def tenant_timezone(session: AsyncSession, tenant_id: str) -> str:
    """The tenant's IANA time zone (its cost day and month)."""
    tenant = await session.get(Tenant, tenant_id)
    return tenant.timezone if tenant is not None and tenant.timezone else "UTC"


async def apply_mute_trigger(
    session: AsyncSession,
    thread: AgentThread,
    trigger: str,
    *,
    now: datetime,
    run_id: str | None = None,
    user_id: str | None = None,
    reason: str | None = None,
    timer_due_at: datetime | None = None,
    details: dict[str, Any] | None = None,
) -> list[str]:
    """Apply one trigger of the mute table to the thread; the outbox event ids to dispatch after commit.

    ``details`` go into the ``thread.muted`` event's properties when the trigger raises one.
    """
    tz = await tenant_timezone(session, thread.tenant_id)
    transition = apply_trigger(
        MuteState(muted_at=thread.muted_at, muted_reason=thread.muted_reason),
        trigger,
        now=now,
        run_id=run_id,
        user_id=user_id,
        reason=reason,
        timer_due_at=timer_due_at,
        tz=tz,
        details=details,
    )
    thread.muted_at = transition.state.muted_at
    thread.muted_reason = transition.state.muted_reason
    if trigger == "reactivate" and transition.events:
        thread.reactivated_at = now
        # The per-thread cap counts spend since the last reactivation.
        thread.cost_e10 = 0
    event_ids = []
    for event in transition.events:
        properties: dict[str, Any] = dict(event.properties)
        event_ids.append(
            await record_agent_event(session, thread, event.type, properties, at=now, run_id=run_id)
        )
    return event_ids


async def hand_off_if_urgent(
    session: AsyncSession, thread: AgentThread, messages: Sequence[Message], *, now: datetime
) -> list[str]:
    """Check messages no run will read (the thread is muted) for urgency: a match turns the mute into
    handoff, its ``thread.muted`` event saying what matched; the outbox event ids (none: no change)."""
    texts = [user_text(m.message_type, content=m.content, payload=m.payload or {}) for m in messages]
    state = MuteState(muted_at=thread.muted_at, muted_reason=thread.muted_reason)
    verdict = unread_urgency(state, texts, load_urgency_model())
    if verdict is None:
        return []
    details = urgency_details(verdict, [m.id for m in messages])
    return await apply_mute_trigger(session, thread, "urgency", now=now, details=details)


async def thread_of_conversation(session: AsyncSession, conversation_id: str) -> AgentThread | None:
    """The conversation's thread, locked for the caller's transaction, if it has one."""
    stmt = select(AgentThread).where(AgentThread.conversation_id == conversation_id).with_for_update()
    return (await session.execute(stmt)).scalars().first()


async def note_human_message(
    session: AsyncSession, *, conversation_id: str | None, sent_at: datetime, now: datetime
) -> tuple[AgentThread | None, list[str]]:
    """A human-source message the upstream accepted: mute the thread as human_detected (or restart the 24 h).

    Messages older than the 24 h window (a late history import) change nothing.
    """
    if conversation_id is None or now - sent_at > HUMAN_WINDOW:
        return None, []
    thread = await thread_of_conversation(session, conversation_id)
    if thread is None:
        return None, []
    if thread.reactivated_at is not None and sent_at < thread.reactivated_at:
        return thread, []
    return thread, await apply_mute_trigger(session, thread, "human_message", now=now)


async def last_human_message_at(
    session: AsyncSession, thread: AgentThread, *, now: datetime
) -> datetime | None:
    """When the latest accepted human-source message of the thread's conversation in the last 24 h was sent.

    Messages from before the thread's last reactivation do not count: a person who reactivated the
    agent has handed the conversation back.
    """
    since = now - HUMAN_WINDOW
    if thread.reactivated_at is not None and thread.reactivated_at > since:
        since = thread.reactivated_at
    stmt = select(func.max(Message.occurred_at)).where(
        Message.conversation_id == thread.conversation_id,
        Message.direction == "outbound",
        col(Message.source).in_(HUMAN_SOURCES),
        col(Message.status).in_(ACCEPTED_STATUSES),
        Message.occurred_at >= since,
    )
    return (await session.execute(stmt)).scalar_one_or_none()


async def thread_dues(
    session: AsyncSession, thread: AgentThread, *, default_days: int
) -> tuple[datetime | None, datetime | None, int, str]:
    """The thread's automatic unmute and inactivity reset due times, and the reset's threshold and its source."""
    tz = await tenant_timezone(session, thread.tenant_id)
    unmute = unmute_due_at(MuteState(muted_at=thread.muted_at, muted_reason=thread.muted_reason), tz=tz)
    binding = await session.get(AgentBinding, thread.binding_id) if thread.binding_id else None
    days, source = threshold(binding.params if binding else {}, default_days=default_days)
    reset = inactivity_reset_due(thread.updated_at, threshold_days=days) if thread.messages else None
    return unmute, reset, days, source


async def reset_if_inactive(
    session: AsyncSession, thread: AgentThread, *, now: datetime, default_days: int
) -> list[str]:
    """Clear the history when the thread was inactive past its threshold (timer or turn start); event ids."""
    _unmute, reset, days, source = await thread_dues(session, thread, default_days=default_days)
    if reset is None or reset > now:
        return []
    properties = {
        "previous_message_count": len(thread.messages or []),
        "inactive_days": inactive_days(thread.updated_at, now),
        "threshold_days": days,
        "threshold_source": source,
    }
    thread.messages = []
    thread.wizard_state = None
    return [await record_agent_event(session, thread, "thread.messages_inactivity_reset", properties, at=now)]


async def overdue_auto_mutes(
    session: AsyncSession, *, muted_before: datetime, limit: int
) -> list[AgentThread]:
    """Threads muted for a reason that unmutes by itself, muted before ``muted_before``: if one is still
    muted, its timer workflow was never woken (Temporal was unreachable when it muted)."""
    stmt = (
        select(AgentThread)
        .where(
            col(AgentThread.muted_reason).in_(AUTO_UNMUTE_REASONS),
            col(AgentThread.muted_at) < muted_before,
        )
        .order_by(col(AgentThread.muted_at))
        .limit(limit)
    )
    return list((await session.execute(stmt)).scalars().all())
