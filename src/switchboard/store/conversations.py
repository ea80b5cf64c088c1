"""Conversations: one business number talking with one contact, and the inbox's reads of them.

Outbound messages are filed under their conversation when they are created
(store/recipients.py). Rows stored before that rule (sends to a BSUID or to a
first contact) are filed here when their conversation is created or when its
contact's phone or BSUID becomes known, by any path: inbound, a shared phone,
a BSUID rotation or a send.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Select, bindparam, case, func, or_, select, update
from sqlalchemy.engine import CursorResult
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from switchboard.domain.errors import NotFound
from switchboard.domain.message_status import (
    CONVERSATION_ARCHIVED,
    conversation_status_after_inbound,
    latest_inbound_at,
)
from switchboard.domain.phone import phone_variants
from switchboard.models.base import utcnow
from switchboard.models.messaging import Contact, Conversation, Message
from switchboard.models.tenancy import PhoneNumber
from switchboard.store.scoping import owned
from switchboard.store.untracked import updated_copy

_conversations = Conversation.__table__  # type: ignore[attr-defined]
# A send's move of the last-message pointer, only forward; every SET reads the row as it was.
_SENT_IS_NEWEST = or_(
    _conversations.c.last_message_at.is_(None), _conversations.c.last_message_at <= bindparam("sent_at")
)
_NOTE_SENT = (
    update(_conversations)
    .where(_conversations.c.id == bindparam("of_id"))
    .values(
        last_message_id=case((_SENT_IS_NEWEST, bindparam("sent_id")), else_=_conversations.c.last_message_id),
        last_message_at=case((_SENT_IS_NEWEST, bindparam("sent_at")), else_=_conversations.c.last_message_at),
        updated_at=bindparam("now"),
    )
    .returning(_conversations.c.last_message_id, _conversations.c.last_message_at)
)
# Built once (every inbound message runs it): constructing a statement costs more CPU than running it.
_OF_CONTACT_LOCKED = (
    select(Conversation)
    .where(
        col(Conversation.phone_number_id) == bindparam("phone_number_id"),
        col(Conversation.contact_id) == bindparam("contact_id"),
    )
    .with_for_update()
)


# Built once (every new conversation runs it), like the lookup above. On the table, not the entity, so that
# store/inbound/first_message.py can send it as a CTE of its statement.
_messages = Message.__table__  # type: ignore[attr-defined]
FILE_UNFILED = (
    update(_messages)
    .where(
        _messages.c.contact_id.is_(None),
        _messages.c.conversation_id.is_(None),
        # An UPDATE's bound names may not be column names.
        _messages.c.tenant_id == bindparam("of_tenant_id"),
        _messages.c.phone_number_id == bindparam("of_phone_number_id"),
        _messages.c.direction == "outbound",
        or_(
            _messages.c.to_phone.in_(bindparam("phones", expanding=True)),
            _messages.c.recipient_bsuid == bindparam("bsuid"),
        ),
    )
    .values(conversation_id=bindparam("filed_conversation_id"), contact_id=bindparam("filed_contact_id"))
)


async def open_conversation(
    session: AsyncSession,
    *,
    tenant_id: str,
    customer_id: str,
    phone_number_id: str,
    contact: Contact,
    new_contact: bool = False,
    on_create: Callable[[Conversation], None] | None = None,
    written_by_caller: bool = False,
) -> tuple[Conversation, bool]:
    """The conversation of this number with this contact, locked, created if missing; True when created.

    A contact created in this transaction (``new_contact``) has no conversation yet: none is looked up.
    ``on_create`` sees a new conversation before its INSERT (a first message's pointers go in with it,
    not in an UPDATE after). With ``written_by_caller`` a new conversation is returned unsaved and its
    contact's unfiled sends are left unfiled: the caller writes both, with the conversation's first
    message (store/inbound/first_message.py).
    """
    conversation = None
    if not new_contact:
        params = {"phone_number_id": phone_number_id, "contact_id": contact.id}
        conversation = (await session.execute(_OF_CONTACT_LOCKED, params)).scalars().first()
    if conversation is not None:
        if _copy_contact(conversation, contact):
            await file_unfiled_messages(session, conversation)
        return conversation, False
    now = utcnow()
    conversation = Conversation(
        tenant_id=tenant_id,
        customer_id=customer_id,
        phone_number_id=phone_number_id,
        contact_id=contact.id,
        contact_phone=contact.phone,
        contact_bsuid=contact.bsuid,
        contact_username=contact.username,
        created_at=now,
        updated_at=now,
    )
    if on_create is not None:
        on_create(conversation)
    if written_by_caller:
        return conversation, True
    session.add(conversation)
    await session.flush()
    await file_unfiled_messages(session, conversation)
    return conversation, True


def _copy_contact(conversation: Conversation, contact: Contact) -> bool:
    """Copy what is newly known of the contact; True when its phone or BSUID changed."""
    identity_changed = False
    if contact.phone and not conversation.contact_phone:
        conversation.contact_phone = contact.phone
        identity_changed = True
    if contact.bsuid and conversation.contact_bsuid != contact.bsuid:
        conversation.contact_bsuid = contact.bsuid
        identity_changed = True
    if contact.username and conversation.contact_username != contact.username:
        conversation.contact_username = contact.username
    return identity_changed


async def file_unfiled_messages(session: AsyncSession, conversation: Conversation) -> int:
    """File this number's outbound rows addressed to the contact that have no conversation yet.

    Only rows stored before sends were filed at creation have none, and they
    are the only outbound rows without a contact, so the contact_id index
    finds them cheaply; returns how many were filed.
    """
    if not conversation.contact_phone and not conversation.contact_bsuid:
        return 0
    result = await session.execute(FILE_UNFILED, filing_params(conversation))
    return int(cast("CursorResult[Any]", result).rowcount or 0)


def filing_params(conversation: Conversation) -> dict[str, Any]:
    """``FILE_UNFILED``'s parameters for a conversation's contact (matching nothing when it has no identity)."""
    return {
        "of_tenant_id": conversation.tenant_id,
        "of_phone_number_id": conversation.phone_number_id,
        # An empty list matches nothing, and neither does a NULL BSUID.
        "phones": phone_variants(conversation.contact_phone) if conversation.contact_phone else [],
        "bsuid": conversation.contact_bsuid or None,
        "filed_conversation_id": conversation.id,
        "filed_contact_id": conversation.contact_id,
    }


async def _file_for_contact(session: AsyncSession, contact_id: str) -> None:
    stmt = select(Conversation).where(col(Conversation.contact_id) == contact_id)
    for conversation in (await session.execute(stmt.execution_options(populate_existing=True))).scalars():
        await file_unfiled_messages(session, conversation)


def _note_last_message(conversation: Conversation, message: Message) -> None:
    # Never backwards: a send recorded hours after it was queued (the upstream was down) is older
    # than a message that arrived meanwhile, and a late history row older than what is shown.
    last = conversation.last_message_at
    if last is None or message.occurred_at >= last:
        conversation.last_message_at = message.occurred_at
        conversation.last_message_id = message.id


def note_inbound_message(conversation: Conversation, message: Message, *, unread: bool = True) -> None:
    """A user message: reopen, move the 24 h window anchor forward, count it unread (``unread``:
    not a reaction, which answers what is already there and asks nobody to read anything)."""
    conversation.status = conversation_status_after_inbound(conversation.status)
    conversation.last_inbound_at = latest_inbound_at(conversation.last_inbound_at, message.occurred_at)
    if unread:
        conversation.unread_count = (conversation.unread_count or 0) + 1
    _note_last_message(conversation, message)
    conversation.updated_at = utcnow()


def note_other_message(conversation: Conversation, message: Message) -> None:
    """An echo or a history row: only the last-message pointer moves (no reopen, no window, not unread)."""
    _note_last_message(conversation, message)
    conversation.updated_at = utcnow()


async def note_sent_message(
    session: AsyncSession, conversation: Conversation, message: Message, *, now: datetime
) -> Conversation:
    """A send the upstream accepted: only the last-message pointer moves, and only forward.

    One UPDATE that moves the pointer only if the send is not older than the stored last message, so a
    message filed meanwhile by another writer is never moved back. ``conversation`` is an untracked
    copy (``messages.send_with_context``); the conversation as the send leaves it comes back, its
    pointer as the row holds it (RETURNING), for the event's facts.
    """
    stored = (
        await session.execute(
            _NOTE_SENT,
            {"of_id": conversation.id, "sent_id": message.id, "sent_at": message.occurred_at, "now": now},
        )
    ).one()
    return updated_copy(conversation, {**stored._mapping, "updated_at": now})


async def backfill_contact_phone(session: AsyncSession, *, contact_id: str, phone: str) -> None:
    """Set contact_phone on the contact's conversations that have none."""
    await session.execute(
        update(Conversation)
        .where(col(Conversation.contact_id) == contact_id, col(Conversation.contact_phone).is_(None))
        .values(contact_phone=phone, updated_at=utcnow())
    )
    await _file_for_contact(session, contact_id)


