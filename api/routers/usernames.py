"""Business usernames on a phone number (owner or admin only)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body

from api.deps import OwnerOrAdmin, State
from api.routing import JsonRoute
from api.upstream import raise_for_upstream, upstream_call
from domain.errors import MissingRequiredField
from domain.usernames import (
    username_error,
    username_request_body,
    username_status,
    validate_transfer_action,
    validate_username,
)
from models.base import utcnow
from models.tenancy import PhoneNumber
from store.database import unit_of_work
from store.scoping import get_owned

router = APIRouter(prefix="/v1/phone-numbers", tags=["phone numbers"], route_class=JsonRoute)


@router.post("/{phone_id}/username")
async def set_username(
    phone_id: str, state: State, who: OwnerOrAdmin, body: Annotated[dict[str, Any], Body()]
) -> dict[str, Any]:
    """Set or reserve the phone's business username; `approved`, or `reserved` while the upstream works."""
    if "username" not in body:
        raise MissingRequiredField("username")
    username = validate_username(body["username"])
    transfer_action = validate_transfer_action(body.get("transferAction", body.get("transfer_action")))
    async with state.sessions() as session:
        phone = await get_owned(session, PhoneNumber, who.tenant_id, phone_id, resource="phone number")
    if who.is_sandbox:
        return {"ok": True, "status": "approved", "username": username, "sandbox": True}
    response = await upstream_call(
        state,
        phone,
        "POST",
        f"{phone.phone_number_id}/username",
        json=username_request_body(username, transfer_action=transfer_action),
    )
    if not response.is_success:
        try:
            upstream = response.json().get("error", {})
        except ValueError:
            upstream = {}
        translated = username_error(upstream.get("code"), upstream_message=str(upstream.get("message", "")))
        if translated is not None:
            raise translated
        raise_for_upstream(response)
    status = username_status(response.json())
    async with unit_of_work(state.sessions) as session:
        row = await get_owned(session, PhoneNumber, who.tenant_id, phone_id, resource="phone number")
        row.username = username
        row.username_status = status
        row.updated_at = utcnow()
    return {"ok": True, "status": status, "username": username}
