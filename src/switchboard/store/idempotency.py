"""Idempotency-Key records that hold across API processes.

A request first claims its key in a short transaction of its own (so other
processes see the claim at once): a new key is inserted as ``in_progress`` with
a lock; a completed key with the same request fingerprint is replayed; a
completed key with a different fingerprint is a 422 (IETF draft); a key whose
lock is still held is a 409 ``request_in_progress``; a key whose lock expired
(its request crashed) is taken over with a compare-and-set on the lock.
The 2xx response is stored by whoever commits the final state of the
resource, in that same transaction; a 4xx/5xx deletes the record.

Sandbox and live keys of one tenant have separate key spaces (``scope``), so a
sandbox rehearsal never replays, blocks or is blocked by a live send.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, bindparam, delete, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import select

from switchboard.domain.errors import Conflict, Unprocessable
from switchboard.models.messaging import IdempotencyRecord
from switchboard.store.tables import table_of

RECORD_LIFETIME = timedelta(hours=24)
API_LOCK = timedelta(seconds=60)

_table = table_of(IdempotencyRecord)


def scope(tenant_id: str, *, sandbox: bool) -> str:
    """The key space of a request: the tenant's live keys, or its sandbox keys."""
    return f"{tenant_id}:sandbox" if sandbox else tenant_id


def fingerprint(method: str, path: str, body: Any) -> str:
    """A stable digest of the request a key was first used with."""
    canonical = json.dumps([method.upper(), path, body], sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True)
class Claim:
    """Either we own the key now (``replay`` is None) or a stored 2xx to replay."""

    replay_status: int | None = None
    replay_body: dict[str, Any] | None = None

    @property
    def is_replay(self) -> bool:
        return self.replay_status is not None


def _in_progress() -> Conflict:
    return Conflict(
        "a request with this Idempotency-Key is still in progress; retry in 500 ms to 1 s",
        code="request_in_progress",
    )


async def claim(session: AsyncSession, *, tenant_id: str, key: str, fingerprint: str, now: datetime) -> Claim:
    """Claim ``key`` for this request, or replay, or raise 409/422. Caller commits at once."""
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    stmt = (
        insert(_table)
        .values(
            tenant_id=tenant_id,
            key=key,
            fingerprint=fingerprint,
            state="in_progress",
            locked_until=now + API_LOCK,
            created_at=now,
            expires_at=now + RECORD_LIFETIME,
        )
        .on_conflict_do_nothing(index_elements=[_table.c.tenant_id, _table.c.key])
        .returning(_table.c.key)
    )
    # RETURNING rather than rowcount: drivers disagree on rowcount for upserts.
    if (await session.execute(stmt)).first() is not None:
        return Claim()
    row = (
        await session.execute(
            select(IdempotencyRecord)
            .where(IdempotencyRecord.tenant_id == tenant_id, IdempotencyRecord.key == key)
            .execution_options(populate_existing=True)
        )
    ).scalar_one()
    expired = row.expires_at <= now
    held = row.state == "in_progress" and row.locked_until > now
    if (held or not expired) and row.fingerprint != fingerprint:
        raise Unprocessable(
            "this Idempotency-Key was used with a different request body",
            code="idempotency_key_reused",
            details={"field": "Idempotency-Key"},
        )
    if row.state == "completed" and not expired:
        return Claim(replay_status=row.response_status, replay_body=row.response_body)
    if held:
        # Whoever holds the lock (a request, or the send workflow it started) owns the key,
        # however old the record is.
        raise _in_progress()
    # Expired record or stale lock: take it over only if nobody else just did.
    taken = await session.execute(
        update(_table)
        .where(
            _table.c.tenant_id == tenant_id,
            _table.c.key == key,
            _table.c.locked_until == row.locked_until,
            _table.c.state == row.state,
        )
        .values(
            fingerprint=fingerprint,
            state="in_progress",
            locked_until=now + API_LOCK,
            response_status=None,
            response_body=None,
            created_at=now,
            expires_at=now + RECORD_LIFETIME,
        )
        .returning(_table.c.key)
    )
    if taken.first() is None:
        raise _in_progress()
    return Claim()


async def hold(session: AsyncSession, *, tenant_id: str, key: str, until: datetime) -> None:
    """Extend the lock (and the record) while durable work (a send workflow) owns the outcome."""
    await session.execute(
        update(_table)
        .where(_table.c.tenant_id == tenant_id, _table.c.key == key)
        .values(locked_until=until, expires_at=until)
    )


# Built once (every send with a key runs it); an UPDATE's bound names may not be column names.
_COMPLETE = (
    update(_table)
    .where(_table.c.tenant_id == bindparam("of_tenant_id"), _table.c.key == bindparam("of_key"))
    .values(state="completed")
)


async def complete(
    session: AsyncSession, *, tenant_id: str, key: str, status: int, body: dict[str, Any], now: datetime
) -> None:
    """Store a 2xx response for replay for 24 h (in the resource's transaction)."""
    await session.execute(
        _COMPLETE,
        {
            "of_tenant_id": tenant_id,
            "of_key": key,
            "response_status": status,
            "response_body": body,
            "expires_at": now + RECORD_LIFETIME,
        },
    )


async def release(session: AsyncSession, *, tenant_id: str, key: str) -> None:
    """Forget the key after a 4xx/5xx so a corrected retry runs cleanly."""
    await session.execute(delete(_table).where(_table.c.tenant_id == tenant_id, _table.c.key == key))


async def prune_expired(session: AsyncSession, *, now: datetime) -> int:
    """Delete records past their 24 h lifetime."""
    result = await session.execute(
        delete(_table).where(_table.c.expires_at < now, _table.c.state == "completed")
    )
    # A DELETE's result is a CursorResult; AsyncSession.execute is typed with the Result base.
    return int(cast("CursorResult[Any]", result).rowcount or 0)
