"""Every activity's timeouts and retry policy, in one place.

Workflows call activities only through these options so retry behaviour is
reviewed in one module rather than scattered across workflow code. Each is
typed as the SDK's own ActivityConfig or LocalActivityConfig, so mypy checks
every option spread into execute_(local_)activity against its keywords.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Final

from temporalio.common import RetryPolicy
from temporalio.workflow import ActivityConfig, LocalActivityConfig

from switchboard.domain.failure_types import SMTP_MISCONFIGURED, TEMPLATE_SYNC_REFUSED, UPSTREAM_PROTOCOL

# Database housekeeping: cheap, idempotent, retried a few times then left to
# the next scheduled run.
HOUSEKEEPING: Final[ActivityConfig] = {
    "start_to_close_timeout": timedelta(seconds=60),
    "retry_policy": RetryPolicy(
        initial_interval=timedelta(seconds=1), backoff_coefficient=2.0, maximum_attempts=5
    ),
}

# One WABA's template read (workflows/template_sync.py): a page per heartbeat;
# 429/5xx come back with our backoff as the next delay; a permanent refusal
# (revoked token) is non-retryable and left to the next scheduled run.
TEMPLATE_SYNC: Final[ActivityConfig] = {
    "start_to_close_timeout": timedelta(minutes=10),
    "heartbeat_timeout": timedelta(minutes=1),
    "retry_policy": RetryPolicy(
        initial_interval=timedelta(seconds=5),
        backoff_coefficient=2.0,
        maximum_interval=timedelta(minutes=1),
        maximum_attempts=4,
        non_retryable_error_types=[TEMPLATE_SYNC_REFUSED],
    ),
}

# One upstream send. Timeouts bound a hung HTTP call; 429/5xx come back as
# retryable errors carrying our own jittered delay (next_retry_delay), which
# overrides the interval here. A send that cannot get through within its
# retry window (SEND_RETRY_WINDOW_SECONDS, a day by default, carried in the
# workflow input) becomes failed_transient.
_UPSTREAM_CALL_TIMEOUT = timedelta(seconds=15)
UPSTREAM_SEND: Final[ActivityConfig] = {
    "start_to_close_timeout": _UPSTREAM_CALL_TIMEOUT,
    "schedule_to_close_timeout": timedelta(hours=24),
    "retry_policy": RetryPolicy(
        initial_interval=timedelta(seconds=1),
        backoff_coefficient=2.0,
        maximum_interval=timedelta(seconds=60),
        non_retryable_error_types=[UPSTREAM_PROTOCOL],
    ),
}
# The first try of that send, as a local activity (runs recorded after the patch "send-local-first-attempt"):
# one attempt, no retry of its own. Most sends end here; a retryable failure or a timeout hands the rest
# of the retry window to UPSTREAM_SEND.
UPSTREAM_SEND_FIRST: Final[LocalActivityConfig] = {
    "start_to_close_timeout": _UPSTREAM_CALL_TIMEOUT,
    "retry_policy": RetryPolicy(maximum_attempts=1),
}

# Local bookkeeping (our database): retried until it works.
LOCAL_WRITE: Final[LocalActivityConfig] = {
    "start_to_close_timeout": timedelta(seconds=30),
    "retry_policy": RetryPolicy(
        initial_interval=timedelta(seconds=1), maximum_interval=timedelta(seconds=30)
    ),
}

# Downloads of link media and their upload to the upstream.
MEDIA_TRANSFER: Final[ActivityConfig] = {
    "start_to_close_timeout": timedelta(minutes=5),
    "schedule_to_close_timeout": timedelta(hours=1),
    "retry_policy": RetryPolicy(
        initial_interval=timedelta(seconds=2), maximum_interval=timedelta(seconds=60)
    ),
}

# Inbound webhook processing (workflows/inbound.py): every item is idempotent, so
# retry without limit (a database outage delays inbound, never drops it); the
# activity heartbeats once per item.
INBOUND_APPLY: Final[ActivityConfig] = {
    "start_to_close_timeout": timedelta(minutes=10),
    "heartbeat_timeout": timedelta(minutes=2),
    "retry_policy": RetryPolicy(
        initial_interval=timedelta(seconds=1), backoff_coefficient=2.0, maximum_interval=timedelta(minutes=1)
    ),
}
# The same work as a local activity (no task-queue round trip; Temporal still records the result, so
# a replay never repeats it). No heartbeat: a worker that dies mid-payload loses its workflow task,
# and the next worker runs the payload again, skipping the items the ledger already holds.
INBOUND_LOCAL: Final[LocalActivityConfig] = {
    "start_to_close_timeout": timedelta(minutes=10),
    "retry_policy": RetryPolicy(
        initial_interval=timedelta(seconds=1), backoff_coefficient=2.0, maximum_interval=timedelta(minutes=1)
    ),
}
# A status can outrun the commit of its message's wamid by the send path; wait
# this long between tries (about 30 s in all) before dropping it as unknown.
INBOUND_DEFERRED_STATUS_DELAYS: Final = (
    timedelta(seconds=1),
    timedelta(seconds=2),
    timedelta(seconds=4),
    timedelta(seconds=8),
    timedelta(seconds=15),
)

# Tenant webhooks (workflows/event_dispatch.py, workflows/webhook_delivery.py).
# Bookkeeping is idempotent: retried without limit so a database outage delays
# deliveries, never drops them. An attempt returns HTTP outcomes as values, so
# its retries cover only infrastructure failures (the HTTP timeout, at most
# 10 s by default, is enforced inside the activity). Owner mail is tried for a
# few minutes without holding up the retry schedule; the outbox sweeper keeps
# retrying what is still unsent.
WEBHOOK_BOOKKEEPING: Final[ActivityConfig] = {
    "start_to_close_timeout": timedelta(seconds=30),
    "retry_policy": RetryPolicy(initial_interval=timedelta(seconds=1), maximum_interval=timedelta(minutes=1)),
}
_ATTEMPT_TIMEOUT = timedelta(seconds=90)
_ATTEMPT_RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_interval=timedelta(minutes=1))
WEBHOOK_ATTEMPT: Final[ActivityConfig] = {
    "start_to_close_timeout": _ATTEMPT_TIMEOUT,
    "retry_policy": _ATTEMPT_RETRY,
}
# The same attempt as a local activity (runs recorded after the patch "delivery-local-attempt"). These
# retries cover our own failures (the database); the receiver's failures are the workflow's schedule.
WEBHOOK_ATTEMPT_LOCAL: Final[LocalActivityConfig] = {
    "start_to_close_timeout": _ATTEMPT_TIMEOUT,
    "retry_policy": _ATTEMPT_RETRY,
}
WEBHOOK_NOTIFY: Final[ActivityConfig] = {
    "start_to_close_timeout": timedelta(seconds=60),
    "schedule_to_close_timeout": timedelta(minutes=5),
    "retry_policy": RetryPolicy(
        initial_interval=timedelta(seconds=5),
        maximum_interval=timedelta(minutes=1),
        non_retryable_error_types=[SMTP_MISCONFIGURED],
    ),
}

# Agent runtime (workflows/agent_thread.py, workflows/agent_run.py). Bookkeeping
# is keyed by run and step, so it is retried without limit: a database outage
# delays a run, never loses it.
AGENT_BOOKKEEPING: Final[ActivityConfig] = {
    "start_to_close_timeout": timedelta(seconds=30),
    "retry_policy": RetryPolicy(
        initial_interval=timedelta(seconds=1), maximum_interval=timedelta(seconds=30)
    ),
}
# The same bookkeeping run as local activities (claiming turns, loading and finishing a run, storing
# the reply): short writes to our own database, so they skip the task-queue round trip that a regular
# activity costs; Temporal still records their results, so a replay never repeats them.
AGENT_LOCAL: Final[LocalActivityConfig] = {
    "start_to_close_timeout": timedelta(seconds=30),
    "retry_policy": RetryPolicy(
        initial_interval=timedelta(seconds=1), maximum_interval=timedelta(seconds=30)
    ),
}
# One model call. SDK retries are off; 408/409/429/5xx and timeouts come back
# retryable (a Retry-After becomes the next delay), other 4xx and a missing
# provider key non-retryable. After the last attempt the run ends failed. A call
# lost with a killed worker is retried elsewhere after the heartbeat timeout.
AGENT_MODEL_CALL: Final[ActivityConfig] = {
    "start_to_close_timeout": timedelta(seconds=90),
    # The activity heartbeats every 2 s while the call is in flight: a dead worker is noticed fast.
    "heartbeat_timeout": timedelta(seconds=10),
    "retry_policy": RetryPolicy(
        initial_interval=timedelta(seconds=2),
        backoff_coefficient=2.0,
        maximum_interval=timedelta(seconds=30),
        maximum_attempts=4,
    ),
}
# One tool call: the executor returns every outcome of the tool as a result and
# raises only for our own infrastructure (the token cache's database), which is
# safe to retry; the start-to-close timeout comes from the tool's timeout_ms.
AGENT_TOOL_RETRY: Final = RetryPolicy(
    initial_interval=timedelta(seconds=1), maximum_interval=timedelta(seconds=30), maximum_attempts=5
)
