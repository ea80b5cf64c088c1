"""Calls to the upstream channel (WhatsApp Cloud API wire format, CONTRACTS 4).

Permanent upstream failures are returned as values so the workflow decides
what to do next; retryable ones (429, 5xx, no answer) are raised with a
``next_retry_delay`` computed from the spec's backoff (1 s doubling, jitter,
60 s cap) or the upstream's own wait, so Temporal retries them durably.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from datetime import UTC, datetime, timedelta
from typing import NoReturn

from sqlalchemy.exc import SQLAlchemyError
from temporalio import activity
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from switchboard.activities.channel_client import (
    ChannelClient,
    ChannelProtocolError,
    ChannelRefused,
    ChannelUnreachable,
)
from switchboard.activities.deps import ActivityDeps
from switchboard.activities.sends import OutcomeRecorder
from switchboard.domain.failure_types import UPSTREAM_PROTOCOL, UPSTREAM_RETRYABLE
from switchboard.domain.throughput import slot_bucket
from switchboard.domain.upstream_errors import UpstreamFailure, retry_delay_seconds
from switchboard.models.send import (
    SendAttempt,
    SendAttemptResult,
    SendReport,
    SlotRequest,
    UpstreamFailureInfo,
)
from switchboard.models.tenancy import Waba
from switchboard.store import messages, rate_limits
from switchboard.store.database import reads_on_loop, write_turn

log = logging.getLogger("switchboard.channel")

# How long a send whose throughput slot could not be written (a database error) waits before its next try.
SLOT_RETRY_SECONDS = 1.0
# A try records its own success only within what is left of its timeout less this margin, and for at
# most RECORD_IN_TRY_MAX_SECONDS: a try that timed out after the upstream accepted would be sent again.
# The margin covers a busy event loop firing the record's timeout late, the rollback after it, and (for
# the regular activity, whose start time is the server's) clock skew.
RECORD_IN_TRY_MARGIN_SECONDS = 3.0
RECORD_IN_TRY_MAX_SECONDS = 5.0


def seconds_left(info: activity.Info, now: datetime) -> float:
    """Seconds until the current attempt's nearest timeout (start-to-close, schedule-to-close); 0 if none."""
    deadlines = []
    if info.start_to_close_timeout is not None:
        deadlines.append(info.started_time + info.start_to_close_timeout)
    if info.schedule_to_close_timeout is not None:
        deadlines.append(info.scheduled_time + info.schedule_to_close_timeout)
    if not deadlines:
        return 0.0
    return max(0.0, (min(deadlines) - now).total_seconds())


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


def raise_retryable(failure: UpstreamFailure, *, attempts_before: int = 0) -> NoReturn:
    """Hand a retryable failure to Temporal with our own backoff and jitter, after one log line.

    An upstream outage is expected, not a bug: the line says what failed, on which attempt and when
    the next try is, and the error is BENIGN so the SDK adds no traceback of its own.
    """
    attempt = activity.info().attempt + attempts_before
    delay = retry_delay_seconds(failure, attempt, rand=random.random()) or 1.0
    log.warning(
        "upstream call failed; retrying",
        extra={
            "code": failure.code,
            "upstream_status": failure.upstream_status,
            "upstream_code": failure.upstream_code,
            "attempt": attempt,
            "retry_in_seconds": round(delay, 1),
        },
    )
    raise ApplicationError(
        failure.error_message,
        failure_info(failure).model_dump(),
        type=UPSTREAM_RETRYABLE,
        next_retry_delay=timedelta(seconds=delay),
        category=ApplicationErrorCategory.BENIGN,
    )


async def waba_for(deps: ActivityDeps, waba_id: str) -> Waba:
    """The WABA row whose sealed token authenticates a call (sends and syncs carry only its id).

    A read on its own, so an autocommit session where there is one: one round trip, not three. Every
    live send's one read in the worker: on SQLite it runs on the event loop (``reads_on_loop``).
    """
    async with deps.statement_sessions() as session:
        with reads_on_loop(deps.statement_sessions):
            return await messages.waba_by_channel_id(session, waba_id)


def channel_client(deps: ActivityDeps) -> ChannelClient:
    """The upstream client on the activities' pooled HTTP client (its own timeouts apply)."""
    return ChannelClient(deps.http, deps.settings)


