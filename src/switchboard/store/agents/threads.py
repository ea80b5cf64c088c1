"""Agent threads and their pending turns: what inbound processing writes and the thread workflow claims."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, or_, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col, select

from switchboard.domain.agents.binding_match import BindingCandidate, choose_binding
from switchboard.domain.errors import NotFound
from switchboard.models.agent_runtime import RUN_RUNNING, AgentRun, AgentThread, AgentTurn
from switchboard.models.agents import AgentBinding
from switchboard.models.base import new_id
from switchboard.models.messaging import Conversation, Message
from switchboard.store.agents.guardrails import hand_off_if_urgent
from switchboard.store.pagination import paginate
from switchboard.store.scoping import get_owned, owned

# Built once (every inbound user message runs it): constructing a statement costs more CPU than running it.
_ENABLED_BINDINGS = select(AgentBinding).where(
    col(AgentBinding.tenant_id) == bindparam("tenant_id"), col(AgentBinding.enabled).is_(True)
)


async def matching_binding(
    session: AsyncSession, *, tenant_id: str, phone_number_id: str, customer_id: str | None
) -> AgentBinding | None:
    """The enabled binding that answers this number's conversations (phone_number > customer > tenant)."""
    bindings = list((await session.execute(_ENABLED_BINDINGS, {"tenant_id": tenant_id})).scalars().all())
    candidates = [
        BindingCandidate(
            id=b.id,
            scope=b.scope,
            enabled=b.enabled,
            phone_number_id=b.phone_number_id,
            customer_id=b.customer_id,
            created_at=b.created_at,
        )
        for b in bindings
    ]
    chosen = choose_binding(candidates, phone_number_id=phone_number_id, customer_id=customer_id)
    if chosen is None:
        return None
    return next(b for b in bindings if b.id == chosen.id)


async def thread_for_conversation(
    session: AsyncSession, conversation: Conversation, *, now: datetime
) -> AgentThread:
    """The conversation's thread, created on its first turn (a racing creator fails on the unique key)."""
    stmt = select(AgentThread).where(AgentThread.conversation_id == conversation.id)
    thread = (await session.execute(stmt)).scalars().first()
    if thread is None:
        thread = AgentThread(
            tenant_id=conversation.tenant_id,
            conversation_id=conversation.id,
            phone_number_id=conversation.phone_number_id,
            contact_id=conversation.contact_id,
            created_at=now,
            updated_at=now,
        )
        session.add(thread)
        await session.flush()
    return thread


async def enqueue_turn(
    session: AsyncSession,
    *,
    conversation: Conversation,
    message: Message,
    customer_id: str | None,
    now: datetime,
    event_ids: list[str],
) -> AgentThread | None:
    """Record a pending turn for this inbound message if a binding answers the conversation.

    Urgency is checked on every such message, muted or not (CONTRACTS 7a): on a thread muted for
    another reason, where no run will look at it, a match turns the reason into handoff at once (on
    an active thread the run that answers it checks it, or ``claim_turns`` when that run never comes).
    """
    binding = await matching_binding(
        session,
        tenant_id=conversation.tenant_id,
        phone_number_id=conversation.phone_number_id,
        customer_id=customer_id,
    )
    if binding is None:
        return None
    thread = await thread_for_conversation(session, conversation, now=now)
    # updated_at moves when the run takes the message in (after its inactivity check).
    session.add(
        AgentTurn(message_id=message.id, tenant_id=thread.tenant_id, thread_id=thread.id, created_at=now)
    )
    if thread.muted_at is not None:
        event_ids.extend(await hand_off_if_urgent(session, thread, [message], now=now))
    await session.flush()
    return thread


async def mark_signalled(session: AsyncSession, message_ids: Sequence[str], *, at: datetime) -> None:
    """Note that the thread workflow has these turns (the sweeper leaves them alone)."""
    if message_ids:
        await session.execute(
            update(AgentTurn)
            .where(col(AgentTurn.message_id).in_(list(message_ids)), col(AgentTurn.signalled_at).is_(None))
            .values(signalled_at=at)
        )


async def stale_turn_count(session: AsyncSession, *, recorded_before: datetime) -> int:
    """Turns recorded before ``recorded_before`` that no thread workflow was ever told of: with the
    sweeper running, a few seconds' worth at most; more means workers cannot signal agent threads."""
    stmt = select(func.count()).where(
        col(AgentTurn.signalled_at).is_(None),
        col(AgentTurn.run_id).is_(None),
        col(AgentTurn.skipped_reason).is_(None),
        AgentTurn.created_at < recorded_before,
    )
    return int((await session.execute(stmt)).scalar_one())


