"""SQL for tenants, keys, customers, WABAs and phone numbers (provisioning)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col, select

from switchboard.domain.errors import Conflict, Forbidden, NotFound
from switchboard.models.tenancy import ApiKey, Customer, PhoneNumber, Tenant, Waba


async def get_tenant(session: AsyncSession, tenant_id: str) -> Tenant:
    """A tenant by id (operator scope), else NotFound."""
    tenant = await session.get(Tenant, tenant_id)
    if tenant is None:
        raise NotFound("tenant", tenant_id)
    return tenant


async def add(session: AsyncSession, row: Any, *, conflict_message: str) -> Any:
    """Insert a row; a unique-constraint violation becomes a 409."""
    session.add(row)
    try:
        await session.flush()
    except IntegrityError as exc:
        raise Conflict(conflict_message, code="ALREADY_EXISTS") from exc
    return row


async def find_key(session: AsyncSession, key_hash: str) -> tuple[ApiKey, Tenant] | None:
    """The key with this hash and its tenant, revoked or not."""
    stmt = (
        select(ApiKey, Tenant)
        .join(Tenant, col(Tenant.id) == ApiKey.tenant_id)
        .where(ApiKey.key_hash == key_hash)
    )
    row = (await session.execute(stmt)).first()
    return (row[0], row[1]) if row else None


async def revoke_key(session: AsyncSession, key_id: str, *, at: datetime) -> ApiKey:
    """Mark a key revoked (idempotent: the first revocation time is kept)."""
    key = await session.get(ApiKey, key_id)
    if key is None:
        raise NotFound("api key", key_id)
    if key.revoked_at is None:
        key.revoked_at = at
    return key


async def get_customer(session: AsyncSession, tenant_id: str, customer_id: str) -> Customer:
    """A tenant's customer, else NotFound."""
    customer = await session.get(Customer, customer_id)
    if customer is None or customer.tenant_id != tenant_id:
        raise NotFound("customer", customer_id)
    return customer


async def get_waba_for_tenant(session: AsyncSession, tenant_id: str, waba_id: str) -> Waba:
    """The WABA with this channel id; WABA_NOT_IN_TENANT when another tenant owns it."""
    waba = (await session.execute(select(Waba).where(Waba.waba_id == waba_id))).scalars().first()
    if waba is None:
        raise NotFound("waba", waba_id)
    if waba.tenant_id != tenant_id:
        raise Forbidden(f"WABA {waba_id} does not belong to this tenant", code="WABA_NOT_IN_TENANT")
    return waba


async def find_phone_by_channel_id(session: AsyncSession, phone_number_id: str) -> PhoneNumber | None:
    """The phone number with this channel numeric id, whatever its tenant."""
    stmt = select(PhoneNumber).where(PhoneNumber.phone_number_id == phone_number_id)
    return (await session.execute(stmt)).scalars().first()
