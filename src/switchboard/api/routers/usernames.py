"""Business usernames on a phone number (owner or admin only)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body

from switchboard.activities.channel_client import ChannelError, ChannelRefused
from switchboard.api.deps import OwnerOrAdmin, State
from switchboard.api.routing import JsonRoute
from switchboard.api.upstream import channel, service_error, waba_of_phone
from switchboard.domain.errors import MissingRequiredField
from switchboard.domain.usernames import (
    username_error,
    username_request_body,
    username_status,
    validate_transfer_action,
    validate_username,
)
from switchboard.models.base import utcnow
from switchboard.models.tenancy import PhoneNumber
from switchboard.store.database import unit_of_work
from switchboard.store.scoping import get_owned

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
    waba = await waba_of_phone(state, phone)
    try:
        answer = await channel(state).call(
            waba,
            "POST",
            f"{phone.phone_number_id}/username",
            json=username_request_body(username, transfer_action=transfer_action),
        )
    except ChannelRefused as exc:
        upstream = exc.body.get("error", {}) if isinstance(exc.body, dict) else {}
        translated = username_error(upstream.get("code"), upstream_message=str(upstream.get("message", "")))
        raise (translated or service_error(exc)) from exc
    except ChannelError as exc:
        raise service_error(exc) from exc
    status = username_status(answer)
    async with unit_of_work(state.sessions) as session:
        row = await get_owned(session, PhoneNumber, who.tenant_id, phone_id, resource="phone number")
        row.username = username
        row.username_status = status
        row.updated_at = utcnow()
    return {"ok": True, "status": status, "username": username}
