"""SQLAlchemy's aiosqlite adapter, with one thread hop per statement instead of three or four.

aiosqlite runs every call on a connection's own thread: SQLAlchemy's adapter makes the cursor (a hop),
executes (a hop), fetches the rows (a hop) and closes the cursor (a hop), and each hop costs a queue
put, a thread wake-up and a call back into the event loop through its self-pipe. Under load that was
about a quarter of the API's Python time on SQLite (docs/operations.md, Performance). Here the cursor is
made and closed on the event loop, where neither touches the database file (a cursor is a Python
object until it executes, and closing one that has fetched its rows only drops it), and a statement and
the fetching of its rows run in one hop. Transactions, commits, rollbacks and the busy timeout are
unchanged: every call that reads or writes the file still runs on the connection's thread, so a writer
waiting for another process's lock blocks that thread, never the event loop.

Given to the engine as its DBAPI module (``create_async_engine(..., module=one_hop_dbapi())``): the
dialect and the rest of SQLAlchemy's adapter stay as they are. The engine opens its connections with
``check_same_thread=False`` (SQLAlchemy does so itself for a file, not for ``:memory:``), since the
cursor is made on the loop's thread and the connection on aiosqlite's. It leans on private names of
SQLAlchemy's adapter and of aiosqlite, so pyproject.toml bounds both to the minor versions it was
written against, and ``tests/store/test_sqlite_driver.py`` fails if a hop comes back.
"""

from __future__ import annotations

import collections
import sqlite3
from typing import Any

import aiosqlite
from sqlalchemy.dialects.sqlite.aiosqlite import (
    AsyncAdapt_aiosqlite_connection,
    AsyncAdapt_aiosqlite_cursor,
    AsyncAdapt_aiosqlite_dbapi,
)


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
            rows = await self._connection._execute(_execute_and_fetch, self._cursor, operation, parameters)
            if rows is not None:
                self._rows = collections.deque(rows)
            return self._cursor

    async def _executemany_async(self, operation: Any, seq_of_parameters: Any) -> Any:
        async with self._adapt_connection._execute_mutex:
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
        if not self._idle():
            super().commit()


class OneHopDBAPI(AsyncAdapt_aiosqlite_dbapi):
    """SQLAlchemy's aiosqlite DBAPI shim, whose connections make ``OneHopCursor``s."""

    def connect(self, *arg: Any, **kw: Any) -> OneHopConnection:
        adapted = super().connect(*arg, **kw)
        return OneHopConnection(self, adapted._connection)


def one_hop_dbapi() -> OneHopDBAPI:
    return OneHopDBAPI(aiosqlite, sqlite3)
