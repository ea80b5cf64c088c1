"""Engine and unit of work.

Both SQLite (embedded default) and PostgreSQL (production) run the same code.
SQLite gets WAL and a busy timeout so several processes (two API processes, a
worker) can share one file. The unit of work is the only place that commits:
store functions take a session and never commit themselves.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
import weakref
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from sqlalchemy import event, exc
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

from switchboard.store.sqlite_driver import (
    AUTOCHECKPOINT_PAGES,
    BUSY_TIMEOUT_MS,
    ReadsOnLoop,
    WriteTurn,
    one_hop_dbapi,
)

# A pooled PostgreSQL connection idle for longer than this is pinged before it is handed out.
PING_AFTER_IDLE_SECONDS = 1.0


def create_engine(
    database_url: str,
    *,
    pool_size: int = 10,
    ping_after_idle_seconds: float = PING_AFTER_IDLE_SECONDS,
    autocommit: bool = False,
) -> AsyncEngine:
    """An async engine for ``database_url`` with per-dialect settings.

    ``autocommit`` makes an engine for work that needs no transaction of its
    own: reads, and single statements that are atomic by themselves (an upsert,
    one UPDATE). Each statement commits as it runs, so a session on it costs no
    BEGIN and no COMMIT or ROLLBACK round trip (about 0.3 ms of CPU each on
    PostgreSQL). It has its own pool: switching the main pool's connections in
    and out of autocommit per checkout (``execution_options``) measured no
    saving at all.
    """
    url = make_url(database_url)
    isolation = {"isolation_level": "AUTOCOMMIT"} if autocommit else {}
    if url.get_backend_name() == "sqlite":
        # A file's engine keeps every connection it opens (sqlite_pool_size says why); ``:memory:`` has
        # one connection, which SQLAlchemy's own pool for it keeps.
        pool: dict[str, int] = {}
        if url.database and url.database != ":memory:":
            os.makedirs(os.path.dirname(os.path.abspath(url.database)), exist_ok=True)
            pool = {"pool_size": sqlite_pool_size(pool_size), "max_overflow": 0}
        # hide_parameters: SQL errors in logs never carry message bodies, phones or tokens.
        engine = create_async_engine(
            url,
            module=one_hop_dbapi(),
            # The one-hop cursor is made on the event loop's thread (store/sqlite_driver.py).
            connect_args={"timeout": BUSY_TIMEOUT_MS / 1000, "check_same_thread": False},
            hide_parameters=True,
            **pool,
            **isolation,
        )
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return engine
    engine = create_async_engine(
        url, pool_size=pool_size, max_overflow=pool_size, hide_parameters=True, **isolation
    )
    _ping_idle_connections(engine, after_seconds=ping_after_idle_seconds)
    return engine


def sqlite_pool_size(pool_size: int) -> int:
    """How many SQLite connections an engine keeps: as many as a PostgreSQL engine may have at once.

    SQLAlchemy's default pool for SQLite keeps 5 connections and closes any
    further one (up to 10 more) when it is returned. Sixteen concurrent sandbox
    sends opened a new connection for one request in five: each a new aiosqlite
    thread, whose start the event loop waits for, a file open and four PRAGMAs.
    With them kept, a sandbox send's time and CPU in the API fell by about a
    third (docs/decisions/0006-sqlite-write-path.md). An idle SQLite connection costs a
    parked thread and its page cache, no server process, so the engine keeps
    every one it opens, up to the cap a PostgreSQL engine has (``pool_size``
    plus as many overflow), and a request beyond that waits for one
    (``pool_timeout``, 30 s) as it did beyond the old cap of 15.
    """
    return 2 * pool_size


def _ping_idle_connections(engine: AsyncEngine, *, after_seconds: float) -> None:
    """Ping a pooled connection before use only when it sat idle for ``after_seconds``.

    SQLAlchemy's ``pool_pre_ping`` pings on every checkout: a round trip (and
    the BEGIN it opens) per session, about 0.7 ms of CPU on a session whose own
    work is one short statement. A connection checked in before a server
    restart or a failover has been idle for at least the outage when it is
    next checked out, so outages longer than a second are caught here as
    pre-ping would. A connection that dies while in steady use (a sub-second
    restart, ``pg_terminate_backend``) fails its next statement instead, which
    SQLAlchemy reports as a disconnect and answers by recycling that pool: the
    requests (500s) and activity attempts (retried by Temporal) that held or
    next take one of its dead connections fail, once per pool, not once per
    connection for as long as the dead ones last.
    """
    sync_engine = engine.sync_engine

    def mark_idle(_dbapi_connection: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    def ping_if_idle(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        if time.monotonic() - record.info.get("idle_since", 0.0) <= after_seconds:
            return
        dialect = sync_engine.dialect
        try:
            dialect.do_ping(dbapi_connection)
        except dialect.loaded_dbapi.Error as error:
            if not dialect.is_disconnect(error, dbapi_connection, None):
                raise
            # Like pre-ping: recycle every pooled connection older than now, then connect afresh.
            raise exc.InvalidatePoolError() from error

    event.listen(sync_engine, "connect", mark_idle)
    event.listen(sync_engine, "checkin", mark_idle)
    event.listen(sync_engine, "checkout", ping_if_idle)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    cursor.execute(f"PRAGMA wal_autocheckpoint={AUTOCHECKPOINT_PAGES}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Sessions that keep loaded attributes after commit (responses read them).

    On an ``autocommit`` engine they are for reads and single self-contained
    statements: never add or change an ORM object in one (no flush), since
    nothing would hold several writes together.
    """
    return async_sessionmaker(engine, expire_on_commit=False)


