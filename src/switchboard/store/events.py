"""The tenant event outbox: events are written in the transaction that raises them.

An event's row goes in as a Core INSERT of its values, not through the ORM's unit of work: every
inbound item, send outcome and agent event writes one, and the ORM's object and flush cost about
twice the statement (docs/decisions/0004-hot-statements-without-orm.md). The
``Event`` handed back is a detached copy of the row (``model_construct``) that no session tracks:
the callers only read it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, insert, update
from sqlalchemy import event as sa_event
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session
from sqlmodel import col, select

from switchboard.domain.events import WEBHOOK_TEST
from switchboard.models.events import Event
from switchboard.models.messaging import Conversation
from switchboard.store.webhooks.active import active_webhooks

# session.info keys: the events this session recorded, by id (for the dispatch planned before the
# commit, which would otherwise read them back), and the ones whose INSERT is still to be run.
_RECORDED = "switchboard.recorded_events"
_UNWRITTEN = "switchboard.unwritten_events"

# Built once: every event runs it.
_INSERT_EVENTS = insert(Event.__table__)  # type: ignore[attr-defined]
# The envelope field that numbers a conversation's events (docs/webhooks.md, "Order").
SEQUENCE_FIELD = "conversation_sequence"
_conversations = Conversation.__table__  # type: ignore[attr-defined]
# Takes ``count`` numbers from a conversation's counter; answers the last one taken.
_TAKE_SEQUENCES = (
    update(_conversations)
    .where(_conversations.c.id == bindparam("conversation_id"))
    .values(event_sequence=_conversations.c.event_sequence + bindparam("count"))
    .returning(_conversations.c.event_sequence)
)


async def record_event(
    session: AsyncSession,
    *,
    tenant_id: str,
    kind: str,
    payload: dict[str, Any],
    occurred_at: datetime,
    phone_number_id: str | None = None,
    flush: bool = True,
) -> Event:
    """Add an event (the envelope without delivery_id) to the outbox; the caller commits.

    After the commit the caller hands the ids to the dispatcher, which starts
    the deliveries; if the caller crashes first, the outbox sweeper does. An
    event that no enabled webhook of the tenant wants is stored already
    dispatched: events are not delivered to webhooks enabled later, so it
    would never have a delivery, and it costs no dispatch workflow.
    ``flush=False`` leaves the INSERT to the caller's next ``record_event``
    (which then inserts both rows in one statement), to ``write_recorded_events``
    or, at the latest, to the commit; until then a query does not see the row.
    """
    wanted = kind == WEBHOOK_TEST or await _wanted(session, tenant_id, kind, phone_number_id)
    # The model's own defaults fill in the id and created_at.
    event = Event.model_construct(
        tenant_id=tenant_id,
        kind=kind,
        phone_number_id=phone_number_id,
        payload=payload,
        occurred_at=occurred_at,
        dispatched_at=None if wanted else occurred_at,
    )
    session.info.setdefault(_UNWRITTEN, []).append(event)
    session.info.setdefault(_RECORDED, {})[event.id] = event
    if flush:
        await write_recorded_events(session)
    return event


async def write_recorded_events(session: AsyncSession) -> None:
    """Insert the events recorded with ``flush=False`` and not written yet, in one statement."""
    events = _take_unwritten(session.info)
    if events:
        for conversation_id, members in _by_conversation(events):
            last = (await session.execute(_TAKE_SEQUENCES, _take(conversation_id, members))).scalar()
            _number(members, last)
        await session.execute(_INSERT_EVENTS, [event.model_dump() for event in events])


def _take_unwritten(info: dict[str, Any]) -> list[Event]:
    """The waiting events, no longer waiting."""
    events: list[Event] = info.pop(_UNWRITTEN, None) or []
    return events


def conversation_of(payload: dict[str, Any]) -> str | None:
    """The conversation an event is about: the id of its conversation object (channel.message.* and
    conversation.created events).

    Agent thread events are numbered by their own ids instead: their transactions lock the thread
    before they could take the conversation's counter, and an inbound message takes the two the other
    way round, which on PostgreSQL could deadlock.
    """
    part = payload.get("conversation")
    if isinstance(part, dict) and isinstance(part.get("id"), str):
        return str(part["id"])
    return None


def _by_conversation(events: list[Event]) -> list[tuple[str, list[Event]]]:
    """The events about each conversation, in recording order; conversations in id order, so two
    transactions that number events of the same conversations lock their rows in one order."""
    groups: dict[str, list[Event]] = {}
    for event in events:
        conversation_id = conversation_of(event.payload)
        if conversation_id is not None:
            groups.setdefault(conversation_id, []).append(event)
    return sorted(groups.items())


def _take(conversation_id: str, members: list[Event]) -> dict[str, Any]:
    return {"conversation_id": conversation_id, "count": len(members)}


def _number(members: list[Event], last: int | None) -> None:
    """Give the events the numbers just taken (none when the conversation is gone)."""
    if last is None:
        return
    first = int(last) - len(members) + 1
    for offset, event in enumerate(members):
        event.payload[SEQUENCE_FIELD] = first + offset


@sa_event.listens_for(Session, "before_commit")
def _write_before_commit(session: Session) -> None:
    """A row recorded with ``flush=False`` and not written since goes in with the commit, never lost.

    The AsyncSession's commit runs the sync session's in a greenlet, so the statements run here.
    """
    events = _take_unwritten(session.info)
    if events:
        for conversation_id, members in _by_conversation(events):
            _number(members, session.execute(_TAKE_SEQUENCES, _take(conversation_id, members)).scalar())
        session.execute(_INSERT_EVENTS, [event.model_dump() for event in events])


@sa_event.listens_for(Session, "after_soft_rollback")
def _forget_on_rollback(session: Session, previous_transaction: Any) -> None:
    """A rolled-back transaction's events were never stored: neither written later nor planned.

    The service opens no savepoints; a savepoint's rollback leaves the lists as they are.
    """
    if previous_transaction.nested:
        return
    session.info.pop(_UNWRITTEN, None)
    session.info.pop(_RECORDED, None)


def recorded_here(session: AsyncSession, event_id: str) -> Event | None:
    """The event if this session recorded it (no read); None otherwise."""
    recorded: dict[str, Event] = session.info.get(_RECORDED, {})
    return recorded.get(event_id)


async def _wanted(session: AsyncSession, tenant_id: str, kind: str, phone_number_id: str | None) -> bool:
    return any(webhook.wants(kind, phone_number_id) for webhook in await active_webhooks(session, tenant_id))


async def awaiting_dispatch(session: AsyncSession, event_ids: list[str]) -> list[str]:
    """The ones of these events that still need their dispatch workflow."""
    if not event_ids:
        return []
    stmt = select(Event.id).where(col(Event.id).in_(event_ids), col(Event.dispatched_at).is_(None))
    pending = set((await session.execute(stmt)).scalars().all())
    return [event_id for event_id in event_ids if event_id in pending]