class ChannelActivities:
    """Sends and throughput slots."""

    def __init__(self, deps: ActivityDeps) -> None:
        self._deps = deps
        self.client = channel_client(deps)
        self._recorder = OutcomeRecorder(deps)

    @activity.defn(name="channel_send")
    async def send(self, attempt: SendAttempt) -> SendAttemptResult:
        """POST one Cloud API message; the upstream's id, or a permanent failure.

        With ``per_second``, one throughput slot of the phone's current second is taken first, in the
        same activity (one local activity per send instead of two); a full second sends nothing and
        answers how long to wait. With ``outcome_on_success``, a try the upstream accepted records the
        send as sent itself (the workflow then needs no ``record_send_outcome``).
        """
        if attempt.per_second is not None:
            try:
                wait = await self._take_slot(attempt.phone_number_id, attempt.per_second)
            except SQLAlchemyError as exc:
                # No slot, no send: going on unthrottled could burst past the tier. The workflow waits
                # and tries again, as the slot activity's own retries did before.
                log.warning(
                    "throughput slot not taken; the send waits",
                    extra={"message_id": attempt.message_id, "error": type(exc).__name__},
                )
                return SendAttemptResult(slot_wait_seconds=SLOT_RETRY_SECONDS)
            if wait > 0:
                return SendAttemptResult(slot_wait_seconds=wait)
        waba = await waba_for(self._deps, attempt.waba_id)
        try:
            body = await self.client.call(
                waba, "POST", f"{attempt.phone_number_id}/messages", json=attempt.body
            )
        except ChannelUnreachable as exc:
            raise_retryable(exc.failure, attempts_before=attempt.attempts_before)
        except ChannelProtocolError as exc:
            raise ApplicationError(str(exc), type=UPSTREAM_PROTOCOL) from exc
        except ChannelRefused as exc:
            if exc.failure.retryable:
                raise_retryable(exc.failure, attempts_before=attempt.attempts_before)
            log.info(
                "upstream refused send",
                extra={"message_id": attempt.message_id, "status": exc.status_code, "code": exc.failure.code},
            )
            return SendAttemptResult(failure=failure_info(exc.failure))
        sent = body.get("messages") if isinstance(body, dict) else None
        if not sent or not isinstance(sent[0], dict) or not sent[0].get("id"):
            raise ApplicationError("upstream accepted without a message id", type=UPSTREAM_PROTOCOL)
        wa_message_id = str(sent[0]["id"])
        return SendAttemptResult(
            wa_message_id=wa_message_id, report=await self._record_success(attempt, wa_message_id)
        )

    async def _record_success(self, attempt: SendAttempt, wa_message_id: str) -> SendReport | None:
        """The send recorded as sent by this try, or None to leave the record to ``record_send_outcome``.

        The upstream has the message now, so nothing here may raise or outlast the try's timeout:
        either would make the workflow try the send again. A record that fails or would run too long
        is left to the workflow's own record activity, which is idempotent (a record that committed
        before failing is only re-read there).
        """
        if attempt.outcome_on_success is None:
            return None
        left = seconds_left(activity.info(), datetime.now(UTC)) - RECORD_IN_TRY_MARGIN_SECONDS
        budget = min(left, RECORD_IN_TRY_MAX_SECONDS)
        if budget <= 0:
            return None
        outcome = attempt.outcome_on_success.model_copy(update={"wa_message_id": wa_message_id})
        try:
            async with asyncio.timeout(budget):
                return await self._recorder.record(outcome)
        except Exception as exc:  # noqa: BLE001 - any failure leaves the record to the workflow (above)
            error = type(exc).__name__
        except asyncio.CancelledError:
            # The worker is stopping past its grace period: answer the id rather than fail the try.
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            error = "CancelledError"
        log.warning(
            "send outcome not recorded by its try; the workflow records it",
            extra={"message_id": attempt.message_id, "error": error},
        )
        return None

    @activity.defn(name="channel_acquire_slot")
    async def acquire_slot(self, request: SlotRequest) -> float:
        """Take one send slot of the phone's current second; 0 when granted, else seconds to wait.

        Runs started before ``send-slot-with-first-try`` take their slot with this activity; later ones
        take it inside ``channel_send``.
        """
        return await self._take_slot(request.phone_number_id, request.per_second)

    async def _take_slot(self, phone_number_id: str, per_second: int) -> float:
        now = time.time()
        second = int(now)
        # The upsert is atomic by itself; on SQLite it takes its turn with the process's other writers.
        async with write_turn(self._deps.sessions), self._deps.one_statement() as conn:
            taken = await rate_limits.take(
                conn,
                slot_bucket(phone_number_id, second),
                limit=per_second,
                expires_at=datetime.fromtimestamp(second + 5, UTC),
            )
        return 0.0 if taken is not None else max(0.01, second + 1 - now)
