"""Calls to the upstream channel (WhatsApp Cloud API wire format, CONTRACTS 4).

Permanent upstream failures are returned as values so the workflow decides
what to do next; retryable ones (429, 5xx, no answer) are raised with a
``next_retry_delay`` computed from the spec's backoff (1 s doubling, jitter,
60 s cap) or the upstream's own wait, so Temporal retries them durably.
"""

from __future__ import annotations

import logging
import random
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.deps import ActivityDeps
from domain.secrets_box import open_sealed
from domain.throughput import slot_bucket
from domain.upstream_errors import (
    UpstreamFailure,
    classify_transport_failure,
    classify_upstream_error,
    retry_delay_seconds,
)
from models.send import SendAttempt, SendAttemptResult, SlotRequest, UpstreamFailureInfo
from store import messages, rate_limits

log = logging.getLogger("switchboard.channel")


def failure_info(failure: UpstreamFailure) -> UpstreamFailureInfo:
    """The serializable part of a classified upstream failure."""
    return UpstreamFailureInfo(
        code=failure.code,
        status_code=failure.status_code,
        error_title=failure.error_title,
        error_message=failure.error_message,
        upstream_code=failure.upstream_code,
        retry_alternate_phone=failure.retry_alternate_phone,
    )


def raise_retryable(failure: UpstreamFailure) -> None:
    """Hand a retryable failure to Temporal with our own backoff and jitter."""
    delay = retry_delay_seconds(failure, activity.info().attempt, rand=random.random()) or 1.0
    raise ApplicationError(
        failure.error_message,
        failure_info(failure).model_dump(),
        type="UpstreamRetryable",
        next_retry_delay=timedelta(seconds=delay),
    )


class ChannelClient:
    """The upstream's HTTP API, authenticated with a WABA's sealed token."""

    def __init__(self, deps: ActivityDeps) -> None:
        self._deps = deps
        settings = deps.settings
        self.base = f"{settings.channel_api_base_url.rstrip('/')}/{settings.channel_api_version}"

    async def token(self, waba_id: str) -> str:
        async with self._deps.sessions() as session:
            waba = await messages.waba_by_channel_id(session, waba_id)
        return open_sealed(
            self._deps.settings.secrets_key_bytes,
            waba.access_token_encrypted,
            associated_data=f"waba:{waba_id}",
        )

    async def request(self, method: str, path: str, *, waba_id: str, **kwargs: Any) -> httpx.Response:
        """One authenticated call; transport failures raise retryable errors."""
        headers = {"Authorization": f"Bearer {await self.token(waba_id)}"}
        try:
            return await self._deps.http.request(
                method, f"{self.base}/{path.lstrip('/')}", headers=headers, **kwargs
            )
        except httpx.TimeoutException:
            raise_retryable(classify_transport_failure(timed_out=True))
        except httpx.TransportError:
            raise_retryable(classify_transport_failure(timed_out=False))
        raise AssertionError("unreachable")


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return {"error": {"message": response.text[:500]}}


class ChannelActivities:
    """Sends and throughput slots."""

    def __init__(self, deps: ActivityDeps) -> None:
        self._deps = deps
        self.client = ChannelClient(deps)

    @activity.defn(name="channel_send")
    async def send(self, attempt: SendAttempt) -> SendAttemptResult:
        """POST one Cloud API message; the upstream's id, or a permanent failure."""
        response = await self.client.request(
            "POST", f"{attempt.phone_number_id}/messages", waba_id=attempt.waba_id, json=attempt.body
        )
        body = _json(response)
        if response.is_success:
            messages = body.get("messages") if isinstance(body, dict) else None
            if not messages or not messages[0].get("id"):
                raise ApplicationError("upstream accepted without a message id", type="UpstreamProtocol")
            return SendAttemptResult(wa_message_id=str(messages[0]["id"]))
        failure = classify_upstream_error(response.status_code, body)
        log.info(
            "upstream refused send",
            extra={"message_id": attempt.message_id, "status": response.status_code, "code": failure.code},
        )
        if failure.retryable:
            raise_retryable(failure)
        return SendAttemptResult(failure=failure_info(failure))

    @activity.defn(name="channel_acquire_slot")
    async def acquire_slot(self, request: SlotRequest) -> float:
        """Take one send slot of the phone's current second; 0 when granted, else seconds to wait."""
        now = time.time()
        second = int(now)
        async with self._deps.engine.begin() as conn:
            taken = await rate_limits.take(
                conn,
                slot_bucket(request.phone_number_id, second),
                limit=request.per_second,
                expires_at=datetime.fromtimestamp(second + 5, UTC),
            )
        return 0.0 if taken is not None else max(0.01, second + 1 - now)
