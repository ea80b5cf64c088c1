"""The limiter's lease writes: one writer per process, each batch of waiting leases in one statement.

Pins that concurrent new windows share statements (the burst at a second's
boundary queued requests behind one write each), that every lease still gets
exactly its answer, and that a cancelled request or a failing database leaves
no other request waiting forever.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import event as sa_event
from sqlalchemy.dialects.postgresql.psycopg import PGDialectAsync_psycopg
from sqlalchemy.dialects.sqlite.aiosqlite import SQLiteDialect_aiosqlite
from sqlalchemy.engine.interfaces import CacheStats
from sqlalchemy.exc import OperationalError

from switchboard.api.rate_limiter import LeaseNotWritten, RateLimiter
from switchboard.domain.rate_limits import Limits
from switchboard.store import rate_limits
from switchboard.store.database import create_engine
from tests.support.rate_limit_rows import counts_by_bucket

NOW = 1_900_000_000.25
EXPIRES = datetime(2030, 3, 17, tzinfo=UTC) + timedelta(hours=1)


def _count_upserts(engine) -> Counter[str]:  # type: ignore[no-untyped-def]
    ran: Counter[str] = Counter()

    def note(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        if statement.lstrip().upper().startswith("INSERT INTO RATE_LIMIT_COUNTERS"):
            ran["upserts"] += 1

    sa_event.listen(engine.sync_engine, "before_cursor_execute", note)
    return ran


def _upsert_cache_stats(engine) -> list[CacheStats]:  # type: ignore[no-untyped-def]
    """Whether each lease upsert's compiled form came from the engine's statement cache, in order."""
    stats: list[CacheStats] = []

    def note(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        if statement.lstrip().upper().startswith("INSERT INTO RATE_LIMIT_COUNTERS"):
            stats.append(context.cache_hit)

    sa_event.listen(engine.sync_engine, "before_cursor_execute", note)
    return stats


async def test_lease_many_grants_chunks_one_slot_or_nothing_in_order(settings):
    engine = create_engine(settings.database_url, autocommit=True)
    ran = _count_upserts(engine)
    try:
        async with engine.begin() as conn:
            # "nearly" has 9 of 10 taken and "full" all 10: a chunk of 4 fits neither.
            await rate_limits.lease_many(
                conn, [rate_limits.Want("nearly", 9, 10, EXPIRES), rate_limits.Want("full", 10, 10, EXPIRES)]
            )
            ran.clear()
            answers = await rate_limits.lease_many(
                conn,
                [
                    rate_limits.Want("fresh", 4, 10, EXPIRES),
                    rate_limits.Want("nearly", 4, 10, EXPIRES),
                    rate_limits.Want("full", 4, 10, EXPIRES),
                    rate_limits.Want("tiny", 50, 3, EXPIRES),
                ],
            )
        counts = await counts_by_bucket(engine)
    finally:
        await engine.dispose()
    assert answers == [(4, 4), (1, 10), (0, 10), (3, 3)]
    assert counts == {"fresh": 4, "nearly": 10, "full": 10, "tiny": 3}
    # The four in one statement; the two whose chunk did not fit tried one slot in a second.
    assert ran["upserts"] == 2


async def test_lease_many_writes_its_rows_in_bucket_order(settings):
    # Two processes locking the same rows in opposite orders would deadlock on PostgreSQL.
    engine = create_engine(settings.database_url, autocommit=True)
    written: list[list[str]] = []

    def note(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        if statement.lstrip().upper().startswith("INSERT INTO RATE_LIMIT_COUNTERS"):
            values = parameters.values() if isinstance(parameters, dict) else parameters
            written.append([v for v in values if isinstance(v, str) and v.startswith("ord:")])

    sa_event.listen(engine.sync_engine, "before_cursor_execute", note)
    try:
        async with engine.begin() as conn:
            await rate_limits.lease_many(
                conn, [rate_limits.Want(f"ord:{name}", 1, 5, EXPIRES) for name in ("c", "a", "d", "b")]
            )
    finally:
        await engine.dispose()
    assert written == [["ord:a", "ord:b", "ord:c", "ord:d"]]


async def test_a_one_slot_take_is_compiled_once_and_then_served_from_the_statement_cache(settings):
    # Every live send takes its phone's slot: a statement SQLAlchemy cannot cache is compiled again at
    # each send (a multi-row VALUES has no cache key; a single VALUES has one).
    engine = create_engine(settings.database_url, autocommit=True)
    stats = _upsert_cache_stats(engine)
    try:
        async with engine.begin() as conn:
            counts = [
                await rate_limits.take(conn, f"slot:{second}", limit=5, expires_at=EXPIRES)
                for second in range(3)
            ]
    finally:
        await engine.dispose()
    assert counts == [1, 1, 1]
    # Each engine has its own cache: compiled at this engine's first take, then reused.
    assert stats == [CacheStats.CACHE_MISS, CacheStats.CACHE_HIT, CacheStats.CACHE_HIT]


async def test_a_batch_of_leases_is_compiled_once_and_then_served_from_the_statement_cache(settings):
    # Each second's new windows of a process's keys are leased in batches: a multi-row VALUES, which
    # SQLAlchemy would compile again at every execution (it has no cache key), so the batch is a text().
    engine = create_engine(settings.database_url, autocommit=True)
    stats = _upsert_cache_stats(engine)
    try:
        async with engine.begin() as conn:
            answers = [
                await rate_limits.lease_many(
                    conn, [rate_limits.Want(f"key_{k}:{second}", 2, 10, EXPIRES) for k in range(3)]
                )
                for second in range(3)
            ]
        counts = await counts_by_bucket(engine)
    finally:
        await engine.dispose()
    assert answers == [[(2, 2)] * 3] * 3
    assert counts == {f"key_{k}:{second}": 2 for k in range(3) for second in range(3)}
    assert stats == [CacheStats.CACHE_MISS, CacheStats.CACHE_HIT, CacheStats.CACHE_HIT]


@pytest.mark.parametrize("rows", [2, 5, rate_limits.MAX_BATCH])
@pytest.mark.parametrize("dialect", [PGDialectAsync_psycopg, SQLiteDialect_aiosqlite])
def test_a_batch_statement_renders_as_the_upsert_it_was_built_from(dialect, rows):
    # The text() must be the very upsert (casts and conversions included) in each driver's dialect.
    built = rate_limits._upsert(dialect.name, rows).compile(dialect=dialect())
    batch = rate_limits._claim(dialect.name, rows).compile(dialect=dialect())
    assert batch.string == built.string
    assert {name: bind.type.__class__ for name, bind in batch.binds.items()} == {
        name: bind.type.__class__ for name, bind in built.binds.items()
    }


async def test_lease_many_refuses_a_bucket_twice(settings):
    engine = create_engine(settings.database_url, autocommit=True)
    try:
        async with engine.begin() as conn:
            with pytest.raises(ValueError):
                await rate_limits.lease_many(
                    conn, [rate_limits.Want("b", 1, 5, EXPIRES), rate_limits.Want("b", 1, 5, EXPIRES)]
                )
    finally:
        await engine.dispose()


async def test_concurrent_new_windows_share_statements_and_each_is_counted(settings):
    engine = create_engine(settings.database_url, autocommit=True)
    limiter = RateLimiter(engine)
    keys = [f"key_{i}" for i in range(40)]
    try:
        decisions = await asyncio.gather(*(limiter.check(k, Limits(10, 1000), now=NOW) for k in keys))
        counts = await counts_by_bucket(engine)
    finally:
        await limiter.aclose()
        await engine.dispose()
    assert all(d.allowed for d in decisions)
    # 40 keys, each a per-second lease and its day's riding along: 80 leases in batches of at most
    # MAX_BATCH, a statement each (counted by the limiter: on PostgreSQL its own connection sends
    # them, which the engine's events do not see).
    assert limiter.batches_written == -(-80 // rate_limits.MAX_BATCH), limiter.batches_written
    second = {b: c for b, c in counts.items() if ":s:" in b}
    day = {b: c for b, c in counts.items() if ":d:" in b}
    # Each key leased a chunk of a fifth of its second's limit and a hundredth of its day's.
    assert second == {f"{k}:s:{int(NOW)}": 2 for k in keys}
    assert day == {f"{k}:d:{int(NOW) // 86_400}": 10 for k in keys}


async def test_a_cancelled_request_leaves_the_others_answered(settings):
    engine = create_engine(settings.database_url, autocommit=True)
    limiter = RateLimiter(engine)
    try:
        tasks = [asyncio.create_task(limiter.check(f"k{i}", Limits(5, 1000), now=NOW)) for i in range(6)]
        await asyncio.sleep(0)  # every request queued its lease
        tasks[2].cancel()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        later = await limiter.check("k2", Limits(5, 1000), now=NOW)
    finally:
        await limiter.aclose()
        await engine.dispose()
    assert isinstance(results[2], asyncio.CancelledError)
    assert all(r.allowed for i, r in enumerate(results) if i != 2)  # type: ignore[union-attr]
    assert later.allowed


async def test_a_failing_database_fails_every_waiting_request_and_the_next_try_runs(settings):
    # A database without the counters' table: every lease statement fails.
    bare = Path(tempfile.mkdtemp(prefix="sb-ratelimit-")) / "bare.db"
    engine = create_engine(f"sqlite+aiosqlite:///{bare}", autocommit=True)
    limiter = RateLimiter(engine)
    try:
        results = await asyncio.wait_for(
            asyncio.gather(
                *(limiter.check(f"k{i}", Limits(5, 1000), now=NOW) for i in range(5)), return_exceptions=True
            ),
            timeout=10,
        )
        with pytest.raises(LeaseNotWritten) as again:
            await asyncio.wait_for(limiter.check("again", Limits(5, 1000), now=NOW), timeout=10)
    finally:
        await limiter.aclose()
        await engine.dispose()
    assert isinstance(again.value.__cause__, OperationalError)
    assert all(isinstance(r, LeaseNotWritten) for r in results), results
    # Each request has an error of its own, caused by the statement's.
    assert len({id(r) for r in results}) == 5
    assert all(isinstance(r.__cause__, OperationalError) for r in results)  # type: ignore[union-attr]
