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

A process writes its leases from one task, each batch of waiting leases in one
statement (``rate_limits.lease_many``). Every new per-second window of every
busy key needs a lease, and they come in bursts at a second's boundary: one
statement each, they queued requests for hundreds of milliseconds on SQLite,
where the writes take turns anyway (one writer), and cost a round trip each on
PostgreSQL. A limiter serves one event loop (its app's).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncEngine

from switchboard.domain.rate_limits import Limits, newest_window, windows_at
from switchboard.store import rate_limits
from switchboard.store.database import write_turn

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


class LeaseNotWritten(Exception):
    """The shared counter could not be written; the database's error is the cause."""


@dataclass
class _Queued:
    """A lease waiting for the writer, and where its answer goes."""

    want: rate_limits.Want
    answer: asyncio.Future[tuple[int, int]]


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
        # Leases waiting to be written, and the task writing them, a batch per statement. One writer
        # per process: SQLite has one writer anyway (a write that finds the file locked sleeps in its
        # busy handler, 1 ms growing to 100 ms a try), and batches need fewer round trips than
        # concurrent statements on PostgreSQL.
        self._queue: list[_Queued] = []
        self._writer: asyncio.Task[None] | None = None

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
                granted, count = await self._shared_lease(
                    rate_limits.Want(bucket, max(1, limit // share), limit, expires_at)
                )
                lease.available += granted
                lease.shared_count = count
                lease.exhausted = granted == 0
            if lease.available == 0:
                return None
            lease.available -= 1
            return lease

    async def _shared_lease(self, want: rate_limits.Want) -> tuple[int, int]:
        """Lease from the shared counter, in the writer's next batch; (granted, window count after)."""
        answer: asyncio.Future[tuple[int, int]] = asyncio.get_running_loop().create_future()
        self._queue.append(_Queued(want, answer))
        # done(): a writer cancelled before its first step never ran its ``finally``.
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_queued())
        # A request cancelled meanwhile leaves its lease to be written: unused slots, as a lease
        # left over at a window's end (never more admitted than the limit).
        return await answer

    async def _write_queued(self) -> None:
        """Write the queued leases, a batch per statement, until none wait."""
        batch: list[_Queued] = []
        try:
            while self._queue:
                batch, self._queue = _next_batch(self._queue)
                try:
                    # On SQLite, the leases take their turn with the process's other writers.
                    async with write_turn(self._engine), self._engine.begin() as conn:
                        answers = await rate_limits.lease_many(conn, [q.want for q in batch])
                except Exception as error:  # noqa: BLE001 - handed to every waiter, which raises it
                    # Each request waiting on this batch fails (a 500), with an error of its own: one
                    # shared instance would gather every request's traceback in the logs.
                    for queued in batch:
                        if not queued.answer.done():
                            failed = LeaseNotWritten("the rate-limit lease could not be written")
                            failed.__cause__ = error
                            queued.answer.set_exception(failed)
                    continue
                for queued, granted in zip(batch, answers, strict=True):
                    if not queued.answer.done():
                        queued.answer.set_result(granted)
            batch = []
        finally:
            self._writer = None
            # Cancelled (the process is stopping): nobody may wait for an answer that will not come.
            for queued in (*batch, *self._queue):
                queued.answer.cancel()
            self._queue = []

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


def _next_batch(queue: list[_Queued]) -> tuple[list[_Queued], list[_Queued]]:
    """The first leases of distinct buckets (at most ``MAX_BATCH``), and the rest, in order."""
    batch: list[_Queued] = []
    rest: list[_Queued] = []
    buckets: set[str] = set()
    for queued in queue:
        if len(batch) < rate_limits.MAX_BATCH and queued.want.bucket not in buckets:
            buckets.add(queued.want.bucket)
            batch.append(queued)
        else:
            rest.append(queued)
    return batch, rest
