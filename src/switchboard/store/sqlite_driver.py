"""SQLAlchemy's aiosqlite adapter: one thread hop per statement instead of three or four, none in a write turn.

aiosqlite runs every call on a connection's own thread: SQLAlchemy's adapter makes the cursor (a hop),
executes (a hop), fetches the rows (a hop) and closes the cursor (a hop), and each hop costs a queue
put, a thread wake-up and a call back into the event loop through its self-pipe. Under load that was
about a quarter of the API's Python time on SQLite (docs/decisions/0006-sqlite-write-path.md). Here the cursor is
made and closed on the event loop, where neither touches the database file (a cursor is a Python
object until it executes, and closing one that has fetched its rows only drops it), and a statement and
the fetching of its rows run in one hop. Transactions, commits, rollbacks and the busy timeout are
unchanged: outside a write turn (below) and a few keyed reads (``ReadsOnLoop``), every call that reads
or writes the file still runs on the connection's thread, so a writer waiting for another process's
lock blocks that thread, never the event loop.

A task that holds its process's write turn for the file (``WriteTurn``; ``store.database.write_turn``)
runs its statements and its commit on the event loop's thread instead, with no hop at all. Under load,
each hop's answer waits in the loop's queue behind every other ready task while the transaction holds
SQLite's one write lock, and the turn: the inbound bench's item transaction (eleven statements and a
commit) held the turn for 23 ms at the mean, twice a message with its events' dispatch stamp, and the
turn was that bench's bottleneck (docs/decisions/0006-sqlite-write-path.md). On the loop, a call runs with
the busy timeout at zero, so SQLite answers ``SQLITE_BUSY`` at once when another process holds the lock;
the call then runs on the connection's thread as any other and waits there. The loop never waits for a
lock. It also runs with the log's automatic checkpoint off: a checkpoint copies the log into the file
and syncs it (about 12 ms for 1,000 pages here), which must not stall the loop. One turn in
``CHECKPOINT_TURN_EVERY`` runs its calls on the thread, where the checkpoint runs as usual, so the
log stays bounded even if nothing else in the process writes.

Given to the engine as its DBAPI module (``create_async_engine(..., module=one_hop_dbapi())``): the
dialect and the rest of SQLAlchemy's adapter stay as they are. The engine opens its connections with
``check_same_thread=False`` (SQLAlchemy does so itself for a file, not for ``:memory:``), since the
cursor is made on the loop's thread and the connection on aiosqlite's. It leans on private names of
SQLAlchemy's adapter and of aiosqlite, so pyproject.toml bounds both to the minor versions it was
written against, and ``tests/store/test_sqlite_driver.py`` fails if a hop comes back.
"""

from __future__ import annotations

import asyncio
import collections
import contextvars
import sqlite3
from collections.abc import Callable
from typing import Any, cast

import aiosqlite
from sqlalchemy.dialects.sqlite.aiosqlite import (
    AsyncAdapt_aiosqlite_connection,
    AsyncAdapt_aiosqlite_cursor,
    AsyncAdapt_aiosqlite_dbapi,
)

# The busy timeout and automatic checkpoint every connection runs with (store/database.py sets them as
# each one opens; the checkpoint's is SQLite's default).
BUSY_TIMEOUT_MS = 30_000
AUTOCHECKPOINT_PAGES = 1000
# One write turn in this many runs its calls on the connection's thread, where a checkpoint may run.
CHECKPOINT_TURN_EVERY = 64

# True while this task holds its process's write turn: its calls run on the loop's thread.
_inline: contextvars.ContextVar[bool] = contextvars.ContextVar("sqlite_calls_inline", default=False)


class WriteTurn:
    """One writer at a time in this process for a SQLite file; the holder's calls skip the thread hop.

    SQLite has one writer, and its busy handler polls with sleeps: queueing a process's write
    transactions in the event loop is fairer and much faster under load than letting them meet at the
    file's lock. The holder's calls run on the loop (module docstring); another process's writer, or
    one of this process's that takes no turn, may still hold the lock, and the call then waits for it
    on its connection's thread. Not reentrant: a task holding the turn must not take it again.
    """

    def __init__(self) -> None:
        self._lock = asyncio.Lock()
        self._turns = 0
        self._token: contextvars.Token[bool] | None = None

    async def __aenter__(self) -> None:
        await self._lock.acquire()
        self._turns += 1
        # Every CHECKPOINT_TURN_EVERY-th turn runs on the thread, where the log may be checkpointed.
        self._token = _inline.set(self._turns % CHECKPOINT_TURN_EVERY != 0)

    async def __aexit__(self, *exc: object) -> None:
        if self._token is not None:
            _inline.reset(self._token)
            self._token = None
        self._lock.release()


