"""Resume sends left ``queued`` whose workflow never started (the API crashed, or Temporal was down),
and settle those whose run ended without an outcome.

The message row commits before its workflow starts, and the API notes
``workflow_started_at`` when it answers before the send's outcome is recorded
(a 202); a send answered in time is no longer queued, and one whose run the API
saw fail it records ``failed_transient`` itself (noting it only if that write fails). If the
API dies before it answers, or cannot reach Temporal, this sweep (run by a
schedule) starts the workflow of every queued message without that note and
older than the API's longest wait.
Workflow ids derive from message ids, so a send that is already running is
attached to, not started twice; one whose workflow failed is started again.
Messages whose workflow is running are not looked at again until their run
must have ended, so a long outage backlog cannot hide an orphan.

A noted send still queued once longer has passed than any run can last (the
retry window, plus ``ABANDONED_MARGIN`` for the media transfer before it and
a busy host) ended without recording an outcome: an operator terminated or
cancelled it, or it failed inside the service after the API stopped waiting
(or the API could not record it). Nothing would ever move it, so
it would count against its phone's queue limit for good and a retry of its
original would answer with it. The sweep records it ``failed_transient``
(``SEND_NOT_FINISHED``) as its run would have: the event, the released
Idempotency-Key, and a message the client may retry.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from pydantic import BaseModel
from temporalio import activity
from temporalio.exceptions import WorkflowAlreadyStartedError

from switchboard.activities.deps import ActivityDeps
from switchboard.activities.send_input import send_input_for, tier_rates
from switchboard.activities.sends import OutcomeRecorder, send_not_finished
from switchboard.activities.workflow_starts import start_send
from switchboard.domain.errors import ServiceError
from switchboard.domain.send_payload import parse_send_request
from switchboard.models.base import utcnow
from switchboard.models.send import SendOutcome
from switchboard.store import messages
from switchboard.store.database import unit_of_work

log = logging.getLogger("switchboard.sends")

# Longer than the API ever takes to note a start it answers before the outcome of: the message's
# events dispatched and the workflow started (5 s each at most), then the wait (SEND_WAIT_SECONDS,
# at most 55 s), with room for a busy host. A send the API still waits on is left to it.
STALE_AFTER = timedelta(seconds=120)
# Beyond the retry window, how long a run may still be going: its media transfer (an hour at most,
# workflows/policies.py MEDIA_TRANSFER) before the window starts, and an hour for a busy host.
ABANDONED_MARGIN = timedelta(hours=2)
BATCH = 200


class SweepResult(BaseModel):
    resumed: int
    unreadable: int = 0
    # Queued sends whose run ended without an outcome, recorded failed_transient.
    abandoned: int = 0


class SendSweeperActivities:
    """Finds queued messages whose send never started, and starts it; settles those whose run ended."""

    def __init__(self, deps: ActivityDeps) -> None:
        self._deps = deps
        self._recorder = OutcomeRecorder(deps)

    @activity.defn(name="resume_queued_sends")
    async def resume_queued_sends(self) -> SweepResult:
        """Start the send workflow of stale queued messages that have none; settle those whose run ended."""
        now = utcnow()
        window = timedelta(seconds=self._deps.settings.send_retry_window_seconds)
        async with self._deps.sessions() as session:
            rows = await messages.stale_queued(
                session,
                unstarted_before=now - STALE_AFTER,
                abandoned_before=now - window - ABANDONED_MARGIN,
                limit=BATCH,
            )
        resumed = unreadable = abandoned = 0
        rates = tier_rates(self._deps.settings)
        for message, phone in rows:
            if message.workflow_started_at is not None:
                await self._recorder.record(
                    SendOutcome(
                        message_id=message.id,
                        tenant_id=message.tenant_id,
                        idempotency_key=message.idempotency_key,
                        failure=send_not_finished(),
                        transient=True,
                    )
                )
                log.warning(
                    "queued send whose run ended recorded failed_transient", extra={"message_id": message.id}
                )
                abandoned += 1
                continue
            try:
                request = send_input_for(
                    message,
                    parse_send_request(message.payload),
                    phone,
                    rates=rates,
                    retry_window_seconds=self._deps.settings.send_retry_window_seconds,
                )
            except ServiceError:
                # Stored requests were validated before storing; one that no longer parses is logged, not fatal.
                log.error("queued message cannot be resumed", extra={"message_id": message.id})
                unreadable += 1
                continue
            try:
                await start_send(
                    self._deps.temporal, request, task_queue=self._deps.settings.temporal_task_queue
                )
                started = True
            except WorkflowAlreadyStartedError:
                # Its run completed after the read above (a completed send is never run again): its
                # outcome is recorded by now, so there is nothing to resume; noted all the same.
                log.info("queued send completed meanwhile", extra={"message_id": message.id})
                started = False
            async with unit_of_work(self._deps.sessions) as session:
                await messages.mark_workflow_started(session, message.id, at=utcnow())
            resumed += started
        if resumed:
            log.warning("resumed queued sends", extra={"resumed": resumed})
        return SweepResult(resumed=resumed, unreadable=unreadable, abandoned=abandoned)
