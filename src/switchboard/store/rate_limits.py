"""Shared fixed-window counters (per-key API limits, per-phone send slots).

A window's count lives in one row that every process increments, so limits
hold across processes. ``lease`` takes several slots at once (all or nothing,
never past the limit), which lets a process serve many requests from memory
per round trip; ``lease_many`` takes leases of several buckets in one
statement; ``take`` is the one-slot form.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import bindparam, delete, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.dialects.postgresql.base import PGDialect
from sqlalchemy.dialects.sqlite.base import SQLiteDialect
from sqlalchemy.ext.asyncio import AsyncConnection

from switchboard.models.ratelimit import RateLimitCounter
from switchboard.store.tables import table_of

_table = table_of(RateLimitCounter)


@dataclass(frozen=True)
class Want:
    """A lease to take: ``want`` slots of ``bucket``'s window, whose limit is ``limit``."""

    bucket: str
    want: int
    limit: int
    expires_at: datetime


# The most leases one statement takes. A statement is built and cached per number of rows, and
# psycopg keeps at most 100 prepared statements a connection: the sizes stay well under that.
MAX_BATCH = 32


@cache
def _claim(dialect: str, rows: int) -> Any:
    """INSERT each bucket with its ``want``, or add it where that stays within the limit; RETURNING the counts.

    Built once per dialect and number of rows with bound parameters: constructing
    the upsert is most of a lease's CPU. A bucket whose ``want`` does not fit is
    not updated, so it is missing from what the statement returns.
    """
    upsert = _upsert(dialect, rows)
    if rows == 1:
        return upsert
    # SQLAlchemy gives a multi-row VALUES no cache key, so it would compile the upsert again at every
    # execution: the one statement of the API's hot paths it never cached (about 5 % of an API
    # process's samples under sandbox sends over 128 keys, py-spy). The same SQL as a text() is
    # cached like any other statement. It is written with
    # named parameters by the dialect without a driver, which renders no casts; its bound parameters
    # keep their types, so the connection's dialect renders the casts and converts the values as it
    # does for the built statement (tests/api/test_rate_limiter_batches.py).
    plain = PGDialect if dialect == "postgresql" else SQLiteDialect
    compiled = upsert.compile(dialect=plain(paramstyle="named"))
    return text(compiled.string).bindparams(*compiled.binds.values()).columns(_table.c.bucket, _table.c.count)


def _upsert(dialect: str, rows: int) -> Any:
    """The claim as SQLAlchemy builds it: ``rows`` VALUES of bound parameters, and the conditional update."""
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    values = [
        {
            "bucket": bindparam(f"bucket_{i}", type_=_table.c.bucket.type),
            "count": bindparam(f"want_{i}", type_=_table.c.count.type),
            "limit_value": bindparam(f"limit_{i}", type_=_table.c.limit_value.type),
            "expires_at": bindparam(f"expires_at_{i}", type_=_table.c.expires_at.type),
        }
        for i in range(rows)
    ]
    # One row goes in as a single VALUES, not a list of one: SQLAlchemy caches the compiled form of a
    # single VALUES (the common lease: a send's throughput slot, a key's chunk), not of a list.
    stmt = insert(_table).values(values[0] if rows == 1 else values)
    return stmt.on_conflict_do_update(
        index_elements=[_table.c.bucket],
        set_={"count": _table.c.count + stmt.excluded.count, "limit_value": stmt.excluded.limit_value},
        where=_table.c.count + stmt.excluded.count <= stmt.excluded.limit_value,
    ).returning(_table.c.bucket, _table.c.count)


async def lease_many(conn: AsyncConnection, wants: Sequence[Want]) -> list[tuple[int, int]]:
    """``lease`` for up to MAX_BATCH distinct buckets, in one statement (two when a chunk does not fit).

    Each answer is (granted, window count after), in the order of ``wants``: the
    whole chunk, else one slot, else (0, limit). A process's leases wait for
    each other on SQLite (one writer), so taking them a batch per statement is
    what keeps a burst of new windows from queueing.
    """

    async def claim(rows: Sequence[Claim]) -> dict[str, int]:
        values: dict[str, Any] = {}
        for row, (bucket, size, limit, expires_at) in enumerate(rows):
            values |= {
                f"bucket_{row}": bucket,
                f"want_{row}": size,
                f"limit_{row}": limit,
                f"expires_at_{row}": expires_at,
            }
        result = await conn.execute(_claim(conn.dialect.name, len(rows)), values)
        return {bucket: int(count) for bucket, count in result.all()}

    return await lease_in_rounds(claim, wants)


# One bucket's claim as a statement takes it: (bucket, slots wanted, limit, expires_at).
Claim = tuple[str, int, int, datetime]


async def lease_in_rounds(
    claim: Callable[[Sequence[Claim]], Awaitable[dict[str, int]]], wants: Sequence[Want]
) -> list[tuple[int, int]]:
    """``lease_many``'s answers, with ``claim`` running each round's statement (its new counts by bucket).

    The first round claims every chunk; a bucket whose chunk did not fit is
    missing from the counts and tries one slot in a second round. Shared by the
    SQLAlchemy statement above and the limiter's own PostgreSQL connection
    (store/lease_connection.py), so both answer alike.
    """
    if len(wants) > MAX_BATCH or len({w.bucket for w in wants}) != len(wants):
        raise ValueError(f"at most {MAX_BATCH} leases of distinct buckets per statement")
    sizes = [max(1, min(w.want, w.limit)) for w in wants]
    answers: dict[int, tuple[int, int]] = {}
    # PostgreSQL locks a multi-row upsert's rows in the order of its VALUES: in bucket order, two
    # processes' batches of the same buckets wait for each other instead of deadlocking.
    pending = sorted(range(len(wants)), key=lambda i: wants[i].bucket)
    while pending:
        counts = await claim(
            [(wants[i].bucket, sizes[i], wants[i].limit, wants[i].expires_at) for i in pending]
        )
        retry = []
        for i in pending:
            if wants[i].bucket in counts:
                answers[i] = (sizes[i], counts[wants[i].bucket])
            elif sizes[i] > 1:
                sizes[i] = 1  # the chunk does not fit: one slot may
                retry.append(i)
            else:
                answers[i] = (0, wants[i].limit)
        pending = retry
    return [answers[i] for i in range(len(wants))]


async def lease(
    conn: AsyncConnection, bucket: str, *, want: int, limit: int, expires_at: datetime
) -> tuple[int, int]:
    """Take ``want`` slots, or one when fewer remain; returns (granted, window count after)."""
    (answer,) = await lease_many(conn, [Want(bucket, want, limit, expires_at)])
    return answer


async def take(conn: AsyncConnection, bucket: str, *, limit: int, expires_at: datetime) -> int | None:
    """Take one slot of a window; its new count, or None when the window is full."""
    granted, count = await lease(conn, bucket, want=1, limit=limit, expires_at=expires_at)
    return count if granted else None


async def prune_expired(conn: AsyncConnection, *, now: datetime) -> int:
    """Delete counters whose window has passed; returns how many."""
    result = await conn.execute(delete(_table).where(_table.c.expires_at < now))
    return int(result.rowcount or 0)
