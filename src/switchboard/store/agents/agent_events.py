"""Agent events: the audit row (GET /v1/agent-events) and its webhook envelope, in one transaction."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from switchboard.domain.events import agent_event
from switchboard.models.agent_runtime import AgentEvent, AgentThread
from switchboard.store.events import record_event
from switchboard.store.pagination import paginate
from switchboard.store.scoping import owned


async def record_agent_event(
    session: AsyncSession,
    thread: AgentThread,
    event_type: str,
    properties: dict[str, Any],
    *,
    at: datetime,
    run_id: str | None = None,
) -> str:
    """Store an AgentEvent (``thread.*``) and its ``agent.thread.*`` outbox event; the outbox event id."""
    event = AgentEvent(
        tenant_id=thread.tenant_id,
        thread_id=thread.id,
        run_id=run_id,
        type=event_type,
        properties=properties,
        created_at=at,
    )
    session.add(event)
    await session.flush()
    envelope = agent_event(
        f"agent.{event_type}",
        tenant_id=thread.tenant_id,
        phone_number_id=thread.phone_number_id,
        delivery_id="",
        occurred_at=at,
        agent_event_id=event.id,
        thread_id=thread.id,
        conversation_id=thread.conversation_id,
        run_id=run_id,
        properties=properties,
    )
    envelope.pop("delivery_id", None)  # the outbox keeps the envelope without it; each delivery adds its own
    outbox = await record_event(
        session,
        tenant_id=thread.tenant_id,
        kind=str(envelope["event"]),
        payload=envelope,
        occurred_at=at,
        phone_number_id=thread.phone_number_id,
    )
    return outbox.id


async def list_agent_events(
    session: AsyncSession,
    tenant_id: str,
    *,
    thread_id: str | None,
    event_type: str | None,
    page: int,
    per_page: int,
) -> tuple[list[AgentEvent], int]:
    """A page of the tenant's agent events, newest first, and the total."""
    stmt = owned(AgentEvent, tenant_id)
    if thread_id is not None:
        stmt = stmt.where(AgentEvent.thread_id == thread_id)
    if event_type is not None:
        stmt = stmt.where(AgentEvent.type == event_type.removeprefix("agent."))
    stmt = stmt.order_by(col(AgentEvent.created_at).desc(), col(AgentEvent.id).desc())
    return await paginate(session, stmt, page=page, per_page=per_page)