async def replace_contact_fields(session: AsyncSession, *, contact_id: str, **values: Any) -> None:
    """Copy changed contact identity fields (phone, bsuid) onto all of the contact's conversations."""
    await session.execute(
        update(Conversation)
        .where(col(Conversation.contact_id) == contact_id)
        .values(**values, updated_at=utcnow())
    )
    if {"contact_phone", "contact_bsuid"} & values.keys():
        await _file_for_contact(session, contact_id)


def inbox_conversations(
    tenant_id: str, *, status: str | None = None, phone_number_id: str | None = None
) -> Select[Any]:
    """The tenant's conversations on numbers visible in the inbox, most recent first."""
    visible = select(col(PhoneNumber.phone_number_id)).where(
        col(PhoneNumber.tenant_id) == tenant_id,
        col(PhoneNumber.hidden_from_inbox).is_(False),
    )
    stmt = owned(Conversation, tenant_id).where(
        Conversation.phone_number_id.in_(visible),  # type: ignore[attr-defined]
    )
    if status is not None:
        stmt = stmt.where(Conversation.status == status)
    if phone_number_id is not None:
        stmt = stmt.where(Conversation.phone_number_id == phone_number_id)
    last = func.coalesce(Conversation.last_message_at, Conversation.created_at)
    return stmt.order_by(last.desc(), Conversation.id.desc())  # type: ignore[attr-defined]


