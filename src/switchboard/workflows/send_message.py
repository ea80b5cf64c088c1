"""One outbound message, from queued to sent or failed, durably.

Steps: prepare link media (download once, upload), send, and on a 131030
(recipient number format) send once more with the alternate phone form; then
record the outcome. Every step survives a worker crash: the workflow resumes
where it was and the message is sent, not lost. The first try of the upstream
call is a local activity (no task-queue round trip) that first takes a
throughput slot of the phone's current second, and sends nothing when the
second is full (the workflow then waits on a timer and tries again: queueing
when over the tier). Most sends end there; a retryable failure or a timeout
hands the rest of the retry window to the regular activity, whose durable
retries run for up to a day. A try the upstream accepted records the send as
sent itself (one local activity for a send answered first time); every other
outcome, or a success whose record failed, is recorded by a local activity of
its own, a short idempotent write to our own database.

The result is a typed ``SendReport`` (the message as sent, or why it failed);
the API renders the spec's answer from it. Histories recorded before that type
hold a rendered ``{status_code, body}`` as the outcome activity's result;
``SendReport`` reads that shape too (see ``tests/workflows/test_send_replay.py``),
so the command sequence is unchanged and no ``workflow.patched`` is needed.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError, RetryState
from temporalio.exceptions import TimeoutError as TemporalTimeout
from temporalio.workflow import ActivityConfig

from switchboard.workflows.policies import LOCAL_WRITE, MEDIA_TRANSFER, UPSTREAM_SEND, UPSTREAM_SEND_FIRST

with workflow.unsafe.imports_passed_through():
    from switchboard.activities.channel import ChannelActivities
    from switchboard.activities.media import MediaActivities
    from switchboard.activities.sends import SendRecordActivities
    from switchboard.domain.failure_types import (
        UPSTREAM_PROTOCOL,
        UPSTREAM_PROTOCOL_ERROR_CODE,
        UPSTREAM_RETRYABLE,
        UPSTREAM_UNAVAILABLE_CODE,
    )
    from switchboard.domain.send_payload.cloud_body import with_media_body
    from switchboard.domain.workflow_names import SEND_WORKFLOW
    from switchboard.models.send import (
        MediaPrepare,
        SendAttempt,
        SendAttemptResult,
        SendInput,
        SendOutcome,
        SendReport,
        SlotRequest,
        UpstreamFailureInfo,
    )


# Runs started before the first try was a local activity replay it as the regular one.
LOCAL_FIRST_ATTEMPT = "send-local-first-attempt"
# Runs started before the first try took the throughput slot itself replay a local activity of its
# own for the slot (channel_acquire_slot) before it.
SLOT_WITH_FIRST_TRY = "send-slot-with-first-try"
# Runs whose accepted try was recorded before tries recorded their own success (their try's result holds
# no report) call record_send_outcome after it; so do later runs whose try could not record.
OUTCOME_IN_TRY = "send-outcome-in-try"
# Runs started before a media link that kept failing was recorded as a failed send ended as failed runs
# (their message stayed queued); replaying their history still fails them.
MEDIA_GIVE_UP_RECORDED = "send-media-give-up-recorded"


# Outside the sandbox, like DeliverWebhook: one run per send, and the sandbox's fresh import of this
# module for each run was about a fifth of the worker's CPU per send. The code calls only workflow APIs
# and pure functions; tests/workflows/sandboxed_twins.py replays its recorded histories inside the
# sandbox, so a restricted call added here still fails the tests (docs/decisions/0002-workflow-sandbox-cost.md).
@workflow.defn(name=SEND_WORKFLOW, sandboxed=False)
class SendMessageWorkflow:
    """Sends one message and records its outcome."""

    @workflow.run
    async def run(self, request: SendInput) -> SendReport:
        body = request.body
        if request.media_link and request.media_type:
            try:
                prepared = await workflow.execute_activity_method(
                    MediaActivities.prepare_link,
                    MediaPrepare(
                        tenant_id=request.tenant_id,
                        phone_number_id=request.phone_number_id,
                        waba_id=request.waba_id,
                        link=request.media_link,
                        media_type=request.media_type,
                    ),
                    **MEDIA_TRANSFER,
                )
            except ActivityError:
                # The link's download or its upload kept failing for MEDIA_TRANSFER's whole window. A
                # failed run would leave the message queued until the queued-send sweep settles it a day
                # later, so it is recorded now as a send the upstream side never took: failed_transient,
                # which the client may retry.
                if not workflow.patched(MEDIA_GIVE_UP_RECORDED):
                    raise
                return await self._record(request, failure=_media_unavailable(), transient=True)
            if prepared.failure is not None or prepared.media_id is None:
                return await self._record(request, failure=prepared.failure)
            body = with_media_body(body, request.media_type, prepared.media_id)
        result = await self._send(request, body)
        if (recorded := _recorded_by_try(result)) is not None:
            return recorded
        sent_to = None
        if result.failure is not None and result.failure.retry_alternate_phone and request.alternate_to:
            sent_to = request.alternate_to
            result = await self._send(request, {**body, "to": "+" + request.alternate_to}, sent_to=sent_to)
            if (recorded := _recorded_by_try(result)) is not None:
                return recorded
        transient = result.failure is not None and result.failure.code == UNAVAILABLE
        return await self._record(
            request,
            wa_message_id=result.wa_message_id,
            failure=result.failure,
            sent_to=sent_to,
            transient=transient,
        )

    async def _send(self, request: SendInput, body: dict, *, sent_to: str | None = None) -> SendAttemptResult:
        attempt = SendAttempt(
            message_id=request.message_id,
            tenant_id=request.tenant_id,
            phone_number_id=request.phone_number_id,
            waba_id=request.waba_id,
            body=body,
            outcome_on_success=_outcome(request, sent_to=sent_to),
        )
        # The retry window comes with the request (SEND_RETRY_WINDOW_SECONDS), not from the policy.
        window = timedelta(seconds=request.retry_window_seconds)
        if workflow.patched(SLOT_WITH_FIRST_TRY):
            # The first try takes the phone's throughput slot itself: one local activity, not two.
            while True:
                started = workflow.now()
                first = await self._first_try(attempt.model_copy(update={"per_second": request.per_second}))
                if first is None or first.slot_wait_seconds is None:
                    break
                await self._slot_pause(first.slot_wait_seconds)
        else:
            if request.per_second is not None:
                await self._wait_for_slot(request.phone_number_id, request.per_second)
            if not workflow.patched(LOCAL_FIRST_ATTEMPT):
                return await self._regular_tries(attempt, window)
            started = workflow.now()
            first = await self._first_try(attempt)
        if first is not None:
            return first
        window -= workflow.now() - started
        if window <= timedelta(0):
            return SendAttemptResult(failure=_unavailable())
        attempt.attempts_before = 1
        return await self._regular_tries(attempt, window)

    async def _first_try(self, attempt: SendAttempt) -> SendAttemptResult | None:
        """The first upstream try, a local activity; None when it failed and the regular tries go on.

        A try the upstream refused for good, or answered in a way we cannot use, is a result. A
        retryable failure, no answer in time, or our own failure waits what the try asked for (the
        upstream's Retry-After or the first backoff step), and then the regular activity retries for
        the rest of the window.
        """
        try:
            return await workflow.execute_local_activity_method(
                ChannelActivities.send, attempt, **UPSTREAM_SEND_FIRST
            )
        except (ActivityError, ApplicationError, TemporalTimeout) as err:
            # A local activity's failure may arrive as its cause itself, not wrapped in ActivityError.
            cause = err.cause if isinstance(err, ActivityError) else err
            if isinstance(cause, ApplicationError) and cause.type == UPSTREAM_PROTOCOL:
                return SendAttemptResult(failure=_protocol_error(str(cause)))
            delay = cause.next_retry_delay if isinstance(cause, ApplicationError) else None
            await workflow.sleep(delay or timedelta(seconds=1))
            return None

    async def _regular_tries(self, attempt: SendAttempt, window: timedelta) -> SendAttemptResult:
        """The regular activity's durable retries for the rest of the window (they take no slots)."""
        options: ActivityConfig = {**UPSTREAM_SEND, "schedule_to_close_timeout": window}
        try:
            return await workflow.execute_activity_method(ChannelActivities.send, attempt, **options)
        except ActivityError as err:
            # Retries ran out (the retry window passed: the last failure was a retryable one or a
            # timeout), or the upstream broke protocol (non-retryable).
            cause = err.cause
            exhausted = (
                err.retry_state == RetryState.TIMEOUT
                or isinstance(cause, TemporalTimeout)
                or (isinstance(cause, ApplicationError) and cause.type == UPSTREAM_RETRYABLE)
            )
            return SendAttemptResult(failure=_unavailable() if exhausted else _protocol_error(str(cause)))

    async def _wait_for_slot(self, phone_number_id: str, per_second: int) -> None:
        while True:
            wait = await workflow.execute_local_activity_method(
                ChannelActivities.acquire_slot,
                SlotRequest(phone_number_id=phone_number_id, per_second=per_second),
                **LOCAL_WRITE,
            )
            if wait <= 0:
                return
            await self._slot_pause(wait)

    @staticmethod
    async def _slot_pause(wait: float) -> None:
        # Jitter spreads queued sends over the next second instead of a thundering herd.
        await workflow.sleep(timedelta(seconds=wait + workflow.random().random() * 0.2))

    async def _record(
        self,
        request: SendInput,
        *,
        wa_message_id: str | None = None,
        failure: UpstreamFailureInfo | None = None,
        sent_to: str | None = None,
        transient: bool = False,
    ) -> SendReport:
        outcome = _outcome(
            request, wa_message_id=wa_message_id, failure=failure, sent_to=sent_to, transient=transient
        )
        return await workflow.execute_local_activity_method(
            SendRecordActivities.record_outcome, outcome, **LOCAL_WRITE
        )


def _outcome(
    request: SendInput,
    *,
    wa_message_id: str | None = None,
    failure: UpstreamFailureInfo | None = None,
    sent_to: str | None = None,
    transient: bool = False,
) -> SendOutcome:
    return SendOutcome(
        message_id=request.message_id,
        tenant_id=request.tenant_id,
        idempotency_key=request.idempotency_key,
        wa_message_id=wa_message_id,
        failure=failure,
        sent_to=sent_to,
        transient=transient,
    )


def _recorded_by_try(result: SendAttemptResult) -> SendReport | None:
    """The report of a try that recorded the send itself (the run ends with it), else None.

    The patch is asked only when the try's result holds a report: a history recorded before the patch
    holds none and goes on to record_send_outcome, as it did.
    """
    if result.report is not None and workflow.patched(OUTCOME_IN_TRY):
        return result.report
    return None


UNAVAILABLE = UPSTREAM_UNAVAILABLE_CODE


def _unavailable() -> UpstreamFailureInfo:
    return UpstreamFailureInfo(
        code=UNAVAILABLE,
        status_code=503,
        error_title="Upstream unavailable",
        error_message="the upstream did not accept the message within the retry window",
    )


def _media_unavailable() -> UpstreamFailureInfo:
    window = MEDIA_TRANSFER["schedule_to_close_timeout"]
    minutes = int(window.total_seconds() // 60) if window is not None else 0
    return UpstreamFailureInfo(
        code=UNAVAILABLE,
        status_code=503,
        error_title="Media unavailable",
        error_message=(
            f"the media link could not be downloaded and uploaded to the upstream in {minutes} minutes of retries"
        ),
    )


def _protocol_error(detail: str) -> UpstreamFailureInfo:
    return UpstreamFailureInfo(
        code=UPSTREAM_PROTOCOL_ERROR_CODE,
        status_code=502,
        error_title="Upstream answered unexpectedly",
        error_message=f"the upstream answered in a way the service cannot use: {detail}",
    )
