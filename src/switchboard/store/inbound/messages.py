"""Message items: user messages, business-app echoes and history rows, each stored once per wamid by one writer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col, select

from switchboard.domain.agents.turns import starts_turn
from switchboard.domain.events import (
    MESSAGE_ECHOED,
    MESSAGE_RECEIVED,
    conversation_created_event,
)
from switchboard.domain.inbound import (
    SOURCE_HUMAN_COEXISTENCE,
    EchoMessage,
    HistoryError,
    HistoryMessage,
    InboundMessage,
)
from switchboard.domain.inbound.unread import counts_unread
from switchboard.models.base import utcnow
from switchboard.models.messaging import Contact, Conversation, Message
from switchboard.store.agents.guardrails import note_human_message
from switchboard.store.agents.threads import enqueue_turn
from switchboard.store.contacts import ContactFacts, group_contact, upsert_contact
from switchboard.store.conversations import note_inbound_message, note_other_message, open_conversation
from switchboard.store.inbound.business import Business
from switchboard.store.inbound.events import (
    NO_DELIVERY,
    conversation_facts,
    emit,
    emit_message_event,
    message_facts,
)
from switchboard.store.inbound.first_message import write_first_message, writes_together
from switchboard.store.inbound.outcome import APPLIED, DUPLICATE, ItemOutcome

# Message.source of rows the user sent (the spec's list names only the business-side senders).
SOURCE_CHANNEL = "CHANNEL"


# Built once (every message item runs it): constructing a statement costs more CPU than running it.
_STORED = select(Message).where(
    col(Message.phone_number_id) == bindparam("phone_number_id"),
    col(Message.wa_message_id) == bindparam("wa_message_id"),
    col(Message.direction) == bindparam("direction"),
)
_STORED_LOCKED = _STORED.with_for_update()


async def stored_message(
    session: AsyncSession, *, phone_number_id: str, wa_message_id: str, direction: str, lock: bool = False
) -> Message | None:
    """The stored row of a channel message, if any."""
    params = {"phone_number_id": phone_number_id, "wa_message_id": wa_message_id, "direction": direction}
    return (await session.execute(_STORED_LOCKED if lock else _STORED, params)).scalars().first()


def _compact(data: dict[str, Any]) -> dict[str, Any]:
    """Without unknown values and false flags; a 0 is a value (history phase 0 is the first day)."""
    return {
        key: value for key, value in data.items() if value is not None and value is not False and value != ""
    }


def _payload(item: InboundMessage | EchoMessage | HistoryMessage, **extra: Any) -> dict[str, Any]:
    """The channel's message object as stored: the type object under its name, context, media, extras."""
    data: dict[str, Any] = {"type": item.message_type}
    if item.type_object is not None:
        data[item.message_type] = item.type_object
    context = _compact(
        {
            "id": item.reply_to_wa_message_id,
            "from": item.reply_to_from,
            "forwarded": item.forwarded,
            "frequently_forwarded": item.frequently_forwarded,
            "referred_product": item.referred_product,
        }
    )
    if context:
        data["context"] = context
    data.update(_compact({"media_id": item.media_id, "media_mime_type": item.media_mime_type, **extra}))
    return data


async def _conversation(
    session: AsyncSession,
    biz: Business,
    facts: ContactFacts,
    *,
    group_id: str | None,
    on_create: Callable[[Conversation], None],
    written_by_caller: bool,
) -> tuple[Contact | None, Conversation | None, bool]:
    """The message's contact and conversation: the sender's, or for a group post the group's."""
    if group_id is None and not facts.identifiable:
        return None, None, False
    customer_id = await biz.customer_for_contacts(session)
    if group_id is not None:
        contact, new_contact = await group_contact(
            session, tenant_id=biz.tenant_id, customer_id=customer_id, group_id=group_id
        )
        on_create = _as_group(on_create, group_id)
    else:
        contact, new_contact = await upsert_contact(
            session, tenant_id=biz.tenant_id, customer_id=customer_id, facts=facts
        )
    conversation, created = await open_conversation(
        session,
        tenant_id=biz.tenant_id,
        customer_id=customer_id,
        phone_number_id=biz.phone_number_id,
        contact=contact,
        new_contact=new_contact,
        on_create=on_create,
        written_by_caller=written_by_caller,
    )
    return contact, conversation, created


def _as_group(on_create: Callable[[Conversation], None], group_id: str) -> Callable[[Conversation], None]:
    """``on_create`` for a group's new conversation, marked as the group's before it is written."""

    def created(conversation: Conversation) -> None:
        conversation.group_id = group_id
        on_create(conversation)

    return created


