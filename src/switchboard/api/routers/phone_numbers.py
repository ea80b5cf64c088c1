"""The tenant's phone numbers."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from switchboard.api.deps import Caller, Session
from switchboard.api.pagination import Paging, envelope
from switchboard.api.routing import JsonRoute
from switchboard.models.tenancy import PhoneNumber
from switchboard.models.tenancy_api import PhoneNumberPublic
from switchboard.store.pagination import paginate
from switchboard.store.scoping import get_owned, owned

router = APIRouter(prefix="/v1/phone-numbers", tags=["phone numbers"], route_class=JsonRoute)


@router.get("")
async def list_phone_numbers(who: Caller, session: Session, paging: Paging) -> dict[str, Any]:
    """List the tenant's phone numbers."""
    stmt = owned(PhoneNumber, who.tenant_id).order_by(PhoneNumber.id)
    rows, total = await paginate(session, stmt, page=paging.page, per_page=paging.per_page)
    return envelope([PhoneNumberPublic.of(r) for r in rows], paging=paging, total=total)


@router.get("/{id}")
async def get_phone_number(id: str, who: Caller, session: Session) -> PhoneNumberPublic:
    """One phone record by its public id, including hidden_from_inbox."""
    return PhoneNumberPublic.of(
        await get_owned(session, PhoneNumber, who.tenant_id, id, resource="phone number")
    )
