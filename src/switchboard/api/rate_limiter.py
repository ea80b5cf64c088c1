"""Per-key API rate limits that hold across processes at microsecond cost.

Each process leases small chunks of a window's quota from the shared counter
(20 % of the per-second limit, 1 % of the daily one, at least 1) and serves
requests from the lease in memory. Leases are taken atomically and never past
the limit, so all processes together never admit more than the limit; what a
process leased but did not use in a window is lost to that window (at most one
chunk per process), so a busy fleet may admit slightly fewer. Small limits
lease one slot at a time and are exact. Once a window is full, a process
refuses the rest of that window from memory (counts only grow within a window),
so a storm of refused requests costs no database writes.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncEngine

from switchboard.domain.rate_limits import Limits, newest_window, windows_at
from switchboard.store import rate_limits

SECOND_SHARE = 5
DAY_SHARE = 100
_MAX_KEYS = 100_000


@dataclass
class _Lease:
    bucket: str = ""
    available: int = 0
    shared_count: int = 0
    # The shared window is full: counts only grow within a window, so every
    # further request in it is refused without a database round trip.
    exhausted: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


@dataclass(frozen=True)
class Decision:
    allowed: bool
    limit: int
    remaining: int
    reset: int
    retry_after: int = 0
    daily_exhausted: bool = False


class RateLimiter:
    """Checks one request of a key against its per-second and per-day windows."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._leases: OrderedDict[tuple[str, str], _Lease] = OrderedDict()
        # SQLite has one writer, and a write that finds the file locked sleeps in its busy handler (1 ms
        # growing to 100 ms a try): this process's lease writes take turns in the event loop instead, as
        # the inbound apply's item transactions do (activities/inbound_apply.py).
        self._write_turn: contextlib.AbstractAsyncContextManager[object] = (
            asyncio.Lock() if engine.dialect.name == "sqlite" else contextlib.nullcontext()
        )

    async def check(self, key_id: str, limits: Limits, *, now: float) -> Decision:
        """Admit or refuse one request; the figures for the rate-limit headers."""
        windows = windows_at(key_id, now)
        second = await self._acquire(
            (key_id, "s"),
            windows.second_bucket,
            limits.per_second,
            SECOND_SHARE,
            datetime.fromtimestamp(windows.second_reset + 5, UTC),
        )
        if second is None:
            return Decision(False, limits.per_second, 0, windows.second_reset, retry_after=1)
        day = await self._acquire(
            (key_id, "d"),
            windows.day_bucket,
            limits.per_day,
            DAY_SHARE,
            datetime.fromtimestamp(windows.day_reset, UTC) + timedelta(hours=1),
        )
        if day is None:
            second.available += 1  # the request was refused: give its second slot back
            return Decision(
                False,
                limits.per_second,
                0,
                windows.day_reset,
                retry_after=int(windows.day_reset - now) + 1,
                daily_exhausted=True,
            )
        remaining = max(0, limits.per_second - second.shared_count + second.available)
        return Decision(True, limits.per_second, remaining, windows.second_reset)

    async def _acquire(
        self, slot: tuple[str, str], bucket: str, limit: int, share: int, expires_at: datetime
    ) -> _Lease | None:
        lease = self._lease(slot, bucket)
        # A request timed in a window this process has already left counts in the newer one: moving the
        # lease back would lease a fresh chunk of the old window, and back again one of the new.
        bucket = newest_window(bucket, lease.bucket)
        if lease.bucket == bucket and lease.available > 0:
            lease.available -= 1
            return lease
        if lease.bucket == bucket and lease.exhausted:
            return None
        async with lease.lock:
            bucket = newest_window(bucket, lease.bucket)
            if lease.bucket != bucket:
                lease.bucket, lease.available, lease.shared_count, lease.exhausted = bucket, 0, 0, False
            if lease.available == 0 and not lease.exhausted:
                async with self._write_turn, self._engine.begin() as conn:
                    granted, count = await rate_limits.lease(
                        conn, bucket, want=max(1, limit // share), limit=limit, expires_at=expires_at
                    )
                lease.available += granted
                lease.shared_count = count
                lease.exhausted = granted == 0
            if lease.available == 0:
                return None
            lease.available -= 1
            return lease

    def _lease(self, slot: tuple[str, str], bucket: str) -> _Lease:
        lease = self._leases.get(slot)
        if lease is None:
            lease = self._leases[slot] = _Lease(bucket=bucket)
            while len(self._leases) > _MAX_KEYS:
                self._leases.popitem(last=False)
        elif newest_window(bucket, lease.bucket) != lease.bucket and not lease.lock.locked():
            # A new window: the old window's unused lease is worth nothing now.
            lease.bucket, lease.available, lease.shared_count, lease.exhausted = bucket, 0, 0, False
        self._leases.move_to_end(slot)
        return lease