def _note(conversation: Conversation, message: Message, *, from_user: bool) -> None:
    """Move the conversation's pointers for a message: a user's reopens it and moves its window."""
    if from_user:
        note_inbound_message(conversation, message, unread=counts_unread(message.message_type))
    else:
        note_other_message(conversation, message)


async def _created_event(
    session: AsyncSession, biz: Business, conversation: Conversation, contact: Contact | None, *, flush: bool
) -> str:
    envelope = conversation_created_event(
        conversation_facts(conversation, contact),
        tenant_id=biz.tenant_id,
        phone_number_id=biz.phone_number_id,
        delivery_id=NO_DELIVERY,
        occurred_at=conversation.created_at,
    )
    return await emit(
        session,
        envelope,
        tenant_id=biz.tenant_id,
        occurred_at=conversation.created_at,
        phone_number_id=biz.phone_number_id,
        flush=flush,
    )


@dataclass(frozen=True)
class _Row:
    """How one message item is stored: its row's own columns, its contact, what storing it raises."""

    contact: ContactFacts
    # Message columns beyond those every item shares (see ``apply_message_item``).
    columns: dict[str, Any]
    # The channel.message.* event it raises (history rows raise none) and that event's extra facts.
    event: str | None = None
    event_facts: dict[str, Any] = field(default_factory=dict)
    # The user wrote: it moves the conversation's inbound pointer and may start an agent turn.
    from_user: bool = False
    # A person wrote from the business side (app echo, outbound history row): the agent steps back.
    from_business_person: bool = False
    # A post in a WhatsApp group: filed in the group's conversation, never answered by an agent.
    group_id: str | None = None


def _user_message_row(item: InboundMessage, biz: Business) -> _Row:
    """A user message to the business number: status received, raises channel.message.received."""
    return _Row(
        contact=ContactFacts(
            phone=item.from_phone,
            wa_id=item.from_wa_id,
            bsuid=item.bsuid,
            parent_bsuid=item.parent_bsuid,
            username=item.username,
            name=item.profile_name,
        ),
        columns={
            "from_phone": item.from_phone,
            "to_phone": biz.display_phone,
            "source": SOURCE_CHANNEL,
            "payload": _payload(
                item,
                from_user_id=item.from_user_id,
                from_parent_user_id=item.from_parent_user_id,
                reply_id=item.reply_id,
                referral=item.referral,
                errors=item.errors,
                group_id=item.group_id,
                profile_name=item.profile_name,
                username=item.username,
            ),
            "content": item.content,
            "has_media": item.has_media,
            "error_code": str(item.error_code) if item.error_code is not None else None,
            "error_title": item.error_title,
            "error_message": item.error_message,
        },
        event=MESSAGE_RECEIVED,
        event_facts={"from_user_id": item.from_user_id, "from_parent_user_id": item.from_parent_user_id},
        from_user=True,
        group_id=item.group_id,
    )


def _echo_row(item: EchoMessage, biz: Business) -> _Row:
    """A business-app send: outbound HUMAN_COEXISTENCE, raises channel.message.echoed."""
    return _Row(
        contact=ContactFacts(
            phone=item.to_phone,
            wa_id=item.to_wa_id,
            bsuid=item.to_user_id,
            parent_bsuid=item.to_parent_user_id,
        ),
        columns={
            "from_phone": item.from_phone or biz.display_phone,
            "to_phone": item.to_phone,
            "recipient_bsuid": item.to_user_id,
            "source": item.source,
            "coexistence_echo": item.coexistence_echo,
            "payload": _payload(item, to_user_id=item.to_user_id, to_parent_user_id=item.to_parent_user_id),
            "content": item.content,
            "has_media": item.has_media,
            "status_updated_at": utcnow(),
        },
        event=MESSAGE_ECHOED,
        event_facts={"to_user_id": item.to_user_id, "to_parent_user_id": item.to_parent_user_id},
        from_business_person=True,
    )


def _history_row(item: HistoryMessage | HistoryError, biz: Business) -> _Row:
    """A history-sync row (status historical, no event); an unrecoverable one as message_type errors."""
    outbound = item.direction == "outbound"
    business, contact_phone = biz.display_phone, item.contact_phone
    history = _compact({"phase": item.phase, "chunk_order": item.chunk_order, "progress": item.progress})
    columns: dict[str, Any] = {
        "source": SOURCE_HUMAN_COEXISTENCE if outbound else SOURCE_CHANNEL,
        "coexistence_echo": outbound,
    }
    if isinstance(item, HistoryError):
        columns |= {
            "from_phone": business if outbound else contact_phone,
            "to_phone": contact_phone if outbound else business,
            "payload": {"type": item.message_type, "raw": item.raw, "history": history},
            "error_title": item.error_title,
            "error_code": str(item.error_code) if item.error_code is not None else None,
            "error_message": item.error_message,
        }
    else:
        columns |= {
            "from_phone": item.from_phone or (business if outbound else contact_phone),
            "to_phone": item.to_phone or (contact_phone if outbound else business),
            "payload": _payload(item, history=history, history_status=item.history_status),
            "content": item.content,
            "has_media": item.has_media,
        }
    return _Row(
        contact=ContactFacts(phone=item.contact_phone, bsuid=item.contact_user_id),
        columns=columns,
        from_business_person=outbound and not isinstance(item, HistoryError),
    )


