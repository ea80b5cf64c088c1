"""Raw channel webhook envelopes: kept with their last item (or first, when handed over), swept if never applied, pruned."""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from switchboard.models.events import RawInbound
from switchboard.models.inbound import InboundItemRecord

_raw = RawInbound.__table__  # type: ignore[attr-defined]
_items = InboundItemRecord.__table__  # type: ignore[attr-defined]


def _insert(session: AsyncSession):
    return postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert


async def store_raw_inbound(
    session: AsyncSession, *, payload_id: str, body: str, received_at: datetime
) -> bool:
    """Insert the envelope unless the same bytes were stored before; True when this call stored it."""
    stmt = (
        _insert(session)(_raw)
        .values(id=payload_id, body=body, received_at=received_at)
        .on_conflict_do_nothing(index_elements=[_raw.c.id])
        .returning(_raw.c.id)
    )
    return (await session.execute(stmt)).first() is not None


@cache
def _keep_processed(dialect: str) -> Any:
    """INSERT the envelope stamped processed, or stamp the stored one; built once per dialect (every payload)."""
    insert = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(_raw)
    return insert.on_conflict_do_update(
        index_elements=[_raw.c.id],
        set_={"processed_at": func.coalesce(_raw.c.processed_at, insert.excluded.processed_at)},
    ).returning(_raw.c.processed_at)


async def record_processed_raw_inbound(
    session: AsyncSession, *, payload_id: str, body: str, received_at: datetime, at: datetime | None
) -> bool:
    """Keep the envelope for retention, stamped processed at ``at`` (None: left for the sweeper).

    True when the envelope had already been stamped processed (the same body applied before); a stamp,
    once set, is kept. One statement: the row after the upsert holds ``at`` only if this call set it.
    """
    params = {"id": payload_id, "body": body, "received_at": received_at, "processed_at": at}
    stamped = (await session.execute(_keep_processed(session.get_bind().dialect.name), params)).scalar_one()
    return stamped is not None and stamped != at


async def raw_inbound_body(session: AsyncSession, payload_id: str) -> str | None:
    """A stored envelope's body (large bodies reach ProcessInbound by id), None if pruned or absent."""
    stmt = select(_raw.c.body).where(_raw.c.id == payload_id)
    return (await session.execute(stmt)).scalar_one_or_none()


async def raw_inbound_processed(session: AsyncSession, payload_id: str) -> bool:
    """Whether this envelope's processing already finished."""
    stmt = select(_raw.c.processed_at).where(_raw.c.id == payload_id)
    return (await session.execute(stmt)).scalar_one_or_none() is not None


async def mark_raw_inbound_processed(session: AsyncSession, payload_id: str, *, at: datetime) -> None:
    """Stamp the envelope as applied (the sweeper then leaves it alone)."""
    await session.execute(
        update(_raw).where(_raw.c.id == payload_id, _raw.c.processed_at.is_(None)).values(processed_at=at)
    )


async def unprocessed_raw_inbound(
    session: AsyncSession, *, received_before: datetime, limit: int
) -> list[RawInbound]:
    """Envelopes stored before ``received_before`` whose processing never finished, oldest first."""
    stmt = (
        select(RawInbound)
        .where(RawInbound.processed_at.is_(None), RawInbound.received_at < received_before)  # type: ignore[union-attr,arg-type]
        .order_by(RawInbound.received_at)  # type: ignore[arg-type]
        .limit(limit)
    )
    return list((await session.execute(stmt)).scalars().all())


async def prune_raw_inbound(
    session: AsyncSession, *, received_before: datetime, batch: int
) -> tuple[int, int]:
    """Delete up to ``batch`` envelopes received before the cut-off; returns (deleted, of which unprocessed)."""
    stmt = (
        select(_raw.c.id, _raw.c.processed_at)
        .where(_raw.c.received_at < received_before)
        .order_by(_raw.c.received_at)
        .limit(batch)
    )
    rows = (await session.execute(stmt)).all()
    if not rows:
        return 0, 0
    await session.execute(delete(_raw).where(_raw.c.id.in_([row.id for row in rows])))
    return len(rows), sum(1 for row in rows if row.processed_at is None)


async def prune_inbound_ledger(session: AsyncSession, *, applied_before: datetime, batch: int) -> int:
    """Delete up to ``batch`` dedup ledger rows older than the cut-off."""
    keys = select(_items.c.key).where(_items.c.applied_at < applied_before).limit(batch).scalar_subquery()
    result = await session.execute(delete(_items).where(_items.c.key.in_(keys)))
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


@cache
def _claim(dialect: str) -> Any:
    """INSERT a ledger key unless it exists, RETURNING it; built once per dialect (every item runs it)."""
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    return insert(_items).on_conflict_do_nothing(index_elements=[_items.c.key]).returning(_items.c.key)


async def claim_item(session: AsyncSession, *, key: str, payload_id: str | None, at: datetime) -> bool:
    """Record an item as applied in the caller's transaction; False when it already was."""
    params = {"key": key, "payload_id": payload_id, "applied_at": at}
    claimed = await session.execute(_claim(session.get_bind().dialect.name), params)
    return claimed.first() is not None


async def advance_watermark(session: AsyncSession, *, key: str, at: datetime) -> bool:
    """Move a ledger watermark row to ``at`` unless it already holds a later time; False when it does.

    Unlike an item key, a watermark row's ``applied_at`` is the upstream time of
    the newest change applied for one subject (e.g. one template's category), so
    an older change that arrives later can tell it lost. It is pruned with the
    ledger once that time is past the retention, when no older change can come.
    """
    insert = _insert(session)(_items).values(key=key, payload_id=None, applied_at=at)
    stmt = insert.on_conflict_do_update(
        index_elements=[_items.c.key],
        set_={"applied_at": insert.excluded.applied_at},
        where=_items.c.applied_at <= insert.excluded.applied_at,
    ).returning(_items.c.key)
    return (await session.execute(stmt)).first() is not None
