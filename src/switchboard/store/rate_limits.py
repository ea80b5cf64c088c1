"""Shared fixed-window counters (per-key API limits, per-phone send slots).

A window's count lives in one row that every process increments, so limits
hold across processes. ``lease`` takes several slots at once (all or nothing,
never past the limit), which lets a process serve many requests from memory
per round trip; ``take`` is the one-slot form.
"""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import bindparam, delete
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from switchboard.models.ratelimit import RateLimitCounter
from switchboard.store.tables import table_of

_table = table_of(RateLimitCounter)


@cache
def _claim(dialect: str) -> Any:
    """INSERT the bucket with ``want`` or add ``want`` where that stays within the limit; RETURNING the count.

    Built once per dialect with bound parameters: constructing the upsert is
    most of a lease's CPU, and a lease is taken on every request that opens a
    key's per-second window.
    """
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    stmt = insert(_table).values(
        bucket=bindparam("bucket", type_=_table.c.bucket.type),
        count=bindparam("want", type_=_table.c.count.type),
        limit_value=bindparam("limit", type_=_table.c.limit_value.type),
        expires_at=bindparam("expires_at", type_=_table.c.expires_at.type),
    )
    return stmt.on_conflict_do_update(
        index_elements=[_table.c.bucket],
        set_={"count": _table.c.count + stmt.excluded.count, "limit_value": stmt.excluded.limit_value},
        where=_table.c.count + stmt.excluded.count <= stmt.excluded.limit_value,
    ).returning(_table.c.count)


async def lease(
    conn: AsyncConnection, bucket: str, *, want: int, limit: int, expires_at: datetime
) -> tuple[int, int]:
    """Take ``want`` slots, or one when fewer remain; returns (granted, window count after)."""
    want = max(1, min(want, limit))
    claim = _claim(conn.dialect.name)
    for size in (want, 1) if want > 1 else (1,):
        values = {"bucket": bucket, "want": size, "limit": limit, "expires_at": expires_at}
        row = (await conn.execute(claim, values)).first()
        if row is not None:
            return size, int(row[0])
    return 0, limit


async def take(conn: AsyncConnection, bucket: str, *, limit: int, expires_at: datetime) -> int | None:
    """Take one slot of a window; its new count, or None when the window is full."""
    granted, count = await lease(conn, bucket, want=1, limit=limit, expires_at=expires_at)
    return count if granted else None


async def prune_expired(conn: AsyncConnection, *, now: datetime) -> int:
    """Delete counters whose window has passed; returns how many."""
    result = await conn.execute(delete(_table).where(_table.c.expires_at < now))
    return int(result.rowcount or 0)
