"""``/_sim``: the simulator's own control plane, for people and tests."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response
from pydantic import BaseModel

from switchboard.simulator.clock import now_s
from switchboard.simulator.config import SimPhoneNumber
from switchboard.simulator.envelopes import username_update_envelope
from switchboard.simulator.inbound import InboundRequest, build_inbound
from switchboard.simulator.routes.common import Poster, State
from switchboard.simulator.samples import samples
from switchboard.simulator.templates import STATUSES, set_template_status

router = APIRouter(prefix="/_sim", tags=["simulator"])


class TemplateStatusChange(BaseModel):
    """A new status for every template with the name (narrowed by language or WABA)."""

    status: str
    language: str | None = None
    waba_id: str | None = None
    reason: str | None = None


class UsernameStatusChange(BaseModel):
    """The outcome of an asynchronous username review."""

    status: Literal["approved", "reserved", "deleted"]


class PhoneNumberRegistration(BaseModel):
    """A business number's display form and WABA, used in webhook metadata."""

    phone_number_id: str
    display_phone_number: str
    waba_id: str | None = None


@router.get("/health")
async def health(state: State) -> dict[str, Any]:
    """Liveness plus where webhooks go."""
    config = state.config
    return {
        "status": "ok",
        "webhook_url": config.webhook_url,
        "api_version": config.api_version,
        "background_jobs": len(state.tasks),
    }


@router.post("/inbound")
async def inbound(body: InboundRequest, request: Request, state: State, poster: Poster) -> dict[str, Any]:
    """Play a customer: post a signed inbound message webhook to the service and answer its wamid."""
    try:
        envelope, record = build_inbound(state, body, base_url=str(request.base_url), now=now_s())
    except ValueError as exc:
        raise HTTPException(status_code=422, detail=str(exc)) from exc
    state.messages.append(record)
    delivery = await poster.post(envelope, kind="message", wamid=record.wamid)
    record.outcome = "delivered" if delivery.delivered else "dropped"
    return {
        "wamid": record.wamid,
        "delivered": delivery.delivered,
        "status_code": delivery.status_code,
        "attempts": delivery.attempts,
        "webhook": envelope,
    }


@router.get("/messages")
async def messages(
    state: State,
    phone_number_id: str | None = None,
    to: str | None = None,
    wamid: str | None = None,
    direction: Literal["inbound", "outbound"] | None = None,
) -> dict[str, Any]:
    """Everything sent to (and played through) the simulator, oldest first."""
    found = [
        asdict(record)
        for record in state.messages
        if (phone_number_id is None or record.phone_number_id == phone_number_id)
        and (to is None or record.to == to or record.wa_id == to)
        and (wamid is None or record.wamid == wamid)
        and (direction is None or record.direction == direction)
    ]
    return {"data": found}


@router.get("/webhooks")
async def webhooks(state: State, wamid: str | None = None, kind: str | None = None) -> dict[str, Any]:
    """Every webhook post the simulator made or gave up on, oldest first."""
    found = [
        asdict(record)
        for record in state.deliveries
        if (wamid is None or record.wamid == wamid) and (kind is None or record.kind == kind)
    ]
    return {"data": found}


@router.post("/templates/{name}/status")
async def template_status(
    name: str, change: TemplateStatusChange, state: State, poster: Poster
) -> dict[str, Any]:
    """Set a template's review outcome and post ``message_template_status_update`` for it."""
    status = change.status.upper()
    if status not in STATUSES:
        raise HTTPException(status_code=422, detail=f"status must be one of {', '.join(STATUSES)}")
    matches = [
        template
        for template in state.templates.values()
        if template.name == name
        and (change.language is None or template.language == change.language)
        and (change.waba_id is None or template.waba_id == change.waba_id)
    ]
    if not matches:
        raise HTTPException(status_code=404, detail=f"no template named {name}")
    for template in matches:
        await set_template_status(state, poster, template, status, reason=change.reason)
    return {"data": [template.public() for template in matches]}


@router.post("/usernames/{phone_number_id}/status")
async def username_status(
    phone_number_id: str, change: UsernameStatusChange, state: State, poster: Poster
) -> dict[str, Any]:
    """Finish (or undo) a username review and post ``business_username_updates``."""
    record = state.usernames.get(phone_number_id)
    if record is None:
        raise HTTPException(status_code=404, detail=f"phone number {phone_number_id} has no username")
    username = record.username
    if change.status == "deleted":
        del state.usernames[phone_number_id]
    else:
        record.status = change.status
    envelope = username_update_envelope(
        phone=state.phone(phone_number_id), username=username, status=change.status, now=now_s()
    )
    await poster.post(envelope, kind="business_username_updates", status=change.status)
    return {"username": username, "status": change.status}


@router.post("/phone-numbers")
async def register_phone_number(registration: PhoneNumberRegistration, state: State) -> dict[str, Any]:
    """Tell the simulator a business number's display form and WABA (used in webhook metadata)."""
    waba_id = registration.waba_id or state.config.default_waba_id
    state.phone_numbers[registration.phone_number_id] = SimPhoneNumber(
        registration.display_phone_number, waba_id
    )
    return {**registration.model_dump(), "waba_id": waba_id}


@router.get("/media/{name}")
async def sample_media(name: str) -> Response:
    """A small sample file (sample.jpg, .png, .webp, .pdf, .mp3, .mp4) for media sends offline."""
    sample = samples().get(name)
    if sample is None:
        raise HTTPException(status_code=404, detail=f"no sample named {name}; try {', '.join(samples())}")
    return Response(content=sample.content, media_type=sample.mime_type)


@router.post("/reset")
async def reset(state: State) -> dict[str, Any]:
    """Forget messages, media, templates, usernames, customers and trigger counters."""
    state.reset()
    return {"success": True}
