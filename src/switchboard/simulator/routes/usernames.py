"""``/{phone_number_id}/username`` and ``/username_suggestions``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from switchboard.simulator.graph_errors import invalid_parameter
from switchboard.simulator.routes.common import State, Token, json_body
from switchboard.simulator.usernames import set_username, suggestions

router = APIRouter()


@router.post("/{version}/{phone_number_id}/username")
async def post_username(
    phone_number_id: str, request: Request, state: State, _token: Token
) -> dict[str, Any]:
    """Set or reserve a business username; answers ``{"status": "approved" | "reserved"}``."""
    body = await json_body(request)
    if not isinstance(body, dict):
        raise invalid_parameter("The request body must be a JSON object.")
    record = set_username(state, phone_number_id, body.get("username"), body.get("transfer_action"))
    return {"status": record.status}


@router.get("/{version}/{phone_number_id}/username")
async def get_username(phone_number_id: str, state: State, _token: Token) -> dict[str, Any]:
    """The phone's username and status; ``{}`` when it has none."""
    record = state.usernames.get(phone_number_id)
    return {"username": record.username, "status": record.status} if record else {}


@router.delete("/{version}/{phone_number_id}/username")
async def delete_username(phone_number_id: str, state: State, _token: Token) -> dict[str, Any]:
    """Remove the phone's username."""
    state.usernames.pop(phone_number_id, None)
    return {"success": True}


@router.get("/{version}/{phone_number_id}/username_suggestions")
async def get_suggestions(phone_number_id: str, state: State, _token: Token) -> dict[str, Any]:
    """Username suggestions in Graph's ``data`` wrapper."""
    return {"data": [{"username_suggestions": suggestions(state, phone_number_id)}]}
