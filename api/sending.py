"""The one send path: every outbound message (API, inbox reply, retry) goes through here.

Validation (the same for sandbox and live keys) happens before anything is
stored. A live send is persisted as ``queued`` together with its idempotency
lock, then handed to the SendMessage workflow; the caller waits up to
SEND_WAIT_SECONDS for the upstream's answer. If the upstream is slower than
that (down, throttled, or the phone's queue is long), the answer is 202 with
the queued message: the workflow keeps retrying durably and the outcome
arrives as a channel.message.sent/failed webhook (or by polling the message).
A replay of the same Idempotency-Key meanwhile gets 409 request_in_progress,
and the final 2xx once the workflow recorded it.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from fastapi.responses import JSONResponse
from temporalio.client import WorkflowFailureError
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.service import RPCError

from activities.send_input import send_input_for, tier_rates
from api.principal import Principal
from api.state import AppState
from domain.errors import Forbidden, InternalFailure, MissingRequiredField, RateLimited, ServiceError
from domain.phone import canonical_phone
from domain.send_payload import (
    MEDIA_TYPES,
    SendRequest,
    check_variable_count,
    ensure_template_sendable,
    parse_send_request,
    render_template_text,
    send_component_params,
)
from domain.templates import component_text
from models.base import iso_millis, new_id, utcnow
from models.messages_api import MessagePublic, sandbox_response
from models.messaging import Conversation, Message
from models.send import SendInput, SendResult
from models.tenancy import PhoneNumber
from store import idempotency, messages
from store.database import unit_of_work
from workflows.send_message import SendMessageWorkflow, workflow_id

log = logging.getLogger("switchboard.sending")

# While a send workflow owns an idempotency key, nobody may take it over.
WORKFLOW_LOCK = timedelta(days=3)
# A workflow start that takes longer than this means Temporal is unreachable.
START_TIMEOUT_SECONDS = 5.0


@dataclass(frozen=True)
class SendContext:
    source: str = "API"
    retry_of_message_id: str | None = None
    require_to: bool = False
    idempotency_key: str | None = None
    request_path: str = "/v1/messages"
    # Set by the inbox reply; otherwise found from the number and the recipient.
    conversation_id: str | None = None
    # The logged-in inbox agent who wrote a HUMAN_PORTAL reply.
    sent_by: str | None = None


def business_phone(phone: PhoneNumber) -> str | None:
    """The business number in canonical digits (the `from` of outbound messages)."""
    digits = "".join(ch for ch in phone.display_phone_number if ch.isdigit())
    return canonical_phone(digits) if digits else None


def content_summary(send: SendRequest, rendered_body: str | None) -> str | None:
    """A short human-readable content line for lists and inboxes."""
    if send.type == "text" and send.text:
        return send.text.body
    if send.type == "template" and send.template:
        return rendered_body or f"[template {send.template.name}]"
    if send.type in MEDIA_TYPES:
        media = getattr(send, send.type)
        return (media.caption if media and media.caption else None) or f"[{send.type}]"
    if send.type == "location" and send.location:
        return send.location.name or f"[location {send.location.latitude},{send.location.longitude}]"
    if send.type == "interactive" and send.interactive:
        return send.interactive.body.text
    if send.type == "reaction" and send.reaction:
        return send.reaction.emoji
    return f"[{send.type}]"


def _template_render(send: SendRequest, template_row: Any) -> str | None:
    if template_row is None or send.template is None:
        return None
    ensure_template_sendable(template_row.status, name=template_row.name, language=template_row.language)
    components = template_row.components or []
    check_variable_count(components, send.template, parameter_format=template_row.parameter_format)
    text = component_text(components, "BODY")
    return render_template_text(text, send_component_params(send.template, "body")) if text else None


def _json(result: SendResult, *, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(result.body, status_code=result.status_code, headers=headers)


async def submit(state: AppState, who: Principal, raw: Any, ctx: SendContext) -> JSONResponse:
    """Validate, then answer synthetically (sandbox) or send through the workflow (live)."""
    send = parse_send_request(raw)
    if ctx.require_to and send.to is None:
        raise MissingRequiredField("to", "to is required here: media uploads cannot be addressed by BSUID")
    if who.is_sandbox:
        # Sandbox sends pass exactly the checks a live send passes, then stop.
        async with state.sessions() as session:
            phone = await messages.phone_for_send(session, who.tenant_id, send.phone_number_id)
            await _prechecks(session, send, phone, tenant_id=who.tenant_id)
        return _sandbox(send)
    async with state.sessions() as session:
        phone = await messages.phone_for_send(session, who.tenant_id, send.phone_number_id)
    key = ctx.idempotency_key
    if key is not None:
        fingerprint = idempotency.fingerprint("POST", ctx.request_path, raw)
        async with unit_of_work(state.sessions) as session:
            claim = await idempotency.claim(
                session, tenant_id=who.tenant_id, key=key, fingerprint=fingerprint, now=utcnow()
            )
        if claim.is_replay:
            assert claim.replay_status is not None
            return JSONResponse(
                claim.replay_body, status_code=claim.replay_status, headers={"X-Idempotent-Replay": "true"}
            )
    try:
        request = await _persist(state, who, send, phone, ctx)
    except ServiceError:
        if key is not None:
            async with unit_of_work(state.sessions) as session:
                await idempotency.release(session, tenant_id=who.tenant_id, key=key)
        raise
    return await _run(state, request)


def _sandbox(send: SendRequest) -> JSONResponse:
    now = utcnow()
    suffix = new_id("x", at=now)[2:]
    body = sandbox_response(
        phone_number_id=send.phone_number_id,
        message_type=send.type,
        to_phone=canonical_phone(send.to) if send.to else None,
        recipient=send.recipient if not send.to else None,
        message_id=f"sandbox-{suffix}",
        wa_message_id=f"wamid.SANDBOX.{suffix}",
        created_at=iso_millis(now),
    )
    return JSONResponse(body, status_code=201)


async def _prechecks(session: Any, send: SendRequest, phone: PhoneNumber, *, tenant_id: str) -> str | None:
    """The rules checked before anything is stored (sandbox and live alike); the rendered template body."""
    if await messages.sending_paused(session, phone):
        raise Forbidden(
            "sending is paused for this phone number's customer", code="customer_sending_disabled"
        )
    if send.type != "template" or send.template is None:
        return None
    name, language = send.template.name, send.template.language.code
    template_row = await messages.find_template(session, waba_id=phone.waba_id, name=name, language=language)
    if template_row is None and await messages.template_elsewhere(
        session, tenant_id=tenant_id, name=name, language=language, not_waba_id=phone.waba_id
    ):
        raise Forbidden(
            f"template {name} ({language}) belongs to another WABA than this phone number's",
            code="TEMPLATE_NOT_IN_WABA",
            details={"field": "template.name"},
        )
    return _template_render(send, template_row)


async def _persist(
    state: AppState, who: Principal, send: SendRequest, phone: PhoneNumber, ctx: SendContext
) -> SendInput:
    settings = state.settings
    async with unit_of_work(state.sessions) as session:
        rendered = await _prechecks(session, send, phone, tenant_id=who.tenant_id)
        if await messages.queued_count(session, phone.phone_number_id) >= settings.send_queue_limit:
            raise RateLimited(
                f"more than {settings.send_queue_limit} messages are waiting on this phone number",
                retry_after_seconds=5,
                code="too_many_requests",
            )
        to_phone = canonical_phone(send.to) if send.to else None
        if ctx.conversation_id is not None:
            conversation = await session.get(Conversation, ctx.conversation_id)
        else:
            conversation = await messages.conversation_for(session, phone.phone_number_id, to_phone)
        now = utcnow()
        message = Message(
            id=new_id("msg", at=now),
            tenant_id=who.tenant_id,
            phone_number_id=phone.phone_number_id,
            direction="outbound",
            message_type=send.type,
            status=messages.QUEUED,
            to_phone=to_phone,
            from_phone=business_phone(phone),
            sent_by=ctx.sent_by,
            recipient_bsuid=send.recipient if to_phone is None else None,
            contact_id=conversation.contact_id if conversation else None,
            conversation_id=conversation.id if conversation else None,
            source=ctx.source,
            payload=send.model_dump(mode="json", exclude_none=True),
            content=content_summary(send, rendered),
            has_media=send.type in MEDIA_TYPES,
            rendered_body=rendered,
            retry_of_message_id=ctx.retry_of_message_id,
            idempotency_key=ctx.idempotency_key,
            created_at=now,
            occurred_at=now,
            status_updated_at=now,
        )
        session.add(message)
        if ctx.idempotency_key is not None:
            await idempotency.hold(
                session, tenant_id=who.tenant_id, key=ctx.idempotency_key, until=now + WORKFLOW_LOCK
            )
    return send_input_for(
        message,
        send,
        phone,
        rates=tier_rates(settings),
        retry_window_seconds=settings.send_retry_window_seconds,
    )


async def start_send(state: AppState, request: SendInput) -> Any:
    """Start (or attach to) the message's send workflow, and note that it exists."""
    handle = await asyncio.wait_for(
        state.temporal.start_workflow(
            SendMessageWorkflow.run,
            request,
            id=workflow_id(request.message_id),
            task_queue=state.settings.temporal_task_queue,
            id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
            id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        ),
        timeout=START_TIMEOUT_SECONDS,
    )
    async with unit_of_work(state.sessions) as session:
        await messages.mark_workflow_started(session, request.message_id, at=utcnow())
    return handle


async def _run(state: AppState, request: SendInput) -> JSONResponse:
    try:
        handle = await start_send(state, request)
    except (TimeoutError, RPCError, RuntimeError):
        # RuntimeError: the lazily connected client could not reach Temporal at all.
        # Temporal is unreachable: the message stays queued and the sweeper starts it later.
        log.warning("send workflow not started; left queued", extra={"message_id": request.message_id})
        return await _accepted(state, request.message_id)
    try:
        result: SendResult = await asyncio.wait_for(handle.result(), timeout=state.settings.send_wait_seconds)
    except (TimeoutError, RPCError):
        return await _accepted(state, request.message_id)
    except WorkflowFailureError as exc:
        log.error("send workflow failed", extra={"message_id": request.message_id}, exc_info=exc)
        raise InternalFailure(
            "the send failed inside the service; it is recorded and will be retried",
            details={"message_id": request.message_id},
        ) from exc
    return _json(result)


async def _accepted(state: AppState, message_id: str) -> JSONResponse:
    async with state.sessions() as session:
        message = await session.get(Message, message_id)
    assert message is not None
    return JSONResponse(
        MessagePublic.of(message).model_dump(),
        status_code=202,
        headers={"Location": f"/v1/messages/{message_id}"},
    )
