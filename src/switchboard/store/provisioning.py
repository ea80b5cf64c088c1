"""Provisioning operations shared by the operator API and `switchboard admin`.

Each takes a session inside the caller's unit of work and returns rows; the
caller commits. Secrets (API keys, WABA tokens) are hashed or sealed here so
no caller can store them in clear by mistake.
"""

from __future__ import annotations

import os

from sqlalchemy import ColumnElement, delete, func, or_, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col, select

from switchboard.domain.api_keys import display_prefix, generate_key, hash_key
from switchboard.domain.errors import Conflict, NotFound, Unprocessable
from switchboard.domain.secrets_box import seal
from switchboard.models.base import utcnow
from switchboard.models.messaging import Contact, Conversation, Message
from switchboard.models.tenancy import ApiKey, Customer, PhoneNumber, Tenant, Waba
from switchboard.models.tenancy_api import (
    ApiKeyCreate,
    CustomerCreate,
    CustomerDeleted,
    CustomerUpdate,
    PhoneNumberCreate,
    PhoneNumberUpdate,
    TenantCreate,
    TenantUpdate,
    WabaCreate,
    WabaUpdate,
)
from switchboard.store import tenancy
from switchboard.store.contacts import default_customer_id


async def create_tenant(session: AsyncSession, body: TenantCreate) -> Tenant:
    """A new tenant."""
    values = body.model_dump()
    for field in ("platform_managed", "timezone"):
        if values.get(field) is None:
            values.pop(field, None)
    tenant = Tenant(**values)
    session.add(tenant)
    await session.flush()
    return tenant


async def update_tenant(session: AsyncSession, tenant_id: str, body: TenantUpdate) -> Tenant:
    """Change a tenant's plan, notification email, caps or custom limits."""
    tenant = await tenancy.get_tenant(session, tenant_id)
    changes = body.model_dump(exclude_unset=True)
    plan = changes.get("plan", tenant.plan)
    if plan != "enterprise" and {"rate_limit_per_second", "rate_limit_per_day"} & {
        k for k, v in changes.items() if v is not None
    }:
        raise Unprocessable(
            "custom rate limits need the enterprise plan", details={"field": "rate_limit_per_second"}
        )
    for field, value in changes.items():
        if field in ("platform_managed", "timezone") and value is None:
            continue
        setattr(tenant, field, value)
    tenant.updated_at = utcnow()
    return tenant


async def create_api_key(session: AsyncSession, tenant_id: str, body: ApiKeyCreate) -> tuple[ApiKey, str]:
    """A new key for the tenant; returns the row and the key, shown once."""
    await tenancy.get_tenant(session, tenant_id)
    plaintext = generate_key(body.mode, os.urandom(32))
    key = ApiKey(
        tenant_id=tenant_id,
        key_hash=hash_key(plaintext),
        display_prefix=display_prefix(plaintext),
        mode=body.mode,
        role=body.role,
    )
    session.add(key)
    await session.flush()
    return key, plaintext


async def create_customer(session: AsyncSession, tenant_id: str, body: CustomerCreate) -> Customer:
    """A new customer of the tenant."""
    await tenancy.get_tenant(session, tenant_id)
    customer = Customer(tenant_id=tenant_id, name=body.name)
    session.add(customer)
    await session.flush()
    return customer


async def update_customer(
    session: AsyncSession, tenant_id: str, customer_id: str, body: CustomerUpdate
) -> Customer:
    """Pause or resume a customer's sending."""
    customer = await tenancy.get_customer(session, tenant_id, customer_id)
    customer.sending_paused = body.sending_paused
    customer.updated_at = utcnow()
    return customer


