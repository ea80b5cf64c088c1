"""Provisioning operations shared by the operator API and `switchboard admin`.

Each takes a session inside the caller's unit of work and returns rows; the
caller commits. Secrets (API keys, WABA tokens) are hashed or sealed here so
no caller can store them in clear by mistake.
"""

from __future__ import annotations

import os

from sqlalchemy.ext.asyncio import AsyncSession

from domain.api_keys import display_prefix, generate_key, hash_key
from domain.errors import Unprocessable
from domain.secrets_box import seal
from models.base import utcnow
from models.tenancy import ApiKey, Customer, PhoneNumber, Tenant, Waba
from models.tenancy_api import (
    ApiKeyCreate,
    CustomerCreate,
    CustomerUpdate,
    PhoneNumberCreate,
    TenantCreate,
    TenantUpdate,
    WabaCreate,
)
from store import tenancy


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
