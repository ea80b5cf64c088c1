"""Which contact an inbound item lands on, the same on both databases.

On PostgreSQL ``upsert_contact`` looks the contact up and inserts a missing one
in one statement; on SQLite it reads, then inserts. CI runs this file on both,
so the two ways must agree on every rule: the BSUID's row before the phone's,
any spelling of the phone, a new contact only when nothing matches, what the
channel newly tells refreshed on the one found.
"""

from __future__ import annotations

from sqlmodel import col, select

from switchboard.models.messaging import Contact
from switchboard.store.contacts import ContactFacts, upsert_contact
from tests.support.inbound import db


async def _upsert(settings, tenant, **facts) -> tuple[Contact, bool]:
    async with db(settings) as session:
        contact, created = await upsert_contact(
            session, tenant_id=tenant.id, customer_id=tenant.customer_id, facts=ContactFacts(**facts)
        )
        # The row is the session's own: a change to it is written with the transaction.
        assert contact in session
        return contact, created


async def _contacts(settings, tenant) -> list[Contact]:
    async with db(settings) as session:
        stmt = select(Contact).where(col(Contact.tenant_id) == tenant.id).order_by(col(Contact.created_at))
        return list((await session.execute(stmt)).scalars().all())


async def test_a_new_contact_is_created_once_and_found_by_any_spelling_of_its_phone(settings, tenant):
    first, created = await _upsert(settings, tenant, phone="16505550101", wa_id="16505550101", name="Ana")
    assert created is True
    assert (first.phone, first.wa_id, first.name, first.customer_id) == (
        "16505550101",
        "16505550101",
        "Ana",
        tenant.customer_id,
    )
    again, created = await _upsert(settings, tenant, phone="+1 650-555-0101", name="Ana María")
    assert created is False
    assert again.id == first.id
    # What the channel newly told is kept; the phone keeps its stored spelling.
    (stored,) = await _contacts(settings, tenant)
    assert (stored.id, stored.name, stored.phone) == (first.id, "Ana María", "16505550101")
    assert stored.updated_at >= stored.created_at


async def test_the_bsuid_s_contact_comes_before_the_phone_s(settings, tenant):
    by_phone, _ = await _upsert(settings, tenant, phone="16505550102")
    by_bsuid, _ = await _upsert(settings, tenant, bsuid="US.bsuid.0102")
    assert by_phone.id != by_bsuid.id
    found, created = await _upsert(settings, tenant, phone="16505550102", bsuid="US.bsuid.0102")
    assert created is False
    assert found.id == by_bsuid.id
    assert len(await _contacts(settings, tenant)) == 2


async def test_a_bsuid_only_contact_is_found_by_its_bsuid_and_learns_its_phone(settings, tenant):
    first, created = await _upsert(settings, tenant, bsuid="US.bsuid.0103", username="ana")
    assert created is True and first.phone is None
    found, created = await _upsert(settings, tenant, bsuid="US.bsuid.0103", phone="16505550103")
    assert created is False and found.id == first.id
    (stored,) = await _contacts(settings, tenant)
    assert (stored.phone, stored.username) == ("16505550103", "ana")


async def test_another_tenant_s_contact_is_never_found(settings, tenant, other_tenant):
    mine, _ = await _upsert(settings, tenant, phone="16505550104")
    theirs, created = await _upsert(settings, other_tenant, phone="16505550104")
    assert created is True
    assert theirs.id != mine.id
    assert theirs.tenant_id == other_tenant.id