async def messages_by_id(session: AsyncSession, ids: list[str]) -> dict[str, Message]:
    """Messages keyed by id (for the last-message previews of a page)."""
    if not ids:
        return {}
    rows = (await session.execute(select(Message).where(Message.id.in_(ids)))).scalars().all()  # type: ignore[attr-defined]
    return {row.id: row for row in rows}


async def visible_conversation(
    session: AsyncSession, tenant_id: str, conversation_id: str, *, lock: bool = False
) -> Conversation:
    """The tenant's conversation on a number visible in the inbox, else 404."""
    stmt = inbox_conversations(tenant_id).where(col(Conversation.id) == conversation_id)
    if lock:
        stmt = stmt.with_for_update()
    conversation = (await session.execute(stmt)).scalars().first()
    if conversation is None:
        # Same 404 whether it is another tenant's, unknown, or on a hidden number.
        raise NotFound("conversation", conversation_id)
    return conversation


def conversation_messages(conversation_id: str) -> Select[Any]:
    """A conversation's messages, newest first."""
    return (
        select(Message)
        .where(col(Message.conversation_id) == conversation_id)
        .order_by(Message.occurred_at.desc(), Message.id.desc())  # type: ignore[attr-defined]
    )


async def archive_conversation(
    session: AsyncSession, conversation: Conversation, *, at: datetime
) -> Conversation:
    """Mark as resolved: archived, nothing left unread; a new inbound message reopens it."""
    if conversation.status != CONVERSATION_ARCHIVED or conversation.unread_count:
        conversation.status = CONVERSATION_ARCHIVED
        conversation.unread_count = 0
        conversation.updated_at = at
        session.add(conversation)
        await session.flush()
    return conversation