class ReadsOnLoop:
    """This task's calls run on the loop's thread, outside a write turn: for short reads only.

    A read by a key costs SQLite some tens of microseconds, and its hop to the connection's thread
    more: the queue's lock, a thread's wake-up and the answer's trip back through the loop's queue,
    80 to 130 µs of CPU a read on the bench machine (docs/decisions/0006-sqlite-write-path.md). A read in WAL
    mode waits for no writer, and on the rare ``SQLITE_BUSY`` it runs on the thread (``_run_inline``).
    A task must not hold it across a scan whose length the caller does not bound, nor across a write:
    writers take the write turn.
    """

    def __init__(self) -> None:
        self._tokens: list[contextvars.Token[bool]] = []

    def __enter__(self) -> None:
        self._tokens.append(_inline.set(True))

    def __exit__(self, *exc: object) -> None:
        _inline.reset(self._tokens.pop())


def _run_inline(raw: sqlite3.Connection, call: Callable[[], Any]) -> tuple[bool, Any]:
    """``call`` on the loop's thread: (True, its result), or (False, None) when another writer holds the lock.

    It runs with the busy timeout at zero and the automatic checkpoint off (module docstring).
    ``SQLITE_BUSY`` leaves the call undone, so the caller runs it again on the connection's thread,
    where the busy handler waits. Every other error, ``SQLITE_BUSY_SNAPSHOT`` among them (waiting
    cannot help), is raised as it would be from there.
    """
    raw.execute("PRAGMA busy_timeout=0")
    raw.execute("PRAGMA wal_autocheckpoint=0")
    try:
        return True, call()
    except sqlite3.OperationalError as error:
        if error.sqlite_errorcode == sqlite3.SQLITE_BUSY:
            return False, None
        raise
    finally:
        raw.execute(f"PRAGMA wal_autocheckpoint={AUTOCHECKPOINT_PAGES}")
        raw.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")


def _inline_connection(connection: Any) -> sqlite3.Connection | None:
    """The aiosqlite connection's own when this task's call may run on the loop's thread (a write turn's or a read's)."""
    return connection._connection if _inline.get() else None


def _execute_and_fetch(cursor: sqlite3.Cursor, operation: str, parameters: Any) -> list[Any] | None:
    """Runs on the connection's thread: the statement, then its rows if it returns any."""
    if parameters is None:
        cursor.execute(operation)
    else:
        cursor.execute(operation, parameters)
    return cursor.fetchall() if cursor.description else None


class OneHopCursor(AsyncAdapt_aiosqlite_cursor):
    """A buffered cursor over the raw sqlite3 cursor: execute and fetch in one hop to the thread."""

    __slots__ = ()

    # close() calls the sqlite3 cursor's close() directly, on the event loop.
    _awaitable_cursor_close = False

    def _make_new_cursor(self, connection: Any) -> Any:
        try:
            return connection._conn.cursor()
        except (ValueError, sqlite3.Error) as error:
            # As the stock cursor's creation does: a closed connection becomes an OperationalError, which
            # SQLAlchemy reads as a disconnect and answers by dropping the connection from the pool.
            self._adapt_connection._handle_exception(error)

    def _aenter_cursor(self, cursor: Any) -> Any:
        return cursor

    async def _execute_async(self, operation: Any, parameters: Any) -> Any:
        async with self._adapt_connection._execute_mutex:
            raw = _inline_connection(self._connection)
            done = False
            if raw is not None:
                cursor = cast(sqlite3.Cursor, self._cursor)
                done, rows = _run_inline(raw, lambda: _execute_and_fetch(cursor, operation, parameters))
            if not done:
                rows = await self._connection._execute(
                    _execute_and_fetch, self._cursor, operation, parameters
                )
            if rows is not None:
                self._rows = collections.deque(rows)
            return self._cursor

    async def _executemany_async(self, operation: Any, seq_of_parameters: Any) -> Any:
        async with self._adapt_connection._execute_mutex:
            raw = _inline_connection(self._connection)
            if raw is not None:
                done, cursor = _run_inline(
                    raw, lambda: self._cursor.executemany(operation, seq_of_parameters)
                )
                if done:
                    return cursor
            return await self._connection._execute(self._cursor.executemany, operation, seq_of_parameters)


class OneHopConnection(AsyncAdapt_aiosqlite_connection):
    """Makes ``OneHopCursor``s; a commit or rollback with no transaction open costs no hop.

    The pool rolls every connection back as it is returned, after the unit of work has committed: on
    SQLite that rollback has nothing to do (sqlite3 skips it too), but it still cost a hop.
    """

    __slots__ = ()

    _cursor_cls = OneHopCursor

    def _idle(self) -> bool:
        raw = self._connection._connection
        return raw is not None and not raw.in_transaction

    def rollback(self) -> None:
        if not self._idle():
            super().rollback()

    def commit(self) -> None:
        if self._idle():
            return
        raw = _inline_connection(self._connection)
        if raw is not None and _run_inline(raw, raw.commit)[0]:
            return
        super().commit()


class OneHopDBAPI(AsyncAdapt_aiosqlite_dbapi):
    """SQLAlchemy's aiosqlite DBAPI shim, whose connections make ``OneHopCursor``s."""

    def connect(self, *arg: Any, **kw: Any) -> OneHopConnection:
        adapted = super().connect(*arg, **kw)
        return OneHopConnection(self, adapted._connection)


def one_hop_dbapi() -> OneHopDBAPI:
    return OneHopDBAPI(aiosqlite, sqlite3)
