"""Send outcomes on a real database: a queued send settles once, and never moves its conversation back."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import event as sa_event
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm.exc import UnmappedInstanceError

from switchboard.activities.sends import OutcomeRecorder
from switchboard.domain.message_status import FAILED, FAILED_TRANSIENT, QUEUED, RECEIVED, SENT
from switchboard.models.base import utcnow
from switchboard.models.messaging import Contact, Conversation, Message
from switchboard.models.send import SendOutcome, UpstreamFailureInfo
from switchboard.models.tenancy import Customer, Tenant
from switchboard.settings import Settings
from switchboard.store import conversations, messages
from switchboard.store.database import create_engine, session_factory, unit_of_work
from tests.conftest import make_settings

REFUSED = UpstreamFailureInfo(
    code="RECIPIENT_NOT_ON_WHATSAPP",
    status_code=400,
    error_title="Message undeliverable",
    error_message="recipient is not on WhatsApp",
    upstream_code=131026,
)
T0 = utcnow() - timedelta(hours=3)


@pytest.fixture
async def sessions(database_url):
    engine = create_engine(database_url)
    factory = session_factory(engine)
    async with unit_of_work(factory) as session:
        session.add(Tenant(id="ten_a", name="A"))
        await session.flush()
        session.add(Customer(id="cus_a", tenant_id="ten_a", name="A"))
        await session.flush()
        session.add(Contact(id="ct_a", tenant_id="ten_a", customer_id="cus_a", phone="14155550100"))
        await session.flush()
        session.add(
            Conversation(
                id="conv_a",
                tenant_id="ten_a",
                customer_id="cus_a",
                phone_number_id="800000000001",
                contact_id="ct_a",
            )
        )
        await session.flush()
        session.add(_message("msg_out", direction="outbound", status=QUEUED, at=T0))
    yield factory
    await engine.dispose()


def _message(message_id: str, *, direction: str, status: str, at) -> Message:  # type: ignore[no-untyped-def]
    return Message(
        id=message_id,
        tenant_id="ten_a",
        phone_number_id="800000000001",
        direction=direction,
        message_type="text",
        status=status,
        to_phone="14155550100",
        conversation_id="conv_a",
        contact_id="ct_a",
        payload={"type": "text", "text": {"body": "hi"}},
        created_at=at,
        occurred_at=at,
        status_updated_at=at,
    )


async def _settle(sessions, **outcome) -> tuple[bool, Message]:  # type: ignore[no-untyped-def]
    async with unit_of_work(sessions) as session:
        message, conversation, contact = await messages.send_with_context(session, "msg_out")
        assert (conversation.id, contact.id) == ("conv_a", "ct_a")
        settled, message = await messages.settle_send(session, message, now=utcnow(), **outcome)
    return settled, message


async def test_a_sent_outcome_settles_once(sessions):
    settled, message = await _settle(sessions, wa_message_id="wamid.ONE")
    assert settled and (message.status, message.wa_message_id) == (SENT, "wamid.ONE")
    again, message = await _settle(sessions, wa_message_id="wamid.TWO")
    assert not again and (message.status, message.wa_message_id) == (SENT, "wamid.ONE")


@pytest.mark.parametrize(("transient", "status"), [(False, FAILED), (True, FAILED_TRANSIENT)])
async def test_a_failure_stores_its_reason(sessions, transient: bool, status: str):
    settled, message = await _settle(sessions, failure=REFUSED, transient=transient)
    assert settled and message.status == status
    assert (message.error_code, message.error_title, message.error_message) == (
        "RECIPIENT_NOT_ON_WHATSAPP",
        "Message undeliverable",
        "recipient is not on WhatsApp",
    )
    assert message.wa_message_id is None


async def test_a_late_send_leaves_the_pointer_on_a_newer_message(sessions):
    newer = T0 + timedelta(hours=1)
    async with unit_of_work(sessions) as session:
        inbound = _message("msg_in", direction="inbound", status=RECEIVED, at=newer)
        session.add(inbound)
        conversation = await session.get(Conversation, "conv_a")
        conversations.note_inbound_message(conversation, inbound)
    async with unit_of_work(sessions) as session:
        message, conversation, _ = await messages.send_with_context(session, "msg_out")
        _, message = await messages.settle_send(session, message, now=utcnow(), wa_message_id="wamid.LATE")
        left = await conversations.note_sent_message(session, conversation, message, now=utcnow())
    # The copy it answers (the event's facts) says what the row says.
    assert (left.last_message_id, left.last_message_at) == ("msg_in", newer)
    async with sessions() as session:
        conversation = await session.get(Conversation, "conv_a")
        assert (conversation.last_message_id, conversation.last_message_at) == ("msg_in", newer)


async def test_a_send_newer_than_the_last_message_moves_the_pointer(sessions):
    async with unit_of_work(sessions) as session:
        message, conversation, _ = await messages.send_with_context(session, "msg_out")
        _, message = await messages.settle_send(session, message, now=utcnow(), wa_message_id="wamid.ONE")
        left = await conversations.note_sent_message(session, conversation, message, now=utcnow())
    assert (left.last_message_id, left.last_message_at) == ("msg_out", T0)
    async with sessions() as session:
        conversation = await session.get(Conversation, "conv_a")
        assert (conversation.last_message_id, conversation.last_message_at) == ("msg_out", T0)


async def test_of_two_writers_that_both_read_it_queued_only_the_first_settles_it(sessions):
    """A try whose run was terminated while it posted records its success while the API records the run
    as not finished: both read the send queued, and the second write must not overwrite the first."""
    async with unit_of_work(sessions) as late:
        stale, _, _ = await messages.send_with_context(late, "msg_out")
        assert stale.status == QUEUED
        async with unit_of_work(sessions) as first:
            message, _, _ = await messages.send_with_context(first, "msg_out")
            settled, _ = await messages.settle_send(
                first, message, now=utcnow(), failure=REFUSED, transient=True
            )
            assert settled
        settled, stale = await messages.settle_send(late, stale, now=utcnow(), wa_message_id="wamid.LATE")
        # The loser changed nothing and now sees the row as stored.
        assert not settled
        assert (stale.status, stale.wa_message_id) == (FAILED_TRANSIENT, None)
    async with sessions() as session:
        stored = await session.get(Message, "msg_out")
        assert (stored.status, stored.error_code, stored.wa_message_id) == (
            FAILED_TRANSIENT,
            "RECIPIENT_NOT_ON_WHATSAPP",
            None,
        )


@dataclass
class _RecorderDeps:
    """What ``OutcomeRecorder`` needs; no webhook is subscribed, so it starts no workflow."""

    settings: Settings
    sessions: async_sessionmaker[AsyncSession]
    temporal: Any = None
    delivery_starter: Any = None

    @property
    def statement_sessions(self) -> async_sessionmaker[AsyncSession]:
        return self.sessions


async def test_on_sqlite_a_send_outcome_is_recorded_in_the_write_turn_without_a_thread_hop(
    sessions, database_url, hops
):
    """Its statements and commit run on the event loop (store/sqlite_driver.py): none goes to the thread."""
    if not database_url.startswith("sqlite"):
        pytest.skip("the write turn is SQLite's")
    hops.clear()
    recorder = OutcomeRecorder(_RecorderDeps(make_settings(database_url, "127.0.0.1:1"), sessions))
    report = await recorder.record(
        SendOutcome(message_id="msg_out", tenant_id="ten_a", wa_message_id="wamid.T")
    )
    assert report.sent is not None
    assert hops == []
    async with unit_of_work(sessions) as session:
        assert (await session.get(Message, "msg_out")).status == SENT


async def test_a_recorded_send_is_its_statements_alone_and_its_copies_are_untracked(sessions):
    """The message, conversation and contact come as one read of columns; no session flush writes them."""
    engine = sessions.kw["bind"]
    ran: list[str] = []

    def note(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        ran.append(f"{statement.split()[0].lower()} {_table_of(statement)}")

    sa_event.listen(engine.sync_engine, "before_cursor_execute", note)
    async with unit_of_work(sessions) as session:
        message, conversation, contact = await messages.send_with_context(session, "msg_out")
        assert contact is not None and contact.phone == "14155550100"
        settled, message = await messages.settle_send(session, message, now=utcnow(), wa_message_id="wamid.C")
        conversation = await conversations.note_sent_message(session, conversation, message, now=utcnow())
        assert session.identity_map.keys() == set()
        # An untracked copy cannot be added: it would insert the row a second time.
        with pytest.raises(UnmappedInstanceError):
            session.add(message)
    sa_event.remove(engine.sync_engine, "before_cursor_execute", note)
    assert ran == ["select messages", "update messages", "update conversations"]
    assert settled and (message.status, message.wa_message_id) == (SENT, "wamid.C")
    assert (conversation.last_message_id, conversation.last_message_at) == ("msg_out", T0)
    async with sessions() as session:
        stored = await session.get(Conversation, "conv_a")
        assert stored.model_dump() == conversation.model_dump()


async def test_a_send_recorded_from_a_stale_read_does_not_move_the_pointer_back(sessions):
    """Read before an inbound message was filed, written after: the UPDATE compares with the row, not the read."""
    newer = T0 + timedelta(hours=1)
    async with unit_of_work(sessions) as late:
        message, conversation, _ = await messages.send_with_context(late, "msg_out")
        assert conversation.last_message_id is None
        async with unit_of_work(sessions) as inbound:
            arrived = _message("msg_in", direction="inbound", status=RECEIVED, at=newer)
            inbound.add(arrived)
            conversations.note_inbound_message(await inbound.get(Conversation, "conv_a"), arrived)
        _, message = await messages.settle_send(late, message, now=utcnow(), wa_message_id="wamid.S")
        left = await conversations.note_sent_message(late, conversation, message, now=utcnow())
    # The copy the event's facts come from says what the row says, not what the stale read implied.
    assert (left.last_message_id, left.last_message_at) == ("msg_in", newer)
    async with sessions() as session:
        stored = await session.get(Conversation, "conv_a")
        assert (stored.last_message_id, stored.last_message_at) == ("msg_in", newer)


def _table_of(statement: str) -> str:
    words = statement.replace('"', "").split()
    after = {"select": "from", "update": "update"}[words[0].lower()]
    return words[[w.lower() for w in words].index(after) + 1].split(".")[0]
