"""Messaging endpoints: send, list, read, retry, mark-read."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Header, Query
from fastapi.responses import JSONResponse

from switchboard.api import retrying, sending
from switchboard.api.deps import Caller, Session, State
from switchboard.api.pagination import Paging, envelope
from switchboard.api.routing import JsonRoute
from switchboard.api.time_filters import time_bound
from switchboard.api.upstream import mark_read_upstream
from switchboard.domain.errors import MissingRequiredField, ValidationFailed
from switchboard.domain.message_status import MessageStatus
from switchboard.domain.send_payload import MEDIA_TYPES
from switchboard.domain.send_payload.fields import refuse_unknown
from switchboard.domain.send_payload.mark_read import typing_indicator
from switchboard.models.messages_api import MessagePublic
from switchboard.models.messaging import Message
from switchboard.store import messages
from switchboard.store.scoping import get_owned

router = APIRouter(prefix="/v1/messages", tags=["messages"], route_class=JsonRoute)

IdempotencyKey = Annotated[str | None, Header(alias="Idempotency-Key", max_length=255)]


@router.post("", status_code=201, response_model=None)
async def send_message(
    state: State, who: Caller, body: Annotated[Any, Body()], idempotency_key: IdempotencyKey = None
) -> JSONResponse:
    """Send any message type (see the spec's Send payload); Idempotency-Key optional."""
    return await sending.submit(state, who, body, sending.SendContext(idempotency_key=idempotency_key))


@router.post("/media", status_code=201, response_model=None)
async def send_media_message(
    state: State, who: Caller, body: Annotated[Any, Body()], idempotency_key: IdempotencyKey = None
) -> JSONResponse:
    """Send an image, video, audio, document or sticker; `to` is required (no BSUID addressing)."""
    if isinstance(body, dict) and body.get("type") not in MEDIA_TYPES:
        raise ValidationFailed(
            f"type must be one of {', '.join(MEDIA_TYPES)}",
            code="INVALID_MESSAGE_TYPE",
            details={"field": "type"},
        )
    ctx = sending.SendContext(
        idempotency_key=idempotency_key, require_to=True, request_path="/v1/messages/media"
    )
    return await sending.submit(state, who, body, ctx)


@router.post("/mark-read")
async def mark_read(state: State, who: Caller, body: Annotated[dict[str, Any], Body()]) -> dict[str, Any]:
    """Mark an inbound message as read (idempotent; sandbox answers without an upstream call)."""
    phone_number_id = body.get("phone_number_id")
    wa_message_id = body.get("wa_message_id")
    for field, value in (("phone_number_id", phone_number_id), ("wa_message_id", wa_message_id)):
        if not isinstance(value, str) or not value:
            raise MissingRequiredField(field)
    typing = typing_indicator(body.get("typing_indicator"))
    refuse_unknown(body, {"phone_number_id", "wa_message_id", "typing_indicator"}, "")
    async with state.sessions() as session:
        phone = await messages.phone_for_send(session, who.tenant_id, str(phone_number_id))
    if who.is_sandbox:
        return {"success": True, "sandbox": True}
    await mark_read_upstream(state, phone, str(wa_message_id), typing_indicator=typing)
    return {"success": True}


@router.get("")
async def list_messages(
    who: Caller,
    session: Session,
    paging: Paging,
    phone_number_id: str | None = None,
    direction: Literal["inbound", "outbound"] | None = None,
    status: MessageStatus | None = None,
    since: Annotated[str | None, Query(description="ISO date or datetime; from this moment on")] = None,
    until: Annotated[str | None, Query(description="ISO date (the whole day included) or datetime")] = None,
    contact_phone: Annotated[str | None, Query(description="matches every form of the number")] = None,
    conversation_id: str | None = None,
) -> dict[str, Any]:
    """List messages, newest first, with the spec's filters."""
    filters = messages.MessageFilters(
        phone_number_id=phone_number_id,
        direction=direction,
        status=status,
        since=time_bound(since, field="since", end_of_day=False),
        until=time_bound(until, field="until", end_of_day=True),
        contact_phone=contact_phone,
        conversation_id=conversation_id,
    )
    rows, total = await messages.list_messages(
        session, who.tenant_id, filters, page=paging.page, per_page=paging.per_page
    )
    return envelope([MessagePublic.of(m) for m in rows], paging=paging, total=total)


@router.get("/{message_id}")
async def get_message(message_id: str, who: Caller, session: Session) -> MessagePublic:
    """One message with every field, including occurred_at and retry_of_message_id."""
    return MessagePublic.of(await get_owned(session, Message, who.tenant_id, message_id, resource="message"))


@router.post("/{message_id}/retry", status_code=201, response_model=None)
async def retry_message(message_id: str, state: State, who: Caller) -> JSONResponse:
    """Send a failed message again as a new message (only failed or failed_transient).

    A repeat within 5 minutes is 429 (Retry-After: the time left). Later repeats
    while a retry is queued or went through answer 200 with that retry, unchanged.
    """
    return await retrying.retry(state, who, message_id)
