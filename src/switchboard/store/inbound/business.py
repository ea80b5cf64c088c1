"""Which provisioned business number (and so which tenant) an inbound item is for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Row, bindparam, exists
from sqlalchemy import select as select_columns
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col, select

from switchboard.domain.inbound import InboundItem, InboundMessage, UsernameUpdate
from switchboard.domain.phone import canonical_phone
from switchboard.models.agents import AgentBinding
from switchboard.models.tenancy import PhoneNumber
from switchboard.store.contacts import ensure_default_customer

# Built once (every inbound item runs it): constructing a statement costs more CPU than running it.
_PHONE_BY_ID = select(PhoneNumber).where(col(PhoneNumber.phone_number_id) == bindparam("phone_number_id"))
# The number with whether its tenant has any enabled agent binding: a user message to a tenant without
# agents (most of them) then costs no read of the bindings.
_AGENTS_ENABLED = exists().where(
    col(AgentBinding.tenant_id) == col(PhoneNumber.tenant_id), col(AgentBinding.enabled).is_(True)
)
# As columns, not a mapped row: every user message runs it and only reads them (an ORM row's load
# cost more CPU than the statement).
BUSINESS_BY_ID = select_columns(
    col(PhoneNumber.tenant_id),
    col(PhoneNumber.customer_id),
    col(PhoneNumber.phone_number_id),
    col(PhoneNumber.waba_id),
    col(PhoneNumber.display_phone_number),
    _AGENTS_ENABLED.label("agents_enabled"),
).where(col(PhoneNumber.phone_number_id) == bindparam("phone_number_id"))


@dataclass(frozen=True, kw_only=True)
class Business:
    """A business number provisioned in this service."""

    tenant_id: str
    customer_id: str | None
    phone_number_id: str
    waba_id: str
    display_phone: str
    # False only when the tenant had no enabled agent binding as the item was read: no turn to record.
    agents_enabled: bool = True

    async def customer_for_contacts(self, session: AsyncSession) -> str:
        """The customer new contacts of this number belong to (the tenant's default when none is set)."""
        return self.customer_id or await ensure_default_customer(session, self.tenant_id)


def business_of_row(row: Row[*tuple[Any, ...]]) -> Business:
    """The business of a row of ``BUSINESS_BY_ID``'s columns (``agents_enabled`` among them)."""
    return _business(row, agents_enabled=bool(row.agents_enabled))


def _business(phone: PhoneNumber | Row[*tuple[Any, ...]], *, agents_enabled: bool = True) -> Business:
    """The business of a phone record or of a row of its columns (``BUSINESS_BY_ID``)."""
    return Business(
        tenant_id=phone.tenant_id,
        customer_id=phone.customer_id,
        phone_number_id=phone.phone_number_id,
        waba_id=phone.waba_id,
        display_phone=canonical_phone(phone.display_phone_number),
        agents_enabled=agents_enabled,
    )


async def phone_for_item(session: AsyncSession, item: InboundItem) -> PhoneNumber | None:
    """The provisioned phone record an item names, or None when the number is not ours."""
    if item.phone_number_id:
        found = await session.execute(_PHONE_BY_ID, {"phone_number_id": item.phone_number_id})
        return found.scalars().first()
    if isinstance(item, UsernameUpdate) and item.waba_id and item.display_phone_number:
        # business_username_updates carries no metadata: match the WABA's number by its digits.
        wanted = canonical_phone(item.display_phone_number)
        stmt = select(PhoneNumber).where(col(PhoneNumber.waba_id) == item.waba_id)
        for phone in (await session.execute(stmt)).scalars().all():
            if canonical_phone(phone.display_phone_number) == wanted:
                return phone
    return None


async def business_for_item(session: AsyncSession, item: InboundItem) -> Business | None:
    """The business number an item is for, or None when it is not provisioned here."""
    if isinstance(item, InboundMessage) and item.phone_number_id:
        # Only a user message may start an agent turn; statuses, the most common items, skip the EXISTS.
        row = (await session.execute(BUSINESS_BY_ID, {"phone_number_id": item.phone_number_id})).first()
        return business_of_row(row) if row is not None else None
    phone = await phone_for_item(session, item)
    return _business(phone) if phone is not None else None
