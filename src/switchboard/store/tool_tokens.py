"""SQL of the shared tool-token cache and its single-flight lease.

Every write is one statement whose WHERE clause is the whole condition (compare-and-set), so it holds
across processes on PostgreSQL (row locks, READ COMMITTED re-check) and on SQLite (one writer at a
time) alike. Callers run each function in its own short unit of work, so a lease claim is visible
to other workers the moment it commits.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import ColumnElement, CursorResult, delete, or_, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import select

from switchboard.models.tool_tokens import ToolToken
from switchboard.store.tables import table_of

_table = table_of(ToolToken)


@dataclass(frozen=True)
class TokenKey:
    """Which cached token: a tenant's tool, for one rendered token request."""

    tenant_id: str
    tool_slug: str
    cache_key: str


def _match(key: TokenKey) -> tuple[ColumnElement[bool], ...]:
    return (
        _table.c.tenant_id == key.tenant_id,
        _table.c.tool_slug == key.tool_slug,
        _table.c.cache_key == key.cache_key,
    )


@dataclass(frozen=True)
class CachedRow:
    """What a reader needs: the sealed token if it is still fresh, and who holds the lease until when."""

    token_sealed: str | None
    lease_until: datetime | None


async def read_fresh(session: AsyncSession, key: TokenKey, *, now: datetime) -> CachedRow | None:
    """The row of ``key`` with its token blanked when expired; None when there is no row."""
    row = (
        await session.execute(
            select(_table.c.token_sealed, _table.c.expires_at, _table.c.lease_until).where(*_match(key))
        )
    ).first()
    if row is None:
        return None
    fresh = row.token_sealed is not None and row.expires_at is not None and row.expires_at > now
    return CachedRow(token_sealed=row.token_sealed if fresh else None, lease_until=row.lease_until)


async def claim_lease(
    session: AsyncSession, key: TokenKey, *, owner: str, now: datetime, until: datetime
) -> bool:
    """Become the one fetcher of ``key``: only when no fresh token exists and no live lease is held."""
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    inserted = await session.execute(
        insert(_table)
        .values(
            tenant_id=key.tenant_id,
            tool_slug=key.tool_slug,
            cache_key=key.cache_key,
            lease_owner=owner,
            lease_until=until,
            updated_at=now,
        )
        .on_conflict_do_nothing(index_elements=[_table.c.tenant_id, _table.c.tool_slug, _table.c.cache_key])
        .returning(_table.c.cache_key)
    )
    # RETURNING rather than rowcount: drivers disagree on rowcount for upserts.
    if inserted.first() is not None:
        return True
    taken = await session.execute(
        update(_table)
        .where(
            *_match(key),
            or_(_table.c.token_sealed.is_(None), _table.c.expires_at <= now),
            or_(_table.c.lease_until.is_(None), _table.c.lease_until <= now),
        )
        .values(lease_owner=owner, lease_until=until, updated_at=now)
        .returning(_table.c.cache_key)
    )
    return taken.first() is not None


async def store_token(
    session: AsyncSession, key: TokenKey, *, owner: str, sealed: str, expires_at: datetime, now: datetime
) -> None:
    """Save a freshly fetched token and end ``owner``'s lease (a newer lease of someone else stays)."""
    await session.execute(
        update(_table).where(*_match(key)).values(token_sealed=sealed, expires_at=expires_at, updated_at=now)
    )
    await release_lease(session, key, owner=owner)


async def release_lease(session: AsyncSession, key: TokenKey, *, owner: str) -> None:
    """End ``owner``'s lease (after a failed fetch) so a waiting worker can try."""
    await session.execute(
        update(_table)
        .where(*_match(key), _table.c.lease_owner == owner)
        .values(lease_owner=None, lease_until=None)
    )


async def invalidate(session: AsyncSession, key: TokenKey, *, sealed: str) -> bool:
    """Drop the cached token if it is still the one that was refused (a newer one stays)."""
    result = await session.execute(
        update(_table)
        .where(*_match(key), _table.c.token_sealed == sealed)
        .values(token_sealed=None, expires_at=None)
        .returning(_table.c.cache_key)
    )
    return result.first() is not None


async def prune_expired(session: AsyncSession, *, now: datetime) -> int:
    """Delete rows whose token has expired (or was dropped) and whose lease is over."""
    result = await session.execute(
        delete(_table).where(
            or_(_table.c.expires_at.is_(None), _table.c.expires_at <= now),
            or_(_table.c.lease_until.is_(None), _table.c.lease_until <= now),
        )
    )
    # A DELETE's result is a CursorResult; AsyncSession.execute is typed with the Result base.
    return int(cast("CursorResult[Any]", result).rowcount or 0)
