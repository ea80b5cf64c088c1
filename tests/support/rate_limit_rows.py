"""The shared rate-limit counters as rows: each window's count by bucket, read straight from the table."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from switchboard.models.ratelimit import RateLimitCounter
from switchboard.store.tables import table_of


async def counts_by_bucket(engine: AsyncEngine) -> dict[str, int]:
    """Every counter's count, by its bucket (``<key>:s:<second>`` or ``<key>:d:<day>``)."""
    table = table_of(RateLimitCounter)
    async with engine.connect() as conn:
        rows = (await conn.execute(select(table.c.bucket, table.c.count))).all()
    return {bucket: count for bucket, count in rows}
