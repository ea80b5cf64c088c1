"""The one send path: every outbound message (API, inbox reply, retry) goes through here.

Validation (the same for sandbox and live keys) happens before anything is
stored. A live send is persisted as ``queued`` together with its idempotency
lock, then handed to the SendMessage workflow; the caller waits up to
SEND_WAIT_SECONDS for the upstream's answer. If the upstream is slower than
that (down, throttled, or the phone's queue is long), the answer is 202 with
the queued message: the workflow keeps retrying durably and the outcome
arrives as a channel.message.sent/failed webhook (or by polling the message).
A replay of the same Idempotency-Key meanwhile gets 409 request_in_progress,
and the final 2xx once the workflow recorded it. A send that ends in a 4xx or
5xx frees its key, whether it was refused before anything was stored, refused
by the upstream (the workflow frees it) or failed inside the service (the
workflow died without recording): a client retrying after a 500 is never
told 409 for a send that is no longer running. A send whose run died is
recorded ``failed_transient`` (``SEND_NOT_FINISHED``) at once, so the retry
endpoint sends it again instead of answering with a message left queued.

Sandbox keys honour Idempotency-Key the same way, in their own key space; the
stored 201 is the only thing a sandbox send persists.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from fastapi.responses import JSONResponse
from sqlalchemy.exc import SQLAlchemyError
from temporalio.client import WorkflowFailureError, WorkflowHandle
from temporalio.service import RPCError

from switchboard.activities import workflow_starts
from switchboard.activities.outbound import SendContext, create_send, sandbox_checks
from switchboard.activities.sends import OutcomeRecorder, send_not_finished
from switchboard.api.principal import Principal
from switchboard.api.state import AppState
from switchboard.domain.error_body import error_body
from switchboard.domain.errors import InternalFailure, MissingRequiredField
from switchboard.domain.failure_types import UPSTREAM_REJECTED_CODE
from switchboard.domain.phone import canonical_phone
from switchboard.domain.send_payload import SendRequest, parse_send_request
from switchboard.models.base import iso_millis, new_id, utcnow
from switchboard.models.messages_api import MessagePublic, sandbox_response
from switchboard.models.messaging import Message
from switchboard.models.send import SendInput, SendOutcome, SendReport
from switchboard.models.tenancy import PhoneNumber
from switchboard.store import idempotency, messages
from switchboard.store.database import reads_on_loop, unit_of_work

__all__ = ["SendContext", "start_send", "submit"]

log = logging.getLogger("switchboard.sending")

# A workflow start that takes longer than this means Temporal is unreachable.
START_TIMEOUT_SECONDS = 5.0


def send_answer(report: SendReport) -> JSONResponse:
    """The spec's answer to a send that ended: 201 with the message, or the failure's 4xx/5xx body.

    A failure is answered, not raised: the message exists (``message_id``) and
    callers such as the retry endpoint keep their guard for it.
    """
    if report.failure is None:
        if report.sent is None:
            raise InternalFailure(
                "the send ended without an outcome", details={"message_id": report.message_id}
            )
        return JSONResponse(report.sent.model_dump(), status_code=201)
    failure = report.failure
    # An upstream refusal without a code of its own (an HTML error page, say) still answers one.
    body = error_body(failure.status_code, failure.error_message, code=failure.code or UPSTREAM_REJECTED_CODE)
    body["error_message"] = failure.error_message
    body["message_id"] = report.message_id
    return JSONResponse(body, status_code=failure.status_code)


async def submit(state: AppState, who: Principal, raw: Any, ctx: SendContext) -> JSONResponse:
    """Validate, then answer synthetically (sandbox) or send through the workflow (live)."""
    send = parse_send_request(raw)
    if ctx.require_to and send.to is None:
        raise MissingRequiredField("to", "to is required here: media uploads cannot be addressed by BSUID")
    scope = idempotency.scope(who.tenant_id, sandbox=who.is_sandbox)
    key = ctx.idempotency_key
    # One read by the number's key, every send's first: a live send's also counts the number's queue
    # (bounded by SEND_QUEUE_LIMIT) and finds its recipient's conversation, on a bare connection (on
    # SQLite on the event loop). A sandbox send's checks use only the number's owner and its customer's
    # pause flag, which this process keeps for a few seconds (api/sandbox_phones.py).
    if who.is_sandbox:
        phone, facts = await state.sandbox_phones.sending_phone(who.tenant_id, send.phone_number_id)
    else:
        to_phone = canonical_phone(send.to) if send.to else None
        async with state.autocommit_engine.connect() as connection:
            with reads_on_loop(state.autocommit_engine):
                phone, facts = await messages.sending_phone(
                    connection,
                    who.tenant_id,
                    send.phone_number_id,
                    count_queued=True,
                    to_phone=to_phone,
                    bsuid=send.recipient if not to_phone else None,
                )
    if who.is_sandbox and key is None:
        # Nothing to claim or replay.
        await sandbox_checks(state.autocommit, send, phone, tenant_id=who.tenant_id, facts=facts)
        return JSONResponse(_sandbox_body(send, retry_of_message_id=ctx.retry_of_message_id), status_code=201)
    if key is not None:
        replay = await _claim(state, scope, key, idempotency.fingerprint("POST", ctx.request_path, raw))
        if replay is not None:
            return replay
    if who.is_sandbox:
        return await _sandbox(state, who, send, phone, ctx, scope=scope, facts=facts)
    try:
        request = await create_send(
            state.sessions,
            state.settings,
            tenant_id=who.tenant_id,
            send=send,
            phone=phone,
            ctx=ctx,
            temporal=state.temporal,
            facts=facts,
            autocommit=state.autocommit_engine,
        )
    except Exception:
        # Refused or broken before anything was stored: nobody else will ever free the key.
        await _release(state, scope, key)
        raise
    try:
        return await _run(state, request)
    except InternalFailure:
        # The workflow ended without recording an outcome, so it will never complete the key.
        await _release(state, scope, key)
        raise


async def _claim(state: AppState, scope: str, key: str, fingerprint: str) -> JSONResponse | None:
    """Own the key (None), or the stored 2xx to replay; 409/422 raised by the claim."""
    async with unit_of_work(state.sessions) as session:
        claim = await idempotency.claim(
            session, tenant_id=scope, key=key, fingerprint=fingerprint, now=utcnow()
        )
    if not claim.is_replay:
        return None
    if claim.replay_status is None:
        raise InternalFailure("a stored idempotent response has no status", details={"key": key})
    return JSONResponse(
        claim.replay_body, status_code=claim.replay_status, headers={"X-Idempotent-Replay": "true"}
    )


async def _release(state: AppState, scope: str, key: str | None) -> None:
    if key is not None:
        async with unit_of_work(state.sessions) as session:
            await idempotency.release(session, tenant_id=scope, key=key)


async def _sandbox(
    state: AppState,
    who: Principal,
    send: SendRequest,
    phone: PhoneNumber,
    ctx: SendContext,
    *,
    scope: str,
    facts: messages.PhoneFacts,
) -> JSONResponse:
    """Pass exactly the checks a live send passes, then answer synthetically; only the key's 201 is stored."""
    try:
        await sandbox_checks(state.autocommit, send, phone, tenant_id=who.tenant_id, facts=facts)
        body = _sandbox_body(send, retry_of_message_id=ctx.retry_of_message_id)
        if ctx.idempotency_key is not None:
            async with unit_of_work(state.sessions) as session:
                await idempotency.complete(
                    session, tenant_id=scope, key=ctx.idempotency_key, status=201, body=body, now=utcnow()
                )
    except Exception:
        await _release(state, scope, ctx.idempotency_key)
        raise
    return JSONResponse(body, status_code=201)