@asynccontextmanager
async def unit_of_work(sessions: async_sessionmaker[AsyncSession]) -> AsyncIterator[AsyncSession]:
    """One transaction: commits on success, rolls back on any exception."""
    async with sessions() as session:
        try:
            yield session
            await session.commit()
        except BaseException:
            await session.rollback()
            raise


# Each event loop's write turns, one per SQLite file (an asyncio lock belongs to one loop; tests run many).
_write_turns: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, WriteTurn]] = (
    weakref.WeakKeyDictionary()
)


def write_turn(on: async_sessionmaker[AsyncSession] | AsyncEngine) -> AbstractAsyncContextManager[Any]:
    """This process's write turn for the database ``on`` writes to; nothing to wait for on PostgreSQL.

    ``on`` is the sessions (or the engine) the writer writes with. On a SQLite file, the writers that
    take it (an inbound item's transaction, its events' dispatch stamp, a delivery attempt's record, a
    send's message, throughput slot and outcome, the API's rate-limit leases) go one at a time and run
    their statements on the event loop (store/sqlite_driver.py). Every engine on the same file shares
    the turn: the autocommit engine's stamp waits for the main engine's transaction. PostgreSQL takes
    concurrent writers as they come.
    """
    path = _sqlite_file(on)
    if path is None:
        return contextlib.nullcontext()
    turns = _write_turns.setdefault(asyncio.get_running_loop(), {})
    turn = turns.get(path)
    if turn is None:
        turn = turns[path] = WriteTurn()
    return turn


def reads_on_loop(
    on: async_sessionmaker[AsyncSession] | AsyncEngine,
) -> contextlib.AbstractContextManager[Any]:
    """On a SQLite file, this task's reads with ``on`` run on the event loop, with no hop; else nothing.

    For a few short reads by a key on a hot path (a send's phone, a delivery's attempt), never for a
    write or an unbounded scan (``sqlite_driver.ReadsOnLoop``).
    """
    if _sqlite_file(on) is None:
        return contextlib.nullcontext()
    return ReadsOnLoop()


def _sqlite_file(on: async_sessionmaker[AsyncSession] | AsyncEngine) -> str | None:
    """The absolute path of the SQLite file ``on`` works on; None on PostgreSQL or in memory."""
    engine = on if isinstance(on, AsyncEngine) else on.kw.get("bind")
    database = engine.url.database if engine is not None and engine.dialect.name == "sqlite" else None
    if not database or database == ":memory:":
        return None
    return os.path.abspath(database)
