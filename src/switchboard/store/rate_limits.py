"""Shared fixed-window counters (per-key API limits, per-phone send slots).

A window's count lives in one row that every process increments, so limits
hold across processes. ``lease`` takes several slots at once (all or nothing,
never past the limit), which lets a process serve many requests from memory
per round trip; ``take`` is the one-slot form.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import delete
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from switchboard.models.ratelimit import RateLimitCounter
from switchboard.store.tables import table_of

_table = table_of(RateLimitCounter)


def _claim(conn: AsyncConnection, bucket: str, *, want: int, limit: int, expires_at: datetime) -> Any:
    """INSERT the bucket with ``want`` or add ``want`` where that stays within the limit; RETURNING the count."""
    insert = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
    stmt = insert(_table).values(bucket=bucket, count=want, limit_value=limit, expires_at=expires_at)
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
    for size in (want, 1) if want > 1 else (1,):
        row = (
            await conn.execute(_claim(conn, bucket, want=size, limit=limit, expires_at=expires_at))
        ).first()
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