def _sandbox_body(send: SendRequest, *, retry_of_message_id: str | None) -> dict[str, Any]:
    now = utcnow()
    suffix = new_id("x", at=now)[2:]
    return sandbox_response(
        phone_number_id=send.phone_number_id,
        message_type=send.type,
        to_phone=canonical_phone(send.to) if send.to else None,
        recipient=send.recipient if not send.to else None,
        message_id=f"sandbox-{suffix}",
        wa_message_id=f"wamid.SANDBOX.{suffix}",
        created_at=iso_millis(now),
        retry_of_message_id=retry_of_message_id,
    )


async def start_send(state: AppState, request: SendInput) -> WorkflowHandle[Any, SendReport]:
    """Start (or attach to) the message's send workflow, eagerly in this process where it may.

    While the API's worker runs (api/delivery_worker.py), a send without a media link starts through
    its client and asks for an eager start: its first workflow task, with the upstream try and the
    record, runs here. Beyond the worker's slots, or without it, the server queues it for the worker
    processes. A media send's first step is a regular activity, which this worker does not run.
    """
    eager = state.delivery_client is not None and request.media_link is None
    client = state.delivery_starter if eager else state.temporal
    return await asyncio.wait_for(
        workflow_starts.start_send(
            client, request, task_queue=state.settings.temporal_task_queue, eager=eager
        ),
        timeout=START_TIMEOUT_SECONDS,
    )


