"""Shared fixed-window counters for per-key rate limits.

One statement increments the second and the day window together and only
where the window still has room, so a request costs one round trip; a denial
gives back the slot it took in the other window so that rejected requests do
not eat the daily quota.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from domain.rate_limits import Limits, Windows
from models.ratelimit import RateLimitCounter

_table = RateLimitCounter.__table__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Hit:
    second_count: int | None
    day_count: int | None

    @property
    def allowed(self) -> bool:
        return self.second_count is not None and self.day_count is not None


def _increment(conn: AsyncConnection, rows: list[dict[str, object]]):  # type: ignore[no-untyped-def]
    """INSERT the buckets or add one where the bucket still has room; RETURNING the counts taken."""
    insert = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
    stmt = insert(_table).values(rows)
    return stmt.on_conflict_do_update(
        index_elements=[_table.c.bucket],
        set_={"count": _table.c.count + 1, "limit_value": stmt.excluded.limit_value},
        where=_table.c.count < stmt.excluded.limit_value,
    ).returning(_table.c.bucket, _table.c.count)


async def take(conn: AsyncConnection, bucket: str, *, limit: int, expires_at: datetime) -> int | None:
    """Take one slot of a single window; its new count, or None when the window is full."""
    row = (
        await conn.execute(
            _increment(conn, [{"bucket": bucket, "count": 1, "limit_value": limit, "expires_at": expires_at}])
        )
    ).first()
    return None if row is None else int(row[1])


async def hit(conn: AsyncConnection, windows: Windows, limits: Limits) -> Hit:
    """Count one request in both windows, unless either is full."""
    second_expiry = datetime.fromtimestamp(windows.second_reset + 5, UTC)
    day_expiry = datetime.fromtimestamp(windows.day_reset, UTC) + timedelta(hours=1)
    stmt = _increment(
        conn,
        [
            {"bucket": windows.second_bucket, "count": 1, "limit_value": limits.per_second,
             "expires_at": second_expiry},
            {"bucket": windows.day_bucket, "count": 1, "limit_value": limits.per_day, "expires_at": day_expiry},
        ],
    )
    counts = {bucket: count for bucket, count in (await conn.execute(stmt)).all()}
    result = Hit(counts.get(windows.second_bucket), counts.get(windows.day_bucket))
    if not result.allowed:
        taken = [b for b in (windows.second_bucket, windows.day_bucket) if b in counts]
        if taken:
            await conn.execute(
                update(_table).where(_table.c.bucket.in_(taken)).values(count=_table.c.count - 1)
            )
    return result


async def prune_expired(conn: AsyncConnection, *, now: datetime) -> int:
    """Delete counters whose window has passed; returns how many."""
    result = await conn.execute(delete(_table).where(_table.c.expires_at < now))
    return int(result.rowcount or 0)
