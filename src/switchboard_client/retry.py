"""When to repeat a request, and after how long: the spec's retry guidance as one pure policy."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from switchboard_client.errors import SwitchboardError

__all__ = ["RetryPolicy"]

BACKOFF_STATUSES = frozenset({500, 502, 503, 504})
BACKOFF_CAP_SECONDS = 60.0


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded retries: 429 after its wait, 5xx with backoff, 409 request_in_progress shortly."""

    max_retries: int = 3
    max_wait_seconds: float = 60.0
    jitter: Callable[[], float] = field(default=random.random)

    def wait_after(
        self, error: SwitchboardError, *, attempt: int, repeatable: bool, has_key: bool
    ) -> float | None:
        """Seconds to wait before repeating the request that got ``error``; None: raise it."""
        if attempt >= self.max_retries:
            return None
        if error.status_code == 429:
            wait = error.retry_after_seconds if error.retry_after_seconds is not None else 1.0
            return wait if wait <= self.max_wait_seconds else None
        if error.status_code == 409 and error.code == "request_in_progress" and has_key:
            return 0.5 + 0.5 * self.jitter()
        if error.status_code in BACKOFF_STATUSES and repeatable:
            return self.backoff(attempt)
        return None

    def wait_after_transport_error(self, *, attempt: int, repeatable: bool) -> float | None:
        """Seconds to wait before repeating a request that got no answer; None: raise."""
        if attempt >= self.max_retries or not repeatable:
            return None
        return self.backoff(attempt)

    def backoff(self, attempt: int) -> float:
        """1 s doubling, capped at 60 s (and at ``max_wait_seconds``), with +/-20 % jitter."""
        cap = min(BACKOFF_CAP_SECONDS, self.max_wait_seconds)
        base = min(cap, float(2 ** min(attempt, 16)))
        return min(base * (0.8 + 0.4 * self.jitter()), cap)