async def delete_customer(session: AsyncSession, tenant_id: str, customer_id: str) -> CustomerDeleted:
    """Delete a customer with its contacts and conversations (the schema cascades them).

    Refused with 409 while it owns phone numbers (for the tenant's default
    customer: while the tenant has numbers without a customer, whose contacts
    it holds): their conversations would go with it while the numbers keep
    receiving. Messages stay (they are never deleted while the account is
    active) but lose their link to the deleted conversations.
    """
    customer = await tenancy.get_customer(session, tenant_id, customer_id)
    owner: ColumnElement[bool] = col(PhoneNumber.customer_id) == customer_id
    if customer_id == default_customer_id(tenant_id):
        owner = or_(owner, col(PhoneNumber.customer_id).is_(None))
    phones = (
        await session.execute(
            select(func.count()).select_from(PhoneNumber).where(PhoneNumber.tenant_id == tenant_id, owner)
        )
    ).scalar_one()
    if phones:
        raise Conflict(
            f"customer {customer_id} still owns {phones} phone number(s), whose conversations would go with it",
            code="CUSTOMER_HAS_PHONE_NUMBERS",
            details={"field": "customer_id", "phone_numbers": phones},
        )
    conversations = select(Conversation.id).where(Conversation.customer_id == customer_id)
    counts = CustomerDeleted(
        id=customer_id,
        deleted=True,
        contacts_deleted=await _count(session, Contact, col(Contact.customer_id) == customer_id),
        conversations_deleted=await _count(
            session, Conversation, col(Conversation.customer_id) == customer_id
        ),
    )
    await session.execute(
        update(Message)
        .where(col(Message.conversation_id).in_(conversations))
        .values(conversation_id=None, contact_id=None)
        .execution_options(synchronize_session=False)
    )
    try:
        await session.execute(delete(Customer).where(col(Customer.id) == customer.id))
    except IntegrityError as exc:
        # Something outside the cascade (an agent thread of one of its conversations) still points at
        # it; the caller's unit of work rolls everything back.
        raise Conflict(
            f"customer {customer_id} is still referenced (agent threads of its conversations)",
            code="CUSTOMER_IN_USE",
        ) from exc
    session.expunge(customer)
    return counts


async def _count(session: AsyncSession, model: type, *where: ColumnElement[bool]) -> int:
    return int((await session.execute(select(func.count()).select_from(model).where(*where))).scalar_one())


async def update_phone_number(
    session: AsyncSession, tenant_id: str, phone_id: str, body: PhoneNumberUpdate
) -> PhoneNumber:
    """Change a number's inbox visibility or throughput tier (new sends use the new tier)."""
    phone = await session.get(PhoneNumber, phone_id)
    if phone is None or phone.tenant_id != tenant_id:
        raise NotFound("phone number", phone_id)
    for field, value in body.model_dump(exclude_none=True).items():
        setattr(phone, field, value)
    phone.updated_at = utcnow()
    await session.flush()
    return phone


async def update_waba(
    session: AsyncSession, tenant_id: str, waba_id: str, body: WabaUpdate, *, secrets_key: bytes
) -> Waba:
    """Change a WABA's messaging tier or access token (sealed like at registration; used from the next call)."""
    waba = (await session.execute(select(Waba).where(Waba.waba_id == waba_id))).scalars().first()
    if waba is None or waba.tenant_id != tenant_id:
        raise NotFound("waba", waba_id)
    if body.messaging_tier is not None:
        waba.messaging_tier = body.messaging_tier
    if body.access_token is not None:
        waba.access_token_encrypted = seal(secrets_key, body.access_token, associated_data=f"waba:{waba_id}")
    await session.flush()
    return waba


async def create_waba(session: AsyncSession, tenant_id: str, body: WabaCreate, *, secrets_key: bytes) -> Waba:
    """Register a WABA; its access token is sealed with the WABA id as associated data."""
    await tenancy.get_tenant(session, tenant_id)
    waba = Waba(
        tenant_id=tenant_id,
        waba_id=body.waba_id,
        messaging_tier=body.messaging_tier,
        access_token_encrypted=seal(secrets_key, body.access_token, associated_data=f"waba:{body.waba_id}"),
    )
    return await tenancy.add(session, waba, conflict_message=f"WABA {body.waba_id} is already registered")


async def create_phone_number(session: AsyncSession, tenant_id: str, body: PhoneNumberCreate) -> PhoneNumber:
    """Register a business phone number under one of the tenant's WABAs."""
    await tenancy.get_tenant(session, tenant_id)
    await tenancy.get_waba_for_tenant(session, tenant_id, body.waba_id)
    if body.customer_id is not None:
        await tenancy.get_customer(session, tenant_id, body.customer_id)
    phone = PhoneNumber(tenant_id=tenant_id, **body.model_dump())
    return await tenancy.add(
        session, phone, conflict_message=f"phone number {body.phone_number_id} is already registered"
    )
