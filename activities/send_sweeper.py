"""Resume sends left ``queued`` without a running workflow (the API crashed, or Temporal was down).

The message row commits before its workflow starts; if the API dies in
between, or cannot reach Temporal, the message would wait forever. This sweep
(run by a schedule) starts the workflow of every queued message older than the
API's longest wait. Workflow ids derive from message ids, so a send that is
already running is left alone; one whose workflow failed is started again.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from pydantic import BaseModel
from sqlmodel import select
from temporalio import activity
from temporalio.common import WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError

from activities.deps import ActivityDeps
from activities.send_input import send_input_for, tier_rates
from domain.send_payload import parse_send_request
from models.base import utcnow
from models.messaging import Message
from models.tenancy import PhoneNumber

log = logging.getLogger("switchboard.sends")

# Longer than the API ever waits for a send (SEND_WAIT_SECONDS is at most 55 s).
STALE_AFTER = timedelta(seconds=60)
BATCH = 500


class SweepResult(BaseModel):
    resumed: int
    running: int


class SendSweeperActivities:
    """Finds queued messages whose send never started, and starts it."""

    def __init__(self, deps: ActivityDeps) -> None:
        self._deps = deps

    @activity.defn(name="resume_queued_sends")
    async def resume_queued_sends(self) -> SweepResult:
        """Start the send workflow of stale queued messages."""
        async with self._deps.sessions() as session:
            rows = (
                await session.execute(
                    select(Message, PhoneNumber)
                    .join(PhoneNumber, PhoneNumber.phone_number_id == Message.phone_number_id)
                    .where(Message.status == "queued", Message.created_at < utcnow() - STALE_AFTER)
                    .order_by(Message.created_at)
                    .limit(BATCH)
                )
            ).all()
        resumed = running = 0
        rates = tier_rates(self._deps.settings)
        for message, phone in rows:
            request = send_input_for(message, parse_send_request(message.payload), phone, rates=rates)
            try:
                await self._deps.temporal.start_workflow(
                    "SendMessage", request, id=f"send-{message.id}",
                    task_queue=self._deps.settings.temporal_task_queue,
                    id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
                )
                resumed += 1
            except WorkflowAlreadyStartedError:
                running += 1
        if resumed:
            log.warning("resumed queued sends", extra={"resumed": resumed})
        return SweepResult(resumed=resumed, running=running)