async def note_started(state: AppState, message_id: str) -> None:
    """Note that a queued message's send workflow exists, so the sweeper leaves it alone.

    Needed only while the message may stay queued: a send whose outcome came back within the
    wait is recorded (sent or failed) and never swept, so it is not noted (an UPDATE fewer, about
    an eighth of a live send's API CPU). An API that dies during the wait leaves a running send
    un-noted; the sweeper's start then joins it (workflow ids derive from message ids) and notes it.
    """
    try:
        async with state.autocommit() as session:  # one UPDATE: atomic by itself
            await messages.mark_workflow_started(session, message_id, at=utcnow())
    except Exception:  # best effort, logged: any failure (a driver's bare OSError too)
        # The workflow exists and will send: failing the request now would invite a duplicate send.
        # The mark only spares the sweeper a start, and its start joins a running or finished send.
        log.warning("send workflow started but not noted", extra={"message_id": message_id}, exc_info=True)


async def _run(state: AppState, request: SendInput) -> JSONResponse:
    try:
        handle = await start_send(state, request)
    except (TimeoutError, RPCError, RuntimeError):
        # RuntimeError: the lazily connected client could not reach Temporal at all.
        # Temporal is unreachable: the message stays queued and the sweeper starts it later.
        log.warning("send workflow not started; left queued", extra={"message_id": request.message_id})
        return await _accepted(state, request.message_id)
    try:
        report: SendReport = await asyncio.wait_for(handle.result(), timeout=state.settings.send_wait_seconds)
    except (TimeoutError, RPCError):
        # The send goes on after this answer: the message may stay queued for a while.
        await note_started(state, request.message_id)
        return await _accepted(state, request.message_id)
    except WorkflowFailureError as exc:
        log.error("send workflow failed", extra={"message_id": request.message_id}, exc_info=exc)
        await settle_not_finished(state, request)
        raise InternalFailure(
            "the send failed inside the service; retry with backoff (an Idempotency-Key is free again)",
            details={"message_id": request.message_id},
        ) from exc
    if report.sent is None and report.failure is None:
        await settle_not_finished(state, request)  # send_answer refuses it: as a failed workflow
    return send_answer(report)


async def settle_not_finished(state: AppState, request: SendInput) -> None:
    """Record a send whose run closed without an outcome ``failed_transient`` (``SEND_NOT_FINISHED``).

    The run is over (failed, terminated, or ended empty-handed), so nothing else would move the
    message: left ``queued`` it would count towards its phone's queue, and a retry of its original
    would answer with it instead of sending, although the 500 tells the client to retry. Recorded
    as the queued-send sweep records a run nobody saw end: the event, the released key, a message
    that may be retried. A message the run did settle is left as it is. If the record fails, the
    send is noted instead, so that the sweep settles it later rather than sending it again.
    """
    outcome = SendOutcome(
        message_id=request.message_id,
        tenant_id=request.tenant_id,
        idempotency_key=request.idempotency_key,
        failure=send_not_finished(),
        transient=True,
    )
    try:
        await OutcomeRecorder(state).record(outcome)
    except Exception:  # logged; the sweep settles a noted send once no run can still be going
        log.warning(
            "a send whose run ended was not recorded; left to the sweep",
            extra={"message_id": request.message_id},
            exc_info=True,
        )
        await note_started(state, request.message_id)


async def _accepted(state: AppState, message_id: str) -> JSONResponse:
    """The 202 for a send whose workflow goes on: its message as stored now.

    The workflow may already be sending, so a failed read must not turn into a
    500 that an un-keyed client would answer by sending again: it is read once
    more (a dead pooled connection has by then been replaced).
    """
    for attempt in (1, 2):
        try:
            async with state.autocommit() as session:
                message = await session.get(Message, message_id)
            break
        except SQLAlchemyError:
            if attempt == 2:
                raise
            log.warning("queued message read failed; reading again", extra={"message_id": message_id})
    if message is None:
        # Stored before the workflow started, and messages are never deleted while queued.
        raise InternalFailure("the queued message is gone", details={"message_id": message_id})
    return JSONResponse(
        MessagePublic.of(message).model_dump(),
        status_code=202,
        headers={"Location": f"/v1/messages/{message_id}"},
    )
