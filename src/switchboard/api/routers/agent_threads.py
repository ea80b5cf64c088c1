"""Agent threads: list (muted, binding, conversation), read, reactivate and reset their history."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from switchboard.activities.workflow_starts import dispatch_events
from switchboard.api.deps import Caller, Session, State
from switchboard.api.pagination import Paging, envelope
from switchboard.api.routing import JsonRoute
from switchboard.models.agent_runtime_api import ThreadAction, ThreadPublic
from switchboard.models.base import utcnow
from switchboard.store.agents.agent_events import record_agent_event
from switchboard.store.agents.guardrails import apply_mute_trigger
from switchboard.store.agents.threads import get_thread, list_threads

router = APIRouter(prefix="/v1", tags=["agent threads"], route_class=JsonRoute)


@router.get("/agent-threads")
async def list_agent_threads(
    who: Caller,
    session: Session,
    paging: Paging,
    muted: Annotated[bool | None, Query(description="true lists muted threads, false active ones")] = None,
    binding_id: str | None = Query(default=None),
    conversation_id: str | None = Query(default=None),
) -> dict[str, Any]:
    """List the tenant's threads, most recently active first (muted=true: the ones waiting for a person)."""
    rows, total = await list_threads(
        session,
        who.tenant_id,
        muted=muted,
        binding_id=binding_id,
        conversation_id=conversation_id,
        page=paging.page,
        per_page=paging.per_page,
    )
    return envelope([ThreadPublic.of(row) for row in rows], paging=paging, total=total)


@router.get("/agent-threads/{thread_id}")
async def get_agent_thread(thread_id: str, who: Caller, session: Session) -> ThreadPublic:
    """One thread with its history, mute state and cost."""
    return ThreadPublic.of(await get_thread(session, who.tenant_id, thread_id))


@router.post("/agent-threads/{thread_id}/reactivate")
async def reactivate_thread(
    thread_id: str, body: ThreadAction, who: Caller, session: Session, state: State
) -> ThreadPublic:
    """Unmute the thread (muted_at and muted_reason cleared together); a no-op without event when active."""
    thread = await get_thread(session, who.tenant_id, thread_id, lock=True)
    if who.is_sandbox:
        # Sandbox keys get the answer a live key would get; nothing changes.
        return ThreadPublic.of(thread).model_copy(
            update={"muted": False, "muted_at": None, "muted_reason": None}
        )
    event_ids = await apply_mute_trigger(
        session, thread, "reactivate", now=utcnow(), user_id=body.user_id or who.key_id, reason=body.reason
    )
    await session.commit()
    await dispatch_events(
        state.temporal,
        task_queue=state.settings.temporal_task_queue,
        event_ids=event_ids,
        sessions=state.sessions,
    )
    return ThreadPublic.of(thread)


@router.post("/agent-threads/{thread_id}/reset-messages")
async def reset_thread_messages(
    thread_id: str, body: ThreadAction, who: Caller, session: Session, state: State
) -> ThreadPublic:
    """Clear the thread's history (the mute state is left as it is)."""
    thread = await get_thread(session, who.tenant_id, thread_id, lock=True)
    if who.is_sandbox:
        return ThreadPublic.of(thread).model_copy(update={"messages": [], "message_count": 0})
    now = utcnow()
    properties = {
        "previous_message_count": len(thread.messages or []),
        "reset_by_user_id": body.user_id or who.key_id,
        "reason": body.reason,
    }
    thread.messages = []
    thread.wizard_state = None
    thread.updated_at = now
    event_id = await record_agent_event(session, thread, "thread.messages_reset", properties, at=now)
    await session.commit()
    await dispatch_events(
        state.temporal,
        task_queue=state.settings.temporal_task_queue,
        event_ids=[event_id],
        sessions=state.sessions,
    )
    return ThreadPublic.of(thread)
