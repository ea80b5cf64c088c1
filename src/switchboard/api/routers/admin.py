"""Operator provisioning endpoints (CONTRACTS 3): X-Admin-Key alone."""

from __future__ import annotations

from fastapi import APIRouter, status

from switchboard.api.deps import Operator, Session, State
from switchboard.api.routing import JsonRoute
from switchboard.models.base import iso_millis, utcnow
from switchboard.models.tenancy_api import (
    ApiKeyCreate,
    ApiKeyCreated,
    ApiKeyRevoked,
    CustomerCreate,
    CustomerDeleted,
    CustomerPublic,
    CustomerUpdate,
    PhoneNumberCreate,
    PhoneNumberPublic,
    PhoneNumberUpdate,
    TenantCreate,
    TenantPublic,
    TenantUpdate,
    WabaCreate,
    WabaPublic,
    WabaUpdate,
)
from switchboard.store import provisioning, tenancy
from switchboard.store.database import unit_of_work

router = APIRouter(prefix="/v1/admin", tags=["operator"], route_class=JsonRoute)


@router.post("/tenants", status_code=status.HTTP_201_CREATED)
async def create_tenant(body: TenantCreate, _: Operator, session: Session) -> TenantPublic:
    """Create a tenant."""
    return TenantPublic.of(await provisioning.create_tenant(session, body))


@router.get("/tenants/{tenant_id}")
async def get_tenant(tenant_id: str, _: Operator, session: Session) -> TenantPublic:
    """Read a tenant."""
    return TenantPublic.of(await tenancy.get_tenant(session, tenant_id))


@router.patch("/tenants/{tenant_id}")
async def update_tenant(tenant_id: str, body: TenantUpdate, _: Operator, session: Session) -> TenantPublic:
    """Change plan, notification email, cost caps or (enterprise) custom rate limits."""
    return TenantPublic.of(await provisioning.update_tenant(session, tenant_id, body))


@router.post("/tenants/{tenant_id}/api-keys", status_code=status.HTTP_201_CREATED)
async def create_api_key(tenant_id: str, body: ApiKeyCreate, _: Operator, session: Session) -> ApiKeyCreated:
    """Issue a key; the key itself appears only in this response."""
    key, plaintext = await provisioning.create_api_key(session, tenant_id, body)
    return ApiKeyCreated(id=key.id, key=plaintext, mode=key.mode, role=key.role, tenant_id=tenant_id)


@router.delete("/api-keys/{key_id}")
async def revoke_api_key(key_id: str, _: Operator, state: State) -> ApiKeyRevoked:
    """Revoke a key; later use answers 401 EXPIRED_API_KEY."""
    async with unit_of_work(state.sessions) as session:
        key = await tenancy.revoke_key(session, key_id, at=utcnow())
    # Forgotten after the commit, so no request in between can cache the key as valid again.
    state.keys.forget(key.key_hash)
    if key.revoked_at is None:  # revoke_key always stamps it; a None here is a store bug
        raise RuntimeError(f"api key {key.id} was revoked without revoked_at")
    return ApiKeyRevoked(id=key.id, revoked=True, revoked_at=iso_millis(key.revoked_at))


@router.post("/tenants/{tenant_id}/customers", status_code=status.HTTP_201_CREATED)
async def create_customer(
    tenant_id: str, body: CustomerCreate, _: Operator, session: Session
) -> CustomerPublic:
    """Create a customer of the tenant."""
    return CustomerPublic.of(await provisioning.create_customer(session, tenant_id, body))


@router.patch("/tenants/{tenant_id}/customers/{customer_id}")
async def update_customer(
    tenant_id: str, customer_id: str, body: CustomerUpdate, _: Operator, state: State
) -> CustomerPublic:
    """Pause or resume a customer's sending."""
    async with unit_of_work(state.sessions) as session:
        customer = CustomerPublic.of(
            await provisioning.update_customer(session, tenant_id, customer_id, body)
        )
    # After the commit, so no sandbox send in between caches the old flag again (api/sandbox_phones.py).
    state.sandbox_phones.forget()
    return customer


@router.delete("/tenants/{tenant_id}/customers/{customer_id}")
async def delete_customer(tenant_id: str, customer_id: str, _: Operator, session: Session) -> CustomerDeleted:
    """Delete a customer and its contacts and conversations; 409 while it still owns phone numbers."""
    return await provisioning.delete_customer(session, tenant_id, customer_id)


@router.post("/tenants/{tenant_id}/wabas", status_code=status.HTTP_201_CREATED)
async def create_waba(
    tenant_id: str, body: WabaCreate, _: Operator, session: Session, state: State
) -> WabaPublic:
    """Register a WABA; the access token is stored encrypted and never returned."""
    waba = await provisioning.create_waba(
        session, tenant_id, body, secrets_key=state.settings.secrets_key_bytes
    )
    return WabaPublic.of(waba)


@router.patch("/tenants/{tenant_id}/wabas/{waba_id}")
async def update_waba(
    tenant_id: str, waba_id: str, body: WabaUpdate, _: Operator, session: Session, state: State
) -> WabaPublic:
    """Change a WABA's messaging tier or access token (by its channel id); the token is never returned."""
    waba = await provisioning.update_waba(
        session, tenant_id, waba_id, body, secrets_key=state.settings.secrets_key_bytes
    )
    return WabaPublic.of(waba)


@router.post("/tenants/{tenant_id}/phone-numbers", status_code=status.HTTP_201_CREATED)
async def create_phone_number(
    tenant_id: str, body: PhoneNumberCreate, _: Operator, session: Session
) -> PhoneNumberPublic:
    """Register a business phone number; its public `id` addresses /v1/phone-numbers/{id}."""
    return PhoneNumberPublic.of(await provisioning.create_phone_number(session, tenant_id, body))


@router.patch("/tenants/{tenant_id}/phone-numbers/{phone_id}")
async def update_phone_number(
    tenant_id: str, phone_id: str, body: PhoneNumberUpdate, _: Operator, session: Session
) -> PhoneNumberPublic:
    """Change a number's hidden_from_inbox or throughput_tier (by its public id)."""
    return PhoneNumberPublic.of(await provisioning.update_phone_number(session, tenant_id, phone_id, body))
