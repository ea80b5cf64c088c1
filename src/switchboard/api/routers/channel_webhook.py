"""The channel's webhook endpoint: the verification handshake and signed event POSTs.

A POST is verified over its raw bytes (``X-Hub-Signature-256``, constant time)
before anything is parsed or stored; a bad or missing signature is a 401 and
nothing is kept. A verified body is applied here, item by item, and answered
200 only after the last commit: the channel redelivers what it got no 200 for,
and the ledger skips items already applied, so nothing is lost and nothing is
applied twice. This costs an inbound message no workflow of its own (the
workflows are the deliveries and agent turns it starts).

A ProcessInbound run (id from the body's SHA-256) takes over a body that is too
large to apply while the channel waits, or that the database refused during the
request: once Temporal has accepted the start, the body is durable in the run's
history. If Temporal cannot be reached, the body is stored in ``raw_inbound``
and committed before the 200, and the housekeeping sweeper starts the run
later. A run also picks up statuses that arrived before their message.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import PlainTextResponse

from switchboard.activities.workflow_starts import start_inbound
from switchboard.api.deps import State
from switchboard.api.state import AppState
from switchboard.domain.errors import Forbidden, Unauthorized
from switchboard.domain.inbound import InvalidWebhookEnvelope, decode_body, payload_id
from switchboard.domain.signatures import HUB_SIGNATURE_HEADER, verify_hub_signature
from switchboard.models.base import utcnow
from switchboard.models.inbound import InboundPayload, ReceiptSummary, WebhookReceipt, inbound_payload
from switchboard.store import inbound as store
from switchboard.store.database import unit_of_work

log = logging.getLogger("switchboard.inbound")

router = APIRouter(prefix="/channel", tags=["channel webhook"])

# Bounds the hand-over so the channel's request never waits on an unreachable Temporal.
HANDOVER_TIMEOUT_SECONDS = 3.0


@router.get("/webhook", response_class=PlainTextResponse)
async def verify_subscription(
    state: State,
    mode: Annotated[str | None, Query(alias="hub.mode")] = None,
    verify_token: Annotated[str | None, Query(alias="hub.verify_token")] = None,
    challenge: Annotated[str | None, Query(alias="hub.challenge")] = None,
) -> PlainTextResponse:
    """The channel's subscription handshake: echo hub.challenge when the verify token matches."""
    expected = state.settings.channel_verify_token
    if (
        mode != "subscribe"
        or not expected
        or verify_token is None
        or not hmac.compare_digest(verify_token.encode(), expected.encode())
    ):
        raise Forbidden("webhook verification failed", code="WEBHOOK_VERIFICATION_FAILED")
    return PlainTextResponse(challenge or "")


@router.post("/webhook", response_model=WebhookReceipt)
async def receive_webhook(request: Request, state: State) -> WebhookReceipt:
    """Accept a signed channel webhook: apply its items (or hand them durably to ProcessInbound), then answer 200."""
    body = await request.body()
    if not verify_hub_signature(
        body, request.headers.get(HUB_SIGNATURE_HEADER), state.settings.channel_app_secret
    ):
        raise Unauthorized(
            f"{HUB_SIGNATURE_HEADER} is missing or does not match the body", code="INVALID_SIGNATURE"
        )
    decode_body(body)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidWebhookEnvelope("webhook body must be UTF-8 JSON") from exc
    payload = inbound_payload(payload_id=payload_id(body), body=text, received_at=utcnow())
    if payload.body is None or not state.settings.inbound_apply_in_request:
        # A large body (a history chunk) could outlast the channel's patience if applied here.
        return await _hand_over(state, payload, text)
    try:
        summary, repeat = await state.inbound.apply_payload(payload, text, keep_deferred_for_sweeper=True)
    except Exception:
        # The database failed, or an item hit a bug: the items not applied would exist only at the
        # channel, which gives up after days. A run holds the body and retries until it applies.
        log.warning(
            "inbound payload not applied here; handed to ProcessInbound",
            extra={"payload_id": payload.payload_id},
            exc_info=True,
        )
        return await _hand_over(state, payload, text)
    if summary.deferred:
        # Statuses, edits or revokes that beat their message's commit wait on ProcessInbound's durable
        # timers. Their envelope is stored unstamped, so the sweeper starts the run if this start does not.
        if await _start_or_leave_to_sweeper(state, payload) is False:
            # A completed run already gave up on them (the channel redelivered the payload since).
            log.warning(
                "items for unknown messages dropped",
                extra={
                    "payload_id": payload.payload_id,
                    "kinds": [d.get("kind") for d in summary.deferred],
                    "wamids": [
                        d.get("original_wa_message_id") or d.get("wa_message_id") for d in summary.deferred
                    ],
                },
            )
    return WebhookReceipt(payload_id=payload.payload_id, duplicate=repeat, summary=ReceiptSummary.of(summary))


async def _start_or_leave_to_sweeper(state: AppState, payload: InboundPayload) -> bool | None:
    """Start the payload's ProcessInbound run; None when Temporal did not answer (the sweeper will)."""
    try:
        return await asyncio.wait_for(
            start_inbound(state.temporal, payload, task_queue=state.settings.temporal_task_queue),
            timeout=HANDOVER_TIMEOUT_SECONDS,
        )
    except Exception:
        log.warning(
            "Temporal unreachable; inbound envelope left for the sweeper",
            extra={"payload_id": payload.payload_id},
            exc_info=True,
        )
        return None


async def _hand_over(state: AppState, payload: InboundPayload, text: str) -> WebhookReceipt:
    """Make the body durable without applying it: in a ProcessInbound run's history, or stored for the sweeper."""
    stored = None
    if payload.body is None:
        # Too large for a workflow input: store it first; ProcessInbound reads it by id.
        stored = await _store(state, payload, text)
    started = await _start_or_leave_to_sweeper(state, payload)
    if started is None:
        if stored is None:
            stored = await _store(state, payload, text)
        return WebhookReceipt(payload_id=payload.payload_id, duplicate=not stored)
    return WebhookReceipt(payload_id=payload.payload_id, duplicate=not started)


async def _store(state: AppState, payload: InboundPayload, text: str) -> bool:
    """Keep the body in ``raw_inbound`` for a run or the sweeper; False when these bytes were stored before."""
    async with unit_of_work(state.sessions) as session:
        return await store.store_raw_inbound(
            session, payload_id=payload.payload_id, body=text, received_at=payload.received_at
        )
