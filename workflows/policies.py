"""Every activity's timeouts and retry policy, in one place.

Workflows call activities only through these options so retry behaviour is
reviewed in one module rather than scattered across workflow code.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio.common import RetryPolicy

# Database housekeeping: cheap, idempotent, retried a few times then left to
# the next scheduled run.
HOUSEKEEPING = {
    "start_to_close_timeout": timedelta(seconds=60),
    "retry_policy": RetryPolicy(
        initial_interval=timedelta(seconds=1), backoff_coefficient=2.0, maximum_attempts=5
    ),
}

# One upstream send. Timeouts bound a hung HTTP call; 429/5xx come back as
# retryable errors carrying our own jittered delay (next_retry_delay), which
# overrides the interval here. A send that cannot get through for a day
# becomes failed_transient.
UPSTREAM_SEND = {
    "start_to_close_timeout": timedelta(seconds=15),
    "schedule_to_close_timeout": timedelta(hours=24),
    "retry_policy": RetryPolicy(
        initial_interval=timedelta(seconds=1), backoff_coefficient=2.0, maximum_interval=timedelta(seconds=60),
        non_retryable_error_types=["UpstreamProtocol"],
    ),
}

# Local bookkeeping (our database): retried until it works.
LOCAL_WRITE = {
    "start_to_close_timeout": timedelta(seconds=30),
    "retry_policy": RetryPolicy(initial_interval=timedelta(seconds=1), maximum_interval=timedelta(seconds=30)),
}

# Downloads of link media and their upload to the upstream.
MEDIA_TRANSFER = {
    "start_to_close_timeout": timedelta(minutes=5),
    "schedule_to_close_timeout": timedelta(hours=1),
    "retry_policy": RetryPolicy(initial_interval=timedelta(seconds=2), maximum_interval=timedelta(seconds=60)),
}
