"""Per-key API rate limits that hold across processes at microsecond cost.

Each process leases small chunks of a window's quota from the shared counter
(20 % of the per-second limit, 1 % of the daily one, at least 1) and serves
requests from the lease in memory. Leases are taken atomically and never past
the limit, so all processes together never admit more than the limit; what a
process leased but did not use in a window is lost to that window (at most one
chunk per process; of a day, one and a half), so a busy fleet may admit slightly
fewer. Small limits lease one slot at a time and are exact. Once a window is full, a process
refuses the rest of that window from memory (counts only grow within a window),
so a storm of refused requests costs no database writes.

A process writes its leases from one task, each batch of waiting leases in one
statement (``rate_limits.lease_many``). Every new per-second window of every
busy key needs a lease, and they come in bursts at a second's boundary: one
statement each, they queued requests for hundreds of milliseconds on SQLite,
where the writes take turns anyway (one writer), and cost a round trip each on
PostgreSQL. A day's lease running low is topped up in the statement of the
key's next second's lease rather than in one of its own (``_rider``). On
PostgreSQL the writer has a connection of its own (store/lease_connection.py):
through the pool and SQLAlchemy a lease cost the API about 0.42 ms of CPU, on
its own connection about 0.2 ms. A limiter serves one event loop (its app's).
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
from switchboard.store.database import write_turn
from switchboard.store.lease_connection import LeaseConnection

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

    def move_to(self, bucket: str) -> None:
        """A new window: what was leased of the old one is worth nothing now."""
        self.bucket, self.available, self.shared_count, self.exhausted = bucket, 0, 0, False

    def add(self, answer: tuple[int, int]) -> None:
        """The shared counter's answer to a lease of this window: (granted, window count after)."""
        granted, count = answer
        self.available += granted
        self.shared_count = count
        self.exhausted = granted == 0


