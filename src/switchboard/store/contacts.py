"""Contacts of a tenant's customers, found by BSUID or by any spelling of their phone.

Contact.customer_id is required, but a business number may be provisioned
without a customer. Inbound contacts of such numbers belong to the tenant's
default customer, created on first need with a deterministic id
(``cus_default_<tenant id>``) so concurrent first messages agree on it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import bindparam, case, exists, or_, select, union_all
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col
from sqlmodel import select as select_models

from switchboard.domain.phone import phone_variants
from switchboard.models.base import new_id, utcnow
from switchboard.models.messaging import Contact
from switchboard.models.tenancy import Customer
from switchboard.store.tables import table_of

log = logging.getLogger("switchboard.inbound")

DEFAULT_CUSTOMER_NAME = "Default customer (numbers without one)"


def default_customer_id(tenant_id: str) -> str:
    """The id of the tenant's default customer for numbers provisioned without one."""
    return f"cus_default_{tenant_id}"


async def ensure_default_customer(session: AsyncSession, tenant_id: str) -> str:
    """Create the tenant's default customer unless it exists; returns its id."""
    table = table_of(Customer)
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    now = utcnow()
    customer_id = default_customer_id(tenant_id)
    await session.execute(
        insert(table)
        .values(
            id=customer_id,
            tenant_id=tenant_id,
            name=DEFAULT_CUSTOMER_NAME,
            sending_paused=False,
            created_at=now,
            updated_at=now,
        )
        .on_conflict_do_nothing(index_elements=[table.c.id])
    )
    return customer_id


@dataclass(frozen=True, kw_only=True)
class ContactFacts:
    """What the channel told us about a user in one item; None means not sent."""

    phone: str | None = None
    wa_id: str | None = None
    bsuid: str | None = None
    parent_bsuid: str | None = None
    username: str | None = None
    name: str | None = None

    @property
    def identifiable(self) -> bool:
        """Whether there is a phone or a BSUID to key the contact on."""
        return bool(self.phone or self.bsuid)


# Built once (every inbound message runs them): constructing a statement costs more CPU than running it.
_OF_CUSTOMER = select_models(Contact).where(
    col(Contact.tenant_id) == bindparam("tenant_id"), col(Contact.customer_id) == bindparam("customer_id")
)
_BY_BSUID = _OF_CUSTOMER.where(col(Contact.bsuid) == bindparam("bsuid"))
_BY_PHONE = _OF_CUSTOMER.where(col(Contact.phone).in_(bindparam("phones", expanding=True)))
_BY_BSUID_LOCKED = _BY_BSUID.with_for_update()
_BY_PHONE_LOCKED = _BY_PHONE.with_for_update()


async def contact_by_bsuid(
    session: AsyncSession, *, tenant_id: str, customer_id: str, bsuid: str, lock: bool = True
) -> Contact | None:
    """The customer's contact with this BSUID."""
    params = {"tenant_id": tenant_id, "customer_id": customer_id, "bsuid": bsuid}
    return (await session.execute(_BY_BSUID_LOCKED if lock else _BY_BSUID, params)).scalars().first()


async def contact_by_phone(
    session: AsyncSession, *, tenant_id: str, customer_id: str, phone: str, lock: bool = True
) -> Contact | None:
    """The customer's contact with this phone in any of its spellings."""
    params = {"tenant_id": tenant_id, "customer_id": customer_id, "phones": phone_variants(phone)}
    return (await session.execute(_BY_PHONE_LOCKED if lock else _BY_PHONE, params)).scalars().first()


async def find_contact(
    session: AsyncSession, *, tenant_id: str, customer_id: str, facts: ContactFacts
) -> Contact | None:
    """The contact the facts describe: by BSUID first (the stable key), else by phone."""
    if facts.bsuid:
        found = await contact_by_bsuid(
            session, tenant_id=tenant_id, customer_id=customer_id, bsuid=facts.bsuid
        )
        if found is not None:
            return found
    if facts.phone:
        return await contact_by_phone(
            session, tenant_id=tenant_id, customer_id=customer_id, phone=facts.phone
        )
    return None


