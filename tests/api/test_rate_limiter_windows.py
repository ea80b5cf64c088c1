"""RateLimiter across a window boundary: requests stamped just before it, served after it.

Under concurrency a request timed in second N can reach the limiter after one of second N+1 has
moved the key's lease on. The lease must not go back to N (each move back and forth leased a fresh
chunk from the shared counter, so a key admitted far fewer requests than its limit and was refused).
"""

from __future__ import annotations

from switchboard.api.rate_limiter import RateLimiter
from switchboard.domain.rate_limits import Limits
from switchboard.store.database import create_engine


async def test_late_requests_of_the_last_window_never_refuse_under_the_limit(settings) -> None:
    engine = create_engine(settings.database_url)
    limiter = RateLimiter(engine)
    limits = Limits(20, 100_000)
    second = 1_900_000_000
    try:
        # Twelve requests alternate between the end of one second and the start of the next: at
        # most 12 in either window, under the limit of 20.
        decisions = [
            await limiter.check("key_boundary", limits, now=second + (0.999 if i % 2 == 0 else 1.001))
            for i in range(12)
        ]
    finally:
        await limiter.aclose()
        await engine.dispose()
    assert all(decision.allowed for decision in decisions), [d.allowed for d in decisions]


async def test_a_window_still_refuses_past_its_limit(settings) -> None:
    engine = create_engine(settings.database_url)
    limiter = RateLimiter(engine)
    try:
        decisions = [
            await limiter.check("key_full", Limits(5, 100_000), now=1_900_000_000.5) for _ in range(7)
        ]
    finally:
        await limiter.aclose()
        await engine.dispose()
    assert [d.allowed for d in decisions] == [True] * 5 + [False] * 2