@dataclass(frozen=True)
class _Window:
    """One of a key's two windows as a request meets it: which lease serves it, and how to lease more."""

    slot: tuple[str, str]
    bucket: str
    limit: int
    share: int
    expires_at: datetime

    def want(self, bucket: str) -> rate_limits.Want:
        return rate_limits.Want(bucket, max(1, self.limit // self.share), self.limit, self.expires_at)


@dataclass
class _Rider:
    """A day lease topped up in the statement of a second's lease; its lock is held until the answer."""

    lease: _Lease
    want: rate_limits.Want


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
        # On PostgreSQL the leases go through a connection of the limiter's own (store/lease_connection.py).
        self._own = LeaseConnection(engine) if engine.dialect.name == "postgresql" else None
        self._leases: OrderedDict[tuple[str, str], _Lease] = OrderedDict()
        # Leases waiting to be written, and the task writing them, a batch per statement. One writer
        # per process: SQLite has one writer anyway (a write that finds the file locked sleeps in its
        # busy handler, 1 ms growing to 100 ms a try), and batches need fewer round trips than
        # concurrent statements on PostgreSQL.
        self._queue: list[_Queued] = []
        self._writer: asyncio.Task[None] | None = None
        self.batches_written = 0  # for tests: batches of leases sent, a statement each when chunks fit

    async def aclose(self) -> None:
        """Stop the writer and close the limiter's own connection for good (the app's lifespan, on shutdown).

        The writer goes first: a batch in flight on a connection being closed would fail and be tried
        again on a new one, which nothing would close. Requests still waiting are cancelled.
        """
        writer, self._writer = self._writer, None
        if writer is not None and not writer.done():
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await writer
        if self._own is not None:
            await self._own.close()

    async def check(self, key_id: str, limits: Limits, *, now: float) -> Decision:
        """Admit or refuse one request; the figures for the rate-limit headers."""
        windows = windows_at(key_id, now)
        second_window = _Window(
            (key_id, "s"),
            windows.second_bucket,
            limits.per_second,
            SECOND_SHARE,
            datetime.fromtimestamp(windows.second_reset + 5, UTC),
        )
        day_window = _Window(
            (key_id, "d"),
            windows.day_bucket,
            limits.per_day,
            DAY_SHARE,
            datetime.fromtimestamp(windows.day_reset, UTC) + timedelta(hours=1),
        )
        second = await self._acquire(second_window, along=day_window)
        if second is None:
            return Decision(False, limits.per_second, 0, windows.second_reset, retry_after=1)
        taken_in = second.bucket
        day = await self._acquire(day_window)
        if day is None:
            # The request was refused: give its second's slot back, unless the lease has moved on to a
            # newer second meanwhile (a slot given back there was never leased).
            if second.bucket == taken_in:
                second.available += 1
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

    async def _acquire(self, window: _Window, *, along: _Window | None = None) -> _Lease | None:
        """One slot of ``window``, leasing more when none is left; ``along`` may be topped up in that statement."""
        lease = self._lease(window.slot, window.bucket)
        # A request timed in a window this process has already left counts in the newer one: moving the
        # lease back would lease a fresh chunk of the old window, and back again one of the new.
        bucket = newest_window(window.bucket, lease.bucket)
        if lease.bucket == bucket and lease.available > 0:
            lease.available -= 1
            return lease
        if lease.bucket == bucket and lease.exhausted:
            return None
        async with lease.lock:
            bucket = newest_window(bucket, lease.bucket)
            if lease.bucket != bucket:
                lease.move_to(bucket)
            if lease.available == 0 and not lease.exhausted:
                rider = await self._rider(along) if along is not None else None
                try:
                    answers = await self._shared_leases(
                        [window.want(bucket), *([rider.want] if rider is not None else [])]
                    )
                    # A rider is optional: if its batch failed (the writer may split the two), the
                    # day's lease is taken on its own later, and this request still has its second.
                    if rider is not None:
                        rode = answers[1]
                        # Still in its window: its lock was held meanwhile.
                        if not isinstance(rode, BaseException):
                            rider.lease.add(rode)
                finally:
                    if rider is not None:
                        rider.lease.lock.release()
                own = answers[0]
                if isinstance(own, BaseException):
                    raise own
                lease.add(own)
            if lease.available == 0:
                return None
            lease.available -= 1
            return lease

    async def _rider(self, window: _Window) -> _Rider | None:
        """``window``'s lease, locked, when it is low enough to top up now: a day's lease rides along a second's.

        A request whose second's lease is used up waits for a statement anyway; a day's lease
        running low (under half a chunk left) is topped up in it, so the day's leases cost no
        statements of their own. A process then holds up to one and a half chunks of a day
        (the unused part is lost to the day if its traffic moves to other processes). Not while
        another request holds its lock; one just handed the lock (woken, not yet run) is waited
        for, which costs only time, and rarely: a day's lease is seldom taken on its own.
        """
        lease = self._lease(window.slot, window.bucket)
        if lease.lock.locked():
            return None
        await lease.lock.acquire()
        bucket = newest_window(window.bucket, lease.bucket)
        if lease.bucket != bucket:
            lease.move_to(bucket)
        want = window.want(bucket)
        if lease.exhausted or 2 * lease.available >= want.want:
            lease.lock.release()
            return None
        return _Rider(lease, want)

    async def _shared_leases(self, wants: list[rate_limits.Want]) -> list[tuple[int, int] | BaseException]:
        """Lease from the shared counter, in the writer's next batches: (granted, window count after)
        for each want, or the error its batch failed with (each want's own, so the caller decides)."""
        loop = asyncio.get_running_loop()
        queued = [_Queued(want, loop.create_future()) for want in wants]
        self._queue.extend(queued)
        # done(): a writer cancelled before its first step never ran its ``finally``.
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_queued())
        # A request cancelled meanwhile leaves its leases to be written: unused slots, as a lease
        # left over at a window's end (never more admitted than the limit).
        return await asyncio.gather(*(q.answer for q in queued), return_exceptions=True)

    async def _write_queued(self) -> None:
        """Write the queued leases, a batch per statement, until none wait."""
        batch: list[_Queued] = []
        try:
            while self._queue:
                batch, self._queue = _next_batch(self._queue)
                self.batches_written += 1
                try:
                    answers = await self._write([q.want for q in batch])
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

    async def _write(self, wants: list[rate_limits.Want]) -> list[tuple[int, int]]:
        if self._own is not None:
            return await self._own.lease_many(wants)
        # On SQLite, the leases take their turn with the process's other writers.
        async with write_turn(self._engine), self._engine.begin() as conn:
            return await rate_limits.lease_many(conn, wants)

    def _lease(self, slot: tuple[str, str], bucket: str) -> _Lease:
        lease = self._leases.get(slot)
        if lease is None:
            lease = self._leases[slot] = _Lease(bucket=bucket)
            while len(self._leases) > _MAX_KEYS:
                self._leases.popitem(last=False)
        elif newest_window(bucket, lease.bucket) != lease.bucket and not lease.lock.locked():
            lease.move_to(bucket)
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
