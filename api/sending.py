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
from typing import Any

from fastapi.responses import JSONResponse
from temporalio.client import WorkflowFailureError
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.service import RPCError

from activities.outbound import SendContext, create_send, prechecks
from api.principal import Principal
from api.state import AppState
from domain.errors import InternalFailure, MissingRequiredField, ServiceError
from domain.phone import canonical_phone
from domain.send_payload import SendRequest, parse_send_request
from models.base import iso_millis, new_id, utcnow
from models.messages_api import MessagePublic, sandbox_response
from models.messaging import Message
from models.send import SendInput, SendResult
from store import idempotency, messages
from store.database import unit_of_work
from workflows.send_message import SendMessageWorkflow, workflow_id

__all__ = ["SendContext", "start_send", "submit"]

log = logging.getLogger("switchboard.sending")

# A workflow start that takes longer than this means Temporal is unreachable.
START_TIMEOUT_SECONDS = 5.0


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
            await prechecks(session, send, phone, tenant_id=who.tenant_id)
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
        request = await create_send(
            state.sessions, state.settings, tenant_id=who.tenant_id, send=send, phone=phone, ctx=ctx
        )
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
