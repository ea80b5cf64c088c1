"""A live send to a recipient its number already talks to: the conversation is read with the number,
and the message is one INSERT on an autocommit connection, with no transaction around it.

Every other send (a first contact, a template, an Idempotency-Key, an agent reply naming its message)
keeps its transaction; the rows both paths store must be the same.
"""

from __future__ import annotations

from collections import Counter

import pytest
from sqlalchemy import event as sa_event
from sqlalchemy.ext.asyncio import AsyncEngine

from switchboard.activities.outbound import SendContext, create_send
from switchboard.domain.errors import Forbidden, RateLimited
from switchboard.domain.message_status import QUEUED
from switchboard.domain.send_payload import parse_send_request
from switchboard.models.messaging import Contact, Conversation, Message
from switchboard.store import messages
from switchboard.store.database import create_engine, session_factory, unit_of_work

PHONE = "14155550100"
BSUID = "US.13491208655302741918"
# Columns that differ between any two sends, whichever path stored them.
PER_SEND = {"id", "created_at", "occurred_at", "status_updated_at"}


def _counted(engine: AsyncEngine, *, transactions: bool = False) -> Counter[str]:
    """Every statement the engine runs, by its first word, and with ``transactions`` every one it begins.

    Not for an autocommit engine: SQLAlchemy begins a transaction of its own there too, which sends nothing.
    """
    ran: Counter[str] = Counter()

    def note(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        ran[statement.split()[0].lower()] += 1

    def began(conn):  # type: ignore[no-untyped-def]
        ran["transaction"] += 1

    sa_event.listen(engine.sync_engine, "before_cursor_execute", note)
    if transactions:
        sa_event.listen(engine.sync_engine, "begin", began)
    return ran


@pytest.fixture
async def engines(settings):
    main = create_engine(settings.database_url)
    autocommit = create_engine(settings.database_url, autocommit=True)
    yield main, autocommit
    await main.dispose()
    await autocommit.dispose()


async def _talks_to(engine: AsyncEngine, tenant, *, phone: str | None = PHONE, bsuid: str | None = None):  # type: ignore[no-untyped-def]
    """A contact and the number's conversation with them, as an earlier message left them."""
    async with unit_of_work(session_factory(engine)) as session:
        contact = Contact(tenant_id=tenant.id, customer_id=tenant.customer_id, phone=phone, bsuid=bsuid)
        session.add(contact)
        await session.flush()
        conversation = Conversation(
            tenant_id=tenant.id,
            customer_id=tenant.customer_id,
            phone_number_id=tenant.phone_number_id,
            contact_id=contact.id,
            contact_phone=phone,
            contact_bsuid=bsuid,
        )
        session.add(conversation)
    return conversation


async def _read(engine: AsyncEngine, tenant, **recipient):  # type: ignore[no-untyped-def]
    async with engine.connect() as connection:
        return await messages.sending_phone(
            connection, tenant.id, tenant.phone_number_id, count_queued=True, **recipient
        )


def _text(tenant):  # type: ignore[no-untyped-def]
    return parse_send_request(
        {"phone_number_id": tenant.phone_number_id, "to": PHONE, "type": "text", "text": {"body": "hi"}}
    )


async def _create(engines, settings, tenant, phone, facts, *, ctx=None, alone=True):  # type: ignore[no-untyped-def]
    """``create_send`` of a text to PHONE; ``alone`` offers it the autocommit engine, as the API does."""
    main, autocommit = engines
    return await create_send(
        session_factory(main),
        settings,
        tenant_id=tenant.id,
        send=_text(tenant),
        phone=phone,
        ctx=ctx or SendContext(),
        facts=facts,
        autocommit=autocommit if alone else None,
    )


async def test_the_numbers_read_finds_the_recipients_conversation_by_any_form_of_the_phone(
    engines, tenant, other_tenant
):
    main, autocommit = engines
    conversation = await _talks_to(main, tenant)
    # The same person on another tenant's number is that number's conversation, not this one's.
    await _talks_to(main, other_tenant)
    ran = _counted(autocommit)
    _, facts = await _read(autocommit, tenant, to_phone=PHONE)
    assert facts.conversation == messages.KnownConversation(
        id=conversation.id, contact_id=conversation.contact_id
    )
    assert ran == Counter(select=1)
    # A conversation filed under another form of the number (Mexico's old mobile prefix) is found by
    # the canonical one: the read matches every variant, as the transaction's read did.
    legacy = await _talks_to(main, tenant, phone="5215512345678")
    _, facts = await _read(autocommit, tenant, to_phone="525512345678")
    assert facts.conversation is not None and facts.conversation.id == legacy.id
    _, facts = await _read(autocommit, tenant, to_phone="14155550199")
    assert facts == messages.PhoneFacts(customer_paused=False, queued=0, conversation=None)
    _, unnamed = await _read(autocommit, tenant)
    assert unnamed.conversation is None and unnamed.queued == 0


async def test_the_numbers_read_finds_a_conversation_by_bsuid(engines, tenant):
    main, autocommit = engines
    conversation = await _talks_to(main, tenant, phone=None, bsuid=BSUID)
    _, facts = await _read(autocommit, tenant, bsuid=BSUID)
    assert facts.conversation == messages.KnownConversation(
        id=conversation.id, contact_id=conversation.contact_id
    )
    _, facts = await _read(autocommit, tenant, bsuid="US.1")
    assert facts.conversation is None


async def test_a_send_to_a_known_recipient_is_one_insert_and_stores_what_a_transaction_stores(
    engines, settings, tenant
):
    main, autocommit = engines
    conversation = await _talks_to(main, tenant)
    sessions = session_factory(main)
    phone, facts = await _read(autocommit, tenant, to_phone=PHONE)
    ran, ran_in_transactions = _counted(autocommit), _counted(main, transactions=True)
    alone = await _create(engines, settings, tenant, phone, facts)
    assert ran == Counter(insert=1)
    assert ran_in_transactions == Counter()
    # The same send through the transaction (no autocommit engine given).
    in_transaction = await _create(engines, settings, tenant, phone, facts, alone=False)
    assert ran_in_transactions["transaction"] == 1 and ran_in_transactions["insert"] == 1
    async with sessions() as session:
        first = await session.get(Message, alone.message_id)
        second = await session.get(Message, in_transaction.message_id)
    assert first is not None and second is not None
    assert (first.status, first.conversation_id, first.contact_id) == (
        QUEUED,
        conversation.id,
        conversation.contact_id,
    )
    assert first.model_dump(exclude=PER_SEND) == second.model_dump(exclude=PER_SEND)
    # The workflow's input is built from the stored values either way.
    assert alone.model_dump(exclude={"message_id"}) == in_transaction.model_dump(exclude={"message_id"})


async def test_a_refused_send_stores_nothing_on_the_quick_path(engines, settings, tenant):
    main, autocommit = engines
    await _talks_to(main, tenant)
    phone, facts = await _read(autocommit, tenant, to_phone=PHONE)
    ran = _counted(autocommit)
    paused = messages.PhoneFacts(customer_paused=True, queued=0, conversation=facts.conversation)
    with pytest.raises(Forbidden) as refused:
        await _create(engines, settings, tenant, phone, paused)
    assert refused.value.code == "customer_sending_disabled"
    full = messages.PhoneFacts(
        customer_paused=False, queued=settings.send_queue_limit + 1, conversation=facts.conversation
    )
    with pytest.raises(RateLimited):
        await _create(engines, settings, tenant, phone, full)
    assert ran == Counter()


@pytest.mark.parametrize(
    "ctx",
    [SendContext(idempotency_key="k-1"), SendContext(message_id="msg_chosen_in_advance")],
    ids=["idempotency-key", "message-id"],
)
async def test_a_send_that_writes_more_keeps_its_transaction(engines, settings, tenant, ctx):
    main, autocommit = engines
    await _talks_to(main, tenant)
    phone, facts = await _read(autocommit, tenant, to_phone=PHONE)
    ran, ran_in_transactions = _counted(autocommit), _counted(main, transactions=True)
    request = await _create(engines, settings, tenant, phone, facts, ctx=ctx)
    assert ran == Counter()
    assert ran_in_transactions["transaction"] == 1 and ran_in_transactions["insert"] == 1
    assert request.message_id == (ctx.message_id or request.message_id)


async def test_a_first_contact_keeps_its_transaction_and_files_a_conversation(engines, settings, tenant):
    main, autocommit = engines
    phone, facts = await _read(autocommit, tenant, to_phone=PHONE)
    assert facts.conversation is None
    ran = _counted(autocommit)
    request = await _create(engines, settings, tenant, phone, facts)
    assert ran == Counter()
    _, facts = await _read(autocommit, tenant, to_phone=PHONE)
    assert facts.conversation is not None
    async with session_factory(main)() as session:
        stored = await session.get(Message, request.message_id)
    assert stored is not None and stored.conversation_id == facts.conversation.id