async def unsignalled_turns(
    session: AsyncSession, *, older_than: datetime, signalled_before: datetime, limit: int
) -> list[AgentTurn]:
    """Turns no run has taken: never signalled (a crash between commit and signal) and older than
    ``older_than``, or signalled before ``signalled_before`` (their thread workflow was lost)."""
    stmt = (
        select(AgentTurn)
        .where(
            col(AgentTurn.run_id).is_(None),
            col(AgentTurn.skipped_reason).is_(None),
            AgentTurn.created_at < older_than,
            or_(col(AgentTurn.signalled_at).is_(None), col(AgentTurn.signalled_at) < signalled_before),
        )
        .order_by(col(AgentTurn.created_at))
        .limit(limit)
    )
    return list((await session.execute(stmt)).scalars().all())


async def claim_turns(
    session: AsyncSession,
    *,
    thread_id: str,
    message_ids: Sequence[str],
    now: datetime,
    workflow_id_prefix: str,
    event_ids: list[str],
) -> tuple[AgentRun | None, list[str], str | None]:
    """Give the still-unanswered turns to a new run; (run, message ids, why none) for the thread workflow.

    A muted thread starts no run: its turns are marked skipped, after their urgency check (they may
    have arrived while the thread was active, during the run that then muted it). Turns already
    answered (a duplicate signal after a crash) are left out. Events raised go to ``event_ids``.
    """
    thread = await session.get(AgentThread, thread_id, with_for_update=True)
    if thread is None:
        return None, [], "thread not found"
    stmt = select(AgentTurn).where(
        AgentTurn.thread_id == thread_id,
        col(AgentTurn.message_id).in_(list(message_ids)),
        col(AgentTurn.run_id).is_(None),
        col(AgentTurn.skipped_reason).is_(None),
    )
    turns = list((await session.execute(stmt)).scalars().all())
    if not turns:
        return None, [], "already answered"
    ordered = sorted(turns, key=lambda turn: (turn.created_at, turn.message_id))
    if thread.muted_at is not None:
        messages = await _messages(session, [turn.message_id for turn in ordered])
        event_ids.extend(await hand_off_if_urgent(session, thread, messages, now=now))
        for turn in ordered:
            turn.skipped_reason = f"muted:{thread.muted_reason}"
            turn.signalled_at = turn.signalled_at or now
        # updated_at moves with every message of the thread, answered or not (CONTRACTS 7a).
        thread.updated_at = max(thread.updated_at, ordered[-1].created_at)
        return None, [], f"thread muted ({thread.muted_reason})"
    run_id = new_id("run", at=now)
    run = AgentRun(
        id=run_id,
        tenant_id=thread.tenant_id,
        thread_id=thread.id,
        message_ids=[turn.message_id for turn in ordered],
        workflow_id=f"{workflow_id_prefix}{run_id}",
        created_at=now,
        status=RUN_RUNNING,
    )
    session.add(run)
    for turn in ordered:
        turn.run_id = run_id
        turn.signalled_at = turn.signalled_at or now
    await session.flush()
    return run, run.message_ids, None


async def _messages(session: AsyncSession, message_ids: list[str]) -> list[Message]:
    """The stored messages of these ids, in the order given."""
    stmt = select(Message).where(col(Message.id).in_(message_ids))
    found = {message.id: message for message in (await session.execute(stmt)).scalars().all()}
    return [found[message_id] for message_id in message_ids if message_id in found]


async def get_thread(
    session: AsyncSession, tenant_id: str, thread_id: str, *, lock: bool = False
) -> AgentThread:
    """The tenant's thread (404 otherwise); ``lock`` holds its row until the caller commits."""
    if not lock:
        return await get_owned(session, AgentThread, tenant_id, thread_id, resource="agent thread")
    stmt = owned(AgentThread, tenant_id).where(AgentThread.id == thread_id).with_for_update()
    thread = (await session.execute(stmt)).scalars().first()
    if thread is None:
        raise NotFound("agent thread", thread_id)
    return thread


async def list_threads(
    session: AsyncSession,
    tenant_id: str,
    *,
    muted: bool | None,
    binding_id: str | None,
    conversation_id: str | None,
    page: int,
    per_page: int,
) -> tuple[list[AgentThread], int]:
    """A page of the tenant's threads, most recently active first, and the total."""
    stmt = owned(AgentThread, tenant_id)
    if muted is True:
        stmt = stmt.where(col(AgentThread.muted_at).is_not(None))
    elif muted is False:
        stmt = stmt.where(col(AgentThread.muted_at).is_(None))
    if binding_id is not None:
        stmt = stmt.where(AgentThread.binding_id == binding_id)
    if conversation_id is not None:
        stmt = stmt.where(AgentThread.conversation_id == conversation_id)
    stmt = stmt.order_by(col(AgentThread.updated_at).desc(), col(AgentThread.id).desc())
    return await paginate(session, stmt, page=page, per_page=per_page)


def history_entries(thread: AgentThread) -> list[dict[str, Any]]:
    """The stored history (a copy, so callers can extend it and assign it back)."""
    return [dict(entry) for entry in (thread.messages or [])]