MessageItem = InboundMessage | EchoMessage | HistoryMessage | HistoryError


def _row_for(item: MessageItem, biz: Business) -> _Row:
    if isinstance(item, InboundMessage):
        return _user_message_row(item, biz)
    if isinstance(item, EchoMessage):
        return _echo_row(item, biz)
    return _history_row(item, biz)


async def apply_message_item(
    session: AsyncSession, item: MessageItem, biz: Business, *, look_first: bool = True
) -> ItemOutcome:
    """Store a user message, business-app echo or history row once per wamid, and raise its events.

    The contact and conversation are created on first contact; a user message may
    record an agent turn, a person writing from the business side mutes the agent.
    With ``look_first`` off the stored row is not looked up first: the message's
    unique key (``uq_messages_wamid``) refuses a duplicate with an IntegrityError,
    and the caller runs the item again, looking.
    """
    if (
        look_first
        and item.wa_message_id
        and await stored_message(
            session,
            phone_number_id=biz.phone_number_id,
            wa_message_id=item.wa_message_id,
            direction=item.direction,
        )
    ):
        return ItemOutcome(DUPLICATE)
    row = _row_for(item, biz)
    # Built first (its id is known at once) so that a new conversation is inserted already pointing at it.
    message = Message(
        tenant_id=biz.tenant_id,
        phone_number_id=biz.phone_number_id,
        direction=item.direction,
        message_type=item.message_type,
        wa_message_id=item.wa_message_id,
        status=item.status,
        occurred_at=item.occurred_at,
        **row.columns,
    )
    together = writes_together(session)
    contact, conversation, created = await _conversation(
        session,
        biz,
        row.contact,
        group_id=row.group_id,
        on_create=lambda new: _note(new, message, from_user=row.from_user),
        written_by_caller=together,
    )
    message.contact_id = contact.id if contact else None
    message.conversation_id = conversation.id if conversation else None
    if conversation is not None and not created:
        _note(conversation, message, from_user=row.from_user)
    if conversation is not None and created and together:
        await write_first_message(session, conversation, message)
    else:
        session.add(message)
        await session.flush()
    outcome = ItemOutcome(APPLIED)
    if conversation is not None and created:
        # When the message's own event follows, both go in with its flush (one INSERT).
        created_id = await _created_event(session, biz, conversation, contact, flush=row.event is None)
        outcome.event_ids.append(created_id)
    if row.event is not None:
        facts = message_facts(message, **row.event_facts)
        outcome.event_ids.append(
            await emit_message_event(
                session,
                row.event,
                facts,
                tenant_id=biz.tenant_id,
                phone_number_id=biz.phone_number_id,
                occurred_at=item.occurred_at,
                conversation=conversation,
                contact=contact,
                is_new_conversation=created,
            )
        )
    if row.from_user and conversation is not None and biz.agents_enabled and _answerable(item):
        thread = await enqueue_turn(
            session,
            conversation=conversation,
            message=message,
            customer_id=biz.customer_id,
            now=utcnow(),
            event_ids=outcome.event_ids,
        )
        if thread is not None:
            outcome.turns.append((thread.tenant_id, thread.id, message.id))
    if row.from_business_person:
        await _human_wrote(session, outcome, conversation, sent_at=item.occurred_at)
    return outcome


def _answerable(item: MessageItem) -> bool:
    """A user message an agent answers: a type that starts a turn, arrived whole (an interactive reply
    the channel reports with errors[] is an error, not a choice to act on), written to the business
    alone (a group post is a remark among people, and an agent's answer would go to the whole group)."""
    return (
        isinstance(item, InboundMessage)
        and starts_turn(item.message_type)
        and not item.errors
        and item.group_id is None
    )


async def _human_wrote(
    session: AsyncSession, outcome: ItemOutcome, conversation: Conversation | None, *, sent_at: datetime
) -> None:
    """A person wrote from the business side (business app echo, history import): the agent steps back."""
    thread, event_ids = await note_human_message(
        session, conversation_id=conversation.id if conversation else None, sent_at=sent_at, now=utcnow()
    )
    outcome.event_ids.extend(event_ids)
    if thread is not None and event_ids:
        outcome.woken.append((thread.tenant_id, thread.id))
