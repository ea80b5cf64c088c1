"""Graph object ids: ``GET|DELETE /{media_id}``, ``GET|POST /{template_id}``, ``GET /{phone_number_id}``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from switchboard.simulator.clock import now_s
from switchboard.simulator.graph_errors import invalid_parameter, unknown_object
from switchboard.simulator.media import media_info
from switchboard.simulator.routes.common import State, Token, json_body
from switchboard.simulator.state import SimState

router = APIRouter()

_EDITABLE = ("APPROVED", "REJECTED", "PAUSED")


@router.get("/{version}/{object_id}")
async def get_object(object_id: str, request: Request, state: State, _token: Token) -> dict[str, Any]:
    """A media object's download info, a template, or a phone number's fields."""
    media = state.media.get(object_id)
    if media is not None:
        owner = request.query_params.get("phone_number_id")
        if owner and owner != media.phone_number_id:
            raise unknown_object(object_id)
        return media_info(state, media, base_url=str(request.base_url), now=now_s())
    template = state.templates.get(object_id)
    fields = _fields(request)
    if template is not None:
        return _select(template.public(), fields)
    if object_id in state.phone_numbers or fields:
        return _select(_phone_fields(state, object_id), fields)
    raise unknown_object(object_id)


@router.post("/{version}/{object_id}")
async def edit_object(object_id: str, request: Request, state: State, _token: Token) -> dict[str, Any]:
    """Edit a template's components or category (only APPROVED, REJECTED or PAUSED ones)."""
    template = state.templates.get(object_id)
    if template is None:
        raise unknown_object(object_id, method="post")
    body = await json_body(request)
    if not isinstance(body, dict):
        raise invalid_parameter("The request body must be a JSON object.")
    if template.status not in _EDITABLE:
        raise invalid_parameter(f"A template in status {template.status} cannot be edited.")
    if isinstance(body.get("components"), list):
        template.components = body["components"]
    if body.get("category"):
        template.category = str(body["category"]).upper()
    return {"success": True}


@router.delete("/{version}/{object_id}")
async def delete_object(object_id: str, request: Request, state: State, _token: Token) -> dict[str, Any]:
    """Delete an uploaded media object."""
    media = state.media.get(object_id)
    owner = request.query_params.get("phone_number_id")
    if media is None or (owner and owner != media.phone_number_id):
        raise unknown_object(object_id, method="delete")
    del state.media[object_id]
    return {"success": True}


def _fields(request: Request) -> list[str]:
    raw = request.query_params.get("fields", "")
    return [name.strip() for name in raw.split(",") if name.strip()]


def _select(values: dict[str, Any], fields: list[str]) -> dict[str, Any]:
    if not fields:
        return values
    return {key: values[key] for key in [*fields, "id"] if key in values}


def _phone_fields(state: SimState, phone_number_id: str) -> dict[str, Any]:
    phone = state.phone(phone_number_id)
    username = state.usernames.get(phone_number_id)
    values: dict[str, Any] = {
        "display_phone_number": phone.display_phone_number,
        "verified_name": "Switchboard Simulator",
        "quality_rating": "GREEN",
        "code_verification_status": "VERIFIED",
        "platform_type": "CLOUD_API",
        "throughput": {"level": "STANDARD"},
        "whatsapp_business_manager_messaging_limit": "TIER_2K",
        "id": phone_number_id,
    }
    if username is not None:
        values["username"] = username.username
    return values