async def upsert_contact(
    session: AsyncSession, *, tenant_id: str, customer_id: str, facts: ContactFacts
) -> tuple[Contact, bool]:
    """Create the contact or refresh what the channel sent (name, username, BSUIDs, a missing phone).

    True with it when this call created it (so it can have no conversation yet).
    """
    now = utcnow()
    columns = _new_contact_columns(tenant_id=tenant_id, customer_id=customer_id, facts=facts, now=now)
    if session.get_bind().dialect.name == "postgresql":
        contact = await _found_or_inserted(session, columns, facts)
        if contact.id == columns["id"]:
            return contact, True
    else:
        found = await find_contact(session, tenant_id=tenant_id, customer_id=customer_id, facts=facts)
        if found is None:
            contact = Contact(**columns)
            session.add(contact)
            await session.flush()
            return contact, True
        contact = found
    changed = False
    for attr in ("name", "username", "parent_bsuid", "wa_id"):
        value = getattr(facts, attr)
        if value is not None and getattr(contact, attr) != value:
            setattr(contact, attr, value)
            changed = True
    if facts.bsuid and contact.bsuid != facts.bsuid:
        # Found by phone with another BSUID: the upstream rotated it without telling us first.
        contact.bsuid = facts.bsuid
        changed = True
    if facts.phone and not contact.phone:
        holder = await contact_by_phone(
            session, tenant_id=tenant_id, customer_id=customer_id, phone=facts.phone, lock=False
        )
        if holder is None:
            contact.phone = facts.phone
            changed = True
        else:
            log.warning(
                "phone already belongs to another contact; contacts left unmerged",
                extra={"tenant_id": tenant_id, "contact_id": contact.id, "other_contact_id": holder.id},
            )
    if changed:
        contact.updated_at = now
        await session.flush()
    return contact, False


def _new_contact_columns(
    *, tenant_id: str, customer_id: str, facts: ContactFacts, now: datetime
) -> dict[str, Any]:
    """Every column of the contact the facts would create (its id drawn now)."""
    return {
        "id": new_id("ct"),
        "tenant_id": tenant_id,
        "customer_id": customer_id,
        "phone": facts.phone,
        "wa_id": facts.wa_id,
        "bsuid": facts.bsuid,
        "parent_bsuid": facts.parent_bsuid,
        "username": facts.username,
        "name": facts.name,
        # A person's contact; a group's is made by ``group_contact``.
        "group_id": None,
        "created_at": now,
        "updated_at": now,
    }


@cache
def _found_or_inserted_statement() -> Any:
    """``find_contact``'s row (locked), else the new contact INSERTed, as one statement (PostgreSQL only).

    The lookup matches the BSUID or any spelling of the phone and prefers the BSUID's row, as
    ``find_contact``'s two reads do; the INSERT (a data-modifying CTE) runs only when it found none.
    Built once: every inbound message runs it.
    """
    table = table_of(Contact)
    by_bsuid = table.c.bsuid == bindparam("bsuid")
    found = (
        select(table)
        .where(
            table.c.tenant_id == bindparam("tenant_id"),
            table.c.customer_id == bindparam("customer_id"),
            or_(by_bsuid, table.c.phone.in_(bindparam("phones", expanding=True))),
        )
        .order_by(case((by_bsuid, 0), else_=1))
        .limit(1)
        .with_for_update()
        .cte("found")
    )
    # Bound names prefixed: the INSERT's own columns may not be bound under their names.
    given = select(*(bindparam(f"given_{column.name}", type_=column.type) for column in table.columns))
    inserted = (
        postgresql.insert(table)
        .from_select([column.name for column in table.columns], given.where(~exists(select(found.c.id))))
        .returning(*table.columns)
        .cte("inserted")
    )
    return select(Contact).from_statement(union_all(select(found), select(inserted)))


async def _found_or_inserted(session: AsyncSession, columns: dict[str, Any], facts: ContactFacts) -> Contact:
    """The contact ``facts`` describe, locked, or one inserted with ``columns`` (its id tells which); one round trip."""
    params = {f"given_{name}": value for name, value in columns.items()}
    params |= {
        "tenant_id": columns["tenant_id"],
        "customer_id": columns["customer_id"],
        # An empty list matches nothing, and neither does a NULL BSUID.
        "bsuid": facts.bsuid or None,
        "phones": phone_variants(facts.phone) if facts.phone else [],
    }
    return (await session.execute(_found_or_inserted_statement(), params)).scalars().one()


async def group_contact(
    session: AsyncSession, *, tenant_id: str, customer_id: str, group_id: str
) -> tuple[Contact, bool]:
    """The contact standing for a WhatsApp group, created on its first post; True when created here.

    Insert-or-ignore on ``uq_contacts_customer_group``, so two first posts of one group agree on it.
    """
    table = table_of(Contact)
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    now = utcnow()
    contact_id = new_id("ct")
    await session.execute(
        insert(table)
        .values(
            id=contact_id,
            tenant_id=tenant_id,
            customer_id=customer_id,
            group_id=group_id,
            created_at=now,
            updated_at=now,
        )
        .on_conflict_do_nothing(index_elements=[table.c.tenant_id, table.c.customer_id, table.c.group_id])
    )
    stmt = select_models(Contact).where(
        col(Contact.tenant_id) == tenant_id,
        col(Contact.customer_id) == customer_id,
        col(Contact.group_id) == group_id,
    )
    contact = (await session.execute(stmt)).scalars().one()
    return contact, contact.id == contact_id
