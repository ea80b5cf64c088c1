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
