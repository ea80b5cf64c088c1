"""The tenant's customers; pausing sending is for owners and admins."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from switchboard.api.deps import Caller, OwnerOrAdmin, Session, State
from switchboard.api.pagination import Paging, envelope
from switchboard.api.routing import JsonRoute
from switchboard.models.tenancy import Customer
from switchboard.models.tenancy_api import CustomerPublic, CustomerUpdate
from switchboard.store import provisioning
from switchboard.store.database import unit_of_work
from switchboard.store.pagination import paginate
from switchboard.store.scoping import get_owned, owned

router = APIRouter(prefix="/v1/customers", tags=["customers"], route_class=JsonRoute)


@router.get("")
async def list_customers(who: Caller, session: Session, paging: Paging) -> dict[str, Any]:
    """List the tenant's customers."""
    stmt = owned(Customer, who.tenant_id).order_by(Customer.id)
    rows, total = await paginate(session, stmt, page=paging.page, per_page=paging.per_page)
    return envelope([CustomerPublic.of(r) for r in rows], paging=paging, total=total)


@router.get("/{customer_id}")
async def get_customer(customer_id: str, who: Caller, session: Session) -> CustomerPublic:
    """One customer."""
    return CustomerPublic.of(
        await get_owned(session, Customer, who.tenant_id, customer_id, resource="customer")
    )


@router.patch("/{customer_id}")
async def update_customer(
    customer_id: str, body: CustomerUpdate, who: OwnerOrAdmin, state: State
) -> CustomerPublic:
    """Pause or resume a customer's sending (owner or admin)."""
    async with unit_of_work(state.sessions) as session:
        customer = CustomerPublic.of(
            await provisioning.update_customer(session, who.tenant_id, customer_id, body)
        )
    # After the commit, so no sandbox send in between caches the old flag again (api/sandbox_phones.py).
    state.sandbox_phones.forget()
    return customer
