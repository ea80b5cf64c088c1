"""The channel's webhook endpoint: the verification handshake and signed event POSTs.

A POST is verified over its raw bytes (``X-Hub-Signature-256``, constant time)
before anything is parsed or stored; a bad or missing signature is a 401 and
nothing is kept. A verified body is handed to the ProcessInbound workflow
under an id derived from its SHA-256, so a redelivered payload is a no-op; once
Temporal has accepted the start, the payload is durable in the run's history
and the answer is 200 (the run itself stores the raw envelope for retention).
If Temporal cannot be reached, the body is stored in ``raw_inbound``
(insert-or-ignore) and committed before the 200, and the housekeeping sweeper
starts the run later. Either way no request waits on the database's writer
lock when Temporal is up, which keeps the answer fast under load.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, PlainTextResponse

from switchboard.activities.workflow_starts import start_inbound
from switchboard.api.deps import State
from switchboard.domain.errors import Forbidden, Unauthorized
from switchboard.domain.inbound import InvalidWebhookEnvelope, decode_body, payload_id
from switchboard.domain.signatures import HUB_SIGNATURE_HEADER, verify_hub_signature
from switchboard.models.base import utcnow
from switchboard.models.inbound import InboundPayload, inbound_payload
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


@router.post("/webhook")
async def receive_webhook(request: Request, state: State) -> JSONResponse:
    """Accept a signed channel webhook: hand it durably to its ProcessInbound run, then answer 200."""
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
    if payload.body is None:
        # Too large for a workflow input: store it first; ProcessInbound reads it by id.
        async with unit_of_work(state.sessions) as session:
            await store.store_raw_inbound(
                session, payload_id=payload.payload_id, body=text, received_at=payload.received_at
            )
    try:
        started = await asyncio.wait_for(
            start_inbound(state.temporal, payload, task_queue=state.settings.temporal_task_queue),
            timeout=HANDOVER_TIMEOUT_SECONDS,
        )
    except Exception:
        log.warning(
            "Temporal unreachable; inbound envelope stored for the sweeper",
            extra={"payload_id": payload.payload_id},
            exc_info=True,
        )
        async with unit_of_work(state.sessions) as session:
            stored = await store.store_raw_inbound(
                session, payload_id=payload.payload_id, body=text, received_at=payload.received_at
            )
        return _accepted(payload, duplicate=not stored)
    return _accepted(payload, duplicate=not started)


def _accepted(payload: InboundPayload, *, duplicate: bool) -> JSONResponse:
    # ``duplicate`` is informational: true when this exact body was already applied (or stored).
    return JSONResponse({"received": True, "payload_id": payload.payload_id, "duplicate": duplicate})
