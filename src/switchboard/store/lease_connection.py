"""The rate limiter's own PostgreSQL connection: a lease for under half the CPU the pool and SQLAlchemy cost.

Every API request takes its key's per-second and per-day slots from leases that a
process keeps in memory (api/rate_limiter.py), and a key near its limit needs a new
lease every few requests: sandbox keys (10/s, leased 2 at a time) spread over two API
processes needed one for about every second request (docs/decisions/0011-rate-limit-leases.md).
Through the autocommit engine a lease cost 0.41 to 0.45 ms of the API's CPU (2,000
one-row leases in a loop): about 0.06 ms of it the pool's checkout and check-in, most
of the rest SQLAlchemy's execution around a statement that is already compiled. On a
connection of its own, with one statement text for every batch size (arrays
unnested, so psycopg prepares it once), it cost 0.18 to 0.21 ms.

The connection takes the engine's own connection arguments (the dialect's
``create_connect_args``), so a password or a query value with spaces or other
characters that a URL escapes, and several hosts, reach libpq as the engine's
connections get them. The limiter has one writer task per process, so this
connection is never used by two statements at once. It opens on the first lease
and again after a failure, until it is closed for good (the app's shutdown). A
statement that fails on a connection that had served before is tried once more on a
new one: the server may have closed it while it sat idle (a restart, a failover), which
the engine's pool would have caught with its ping after idle
(store/database._ping_idle_connections). Trying again can count a lease twice when
the first try committed and only its answer was lost; that makes the window admit
fewer requests, never more than its limit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg
from sqlalchemy.ext.asyncio import AsyncEngine

from switchboard.store.rate_limits import Claim, Want, lease_in_rounds

# The claim of store/rate_limits._upsert, as one text for any number of rows. Rows are claimed in
# the order of the arrays, which lease_in_rounds sorts by bucket (so two processes' batches of the
# same buckets wait for each other instead of deadlocking).
CLAIM = (
    "INSERT INTO rate_limit_counters (bucket, count, limit_value, expires_at) "
    "SELECT * FROM unnest(%s::varchar[], %s::integer[], %s::integer[], %s::timestamptz[]) "
    "ON CONFLICT (bucket) DO UPDATE SET count = rate_limit_counters.count + excluded.count, "
    "limit_value = excluded.limit_value "
    "WHERE rate_limit_counters.count + excluded.count <= excluded.limit_value "
    "RETURNING bucket, count"
)

CONNECT_TIMEOUT_SECONDS = 5


class LeaseConnection:
    """One autocommit psycopg connection that runs lease claims for one writer task at a time."""

    def __init__(self, engine: AsyncEngine) -> None:
        args, kwargs = engine.dialect.create_connect_args(engine.url)
        self._connect_args: tuple[Any, ...] = tuple(args)
        # The URL's own connect_timeout, if it sets one, wins over the default here.
        self._connect_kwargs: dict[str, Any] = {"connect_timeout": CONNECT_TIMEOUT_SECONDS, **kwargs}
        self._conn: psycopg.AsyncConnection | None = None
        self._closed = False
        self.statements = 0  # claims sent, for tests and the bench's counts

    async def lease_many(self, wants: Sequence[Want]) -> list[tuple[int, int]]:
        """As ``rate_limits.lease_many``: (granted, window count after) for each want, in order."""
        reused = self._conn is not None and not self._conn.closed
        try:
            return await lease_in_rounds(self._claim, wants)
        except psycopg.OperationalError:
            await self._drop()
            if not reused or self._closed:
                raise
        # The connection had served before and may have been closed while idle: once more, on a new one.
        return await lease_in_rounds(self._claim, wants)

    async def _claim(self, rows: Sequence[Claim]) -> dict[str, int]:
        conn = await self._connection()
        buckets, sizes, limits, expiries = zip(*rows, strict=True)
        self.statements += 1
        cursor = await conn.execute(
            CLAIM, (list(buckets), list(sizes), list(limits), list(expiries)), prepare=True
        )
        return {bucket: int(count) for bucket, count in await cursor.fetchall()}

    async def _connection(self) -> psycopg.AsyncConnection:
        if self._closed:
            raise psycopg.OperationalError(
                "the rate limiter's connection is closed (the process is stopping)"
            )
        if self._conn is None or self._conn.closed:
            self._conn = await psycopg.AsyncConnection.connect(
                *self._connect_args, **self._connect_kwargs, autocommit=True
            )
        return self._conn

    async def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            await conn.close()

    async def close(self) -> None:
        """Close the connection for good: a lease after this fails instead of opening another."""
        self._closed = True
        await self._drop()
