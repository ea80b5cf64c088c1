"""POST /v1/messages/{id}/retry: send a failed message again, once.

The spec's guard: a retry request within 5 minutes of the previous one for the
same original is a 429 whose Retry-After is the time actually left. Past the
guard, duplicate retries of one original are deduplicated: while a retry of it
is queued or went through (sent, delivered, read), the answer is that retry
as it is now (200), and nothing is sent again; only when every retry failed
does a new one go out. A refused retry (paused customer, full queue, ...) does
not use up the guard.

Sandbox keys get the same answers, computed without writing anything: the
guard is read, never armed, so a sandbox rehearsal cannot block the live retry.
"""

from __future__ import annotations

from fastapi.responses import JSONResponse

from switchboard.api import sending
from switchboard.api.principal import Principal
from switchboard.api.state import AppState
from switchboard.domain.errors import RateLimited, ServiceError, ValidationFailed
from switchboard.domain.message_status import (
    FAILED,
    FAILED_TRANSIENT,
    RETRY_GUARD,
    can_retry,
    retry_wait_seconds,
)
from switchboard.models.base import utcnow
from switchboard.models.messages_api import MessagePublic
from switchboard.models.messaging import Message
from switchboard.store import messages
from switchboard.store.database import unit_of_work
from switchboard.store.scoping import get_owned


def _too_soon(wait_seconds: int) -> RateLimited:
    return RateLimited(
        f"this message was retried less than {int(RETRY_GUARD.total_seconds() // 60)} minutes ago",
        retry_after_seconds=wait_seconds,
        code="too_many_requests",
    )


def _existing(retry: Message) -> JSONResponse:
    return JSONResponse(
        MessagePublic.of(retry).model_dump(),
        status_code=200,
        headers={"Location": f"/v1/messages/{retry.id}"},
    )


async def retry(state: AppState, who: Principal, message_id: str) -> JSONResponse:
    """Retry a failed outbound message, or answer with the retry of it that is still alive."""
    now = utcnow()
    async with state.sessions() as session:
        original = await get_owned(session, Message, who.tenant_id, message_id, resource="message")
        if original.direction != "outbound" or not can_retry(original.status):
            raise ValidationFailed(
                f"only {FAILED} or {FAILED_TRANSIENT} messages can be retried; this one is {original.status}",
                code="MESSAGE_NOT_RETRYABLE",
                details={"field": "status", "value": original.status},
            )
        wait = retry_wait_seconds(original.last_retry_requested_at, now=now)
        if wait:
            raise _too_soon(wait)
        live = await messages.live_retry_of(session, original.id)
    if live is not None:
        return _existing(live)
    ctx = sending.SendContext(retry_of_message_id=original.id, source=original.source)
    if who.is_sandbox:
        return await sending.submit(state, who, original.payload, ctx)
    async with unit_of_work(state.sessions) as session:
        previous = await messages.claim_retry(session, original.id, now=now, guard=RETRY_GUARD)
    if previous is not None:
        # Another request got in between; it is creating (or created) the retry.
        raise _too_soon(max(1, retry_wait_seconds(previous, now=now)))
    try:
        return await sending.submit(state, who, original.payload, ctx)
    except ServiceError:
        async with unit_of_work(state.sessions) as session:
            await messages.release_retry(session, original.id)
        raise
