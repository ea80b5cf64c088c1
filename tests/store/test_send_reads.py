"""A send's first read: its number, the customer's pause flag and (live) its queue, in one statement.

Every sandbox send and every live send starts here, so it is pinned to one
round trip; the facts it returns must be the ones the checks read before.
"""

from __future__ import annotations

from collections import Counter

import pytest
from sqlalchemy import event as sa_event
from sqlalchemy import update
from sqlalchemy.orm.exc import UnmappedInstanceError

from switchboard.domain.errors import Forbidden, ValidationFailed
from switchboard.domain.message_status import QUEUED, SENT
from switchboard.models.base import new_id, utcnow
from switchboard.models.messaging import Message
from switchboard.models.tenancy import PhoneNumber
from switchboard.store import messages
from switchboard.store.database import create_engine, session_factory, unit_of_work


def _outbound(tenant, status: str) -> Message:  # type: ignore[no-untyped-def]
    return Message(
        id=new_id("msg", at=utcnow()),
        tenant_id=tenant.id,
        phone_number_id=tenant.phone_number_id,
        direction="outbound",
        message_type="text",
        status=status,
        to_phone="14155550100",
        payload={"type": "text", "text": {"body": "hi"}},
    )


@pytest.fixture
async def sessions(settings):
    engine = create_engine(settings.database_url)
    ran: Counter[str] = Counter()

    def note(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        ran[statement.split()[0].lower()] += 1

    sa_event.listen(engine.sync_engine, "before_cursor_execute", note)
    factory = session_factory(engine)
    factory.ran = ran  # type: ignore[attr-defined]
    yield factory
    await engine.dispose()


async def test_a_sandbox_read_is_one_statement_with_the_pause_flag(sessions, app_client, tenant):
    async with sessions() as session:
        phone, facts = await messages.sending_phone(
            session, tenant.id, tenant.phone_number_id, count_queued=False
        )
    assert phone.phone_number_id == tenant.phone_number_id
    assert facts == messages.PhoneFacts(customer_paused=False, queued=None)
    assert sessions.ran == Counter(select=1)

    paused = await app_client.patch(
        f"/v1/customers/{tenant.customer_id}", json={"sending_paused": True}, headers=tenant.headers()
    )
    assert paused.status_code == 200, paused.text
    async with sessions() as session:
        _, facts = await messages.sending_phone(
            session, tenant.id, tenant.phone_number_id, count_queued=False
        )
    assert facts.customer_paused is True


async def test_a_live_read_counts_only_this_numbers_queued_sends(sessions, tenant, other_tenant):
    async with unit_of_work(sessions) as session:
        session.add_all([_outbound(tenant, QUEUED), _outbound(tenant, QUEUED), _outbound(tenant, SENT)])
        # Queued on another number: not this number's queue.
        session.add_all([_outbound(other_tenant, QUEUED) for _ in range(3)])
    sessions.ran.clear()
    async with sessions() as session:
        phone, facts = await messages.sending_phone(
            session, tenant.id, tenant.phone_number_id, count_queued=True
        )
        # The same figure the send's transaction used to count by itself.
        assert facts.queued == await messages.queued_count(session, phone.phone_number_id) == 2
    assert facts.customer_paused is False
    assert sessions.ran == Counter(select=2)


async def test_an_unknown_number_and_another_tenants_number_are_refused(sessions, tenant, other_tenant):
    async with sessions() as session:
        with pytest.raises(ValidationFailed) as unknown:
            await messages.sending_phone(session, tenant.id, "999999999999", count_queued=True)
        with pytest.raises(Forbidden) as foreign:
            await messages.sending_phone(session, tenant.id, other_tenant.phone_number_id, count_queued=False)
    assert unknown.value.code == "INVALID_PHONE_NUMBER_ID"
    assert foreign.value.code == "PHONE_NUMBER_NOT_IN_TENANT"


async def test_a_number_without_a_customer_is_not_paused(sessions, tenant):
    async with unit_of_work(sessions) as session:
        await session.execute(
            update(PhoneNumber)
            .where(PhoneNumber.phone_number_id == tenant.phone_number_id)  # type: ignore[arg-type]
            .values(customer_id=None)
        )
    async with sessions() as session:
        phone, facts = await messages.sending_phone(
            session, tenant.id, tenant.phone_number_id, count_queued=True
        )
    assert phone.customer_id is None
    assert facts == messages.PhoneFacts(customer_paused=False, queued=0)


async def test_the_apis_read_on_a_bare_connection_gives_a_copy_no_session_tracks(sessions, tenant):
    """The API reads with a connection, no session: the same facts, and a number it may not write back."""
    async with unit_of_work(sessions) as session:
        session.add_all([_outbound(tenant, QUEUED), _outbound(tenant, QUEUED), _outbound(tenant, QUEUED)])
    sessions.ran.clear()
    engine = sessions.kw["bind"]
    async with engine.connect() as connection:
        phone, facts = await messages.sending_phone(
            connection, tenant.id, tenant.phone_number_id, count_queued=True
        )
    assert sessions.ran == Counter(select=1)
    assert facts == messages.PhoneFacts(customer_paused=False, queued=3)
    async with sessions() as session:
        stored = await session.get(PhoneNumber, phone.id)
        assert stored is not None
        assert phone.model_dump() == stored.model_dump()  # every column, typed as the ORM reads it
        assert stored is not phone
        # Not a mapped instance: adding it to a session fails instead of inserting a second number.
        with pytest.raises(UnmappedInstanceError):
            session.add(phone)
