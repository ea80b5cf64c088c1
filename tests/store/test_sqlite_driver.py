"""The SQLite driver: one hop to the connection's thread per statement, and the same results as before.

Each test opens its own SQLite file (whatever DATABASE_URL says): the driver is SQLite's alone.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from sqlalchemy import event, text
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine

from switchboard.store.database import (
    create_engine,
    reads_on_loop,
    session_factory,
    sqlite_pool_size,
    unit_of_work,
    write_turn,
)
from switchboard.store.sqlite_driver import (
    AUTOCHECKPOINT_PAGES,
    BUSY_TIMEOUT_MS,
    CHECKPOINT_TURN_EVERY,
    OneHopCursor,
    ReadsOnLoop,
    WriteTurn,
)


@pytest.fixture
async def engine(tmp_path) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path}/driver.db")
    async with engine.begin() as conn:
        await conn.execute(text("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL)"))
    yield engine
    await engine.dispose()


async def test_the_engine_uses_the_one_hop_cursor(engine) -> None:
    async with engine.connect() as conn:
        raw = await conn.get_raw_connection()
        assert isinstance(raw.dbapi_connection.cursor(), OneHopCursor)


async def test_a_select_and_an_insert_are_one_hop_each(engine, hops) -> None:
    sessions = session_factory(engine)
    async with unit_of_work(sessions) as session:
        await session.execute(text("INSERT INTO items (name) VALUES ('a')"))
        hops.clear()
        await session.execute(text("INSERT INTO items (name) VALUES ('b')"))
        assert hops == ["_execute_and_fetch"]
        hops.clear()
        rows = (await session.execute(text("SELECT name FROM items ORDER BY name"))).all()
        assert hops == ["_execute_and_fetch"]
        assert [row.name for row in rows] == ["a", "b"]
        hops.clear()
    assert hops == ["commit"]


async def test_returning_executemany_rowcount_and_lastrowid(engine) -> None:
    async with engine.begin() as conn:
        inserted = await conn.execute(text("INSERT INTO items (name) VALUES ('x') RETURNING id, name"))
        assert [tuple(row) for row in inserted] == [(1, "x")]
        await conn.execute(text("INSERT INTO items (name) VALUES (:name)"), [{"name": "y"}, {"name": "z"}])
        updated = await conn.execute(text("UPDATE items SET name = name || '!' WHERE id > 1"))
        assert updated.rowcount == 2
        last = await conn.execute(text("INSERT INTO items (name) VALUES ('w')"))
        assert last.lastrowid == 4
        names = (await conn.execute(text("SELECT name FROM items ORDER BY id"))).scalars().all()
    assert names == ["x", "y!", "z!", "w"]


async def test_a_streamed_result_still_reads_every_row(engine) -> None:
    """``stream()`` keeps SQLAlchemy's own server-side cursor: checked here so that it stays working."""
    async with engine.begin() as conn:
        await conn.execute(
            text("INSERT INTO items (name) VALUES (:name)"), [{"name": f"n{i}"} for i in range(5)]
        )
        streamed = await conn.stream(text("SELECT name FROM items ORDER BY id"))
        names = [row.name async for row in streamed]
    assert names == [f"n{i}" for i in range(5)]


async def test_an_error_rolls_back_and_leaves_the_connection_usable(engine) -> None:
    sessions = session_factory(engine)
    async with unit_of_work(sessions) as session:
        await session.execute(text("INSERT INTO items (name) VALUES ('dup')"))
    with pytest.raises(IntegrityError):
        async with unit_of_work(sessions) as session:
            await session.execute(text("INSERT INTO items (name) VALUES ('kept-out')"))
            await session.execute(text("INSERT INTO items (name) VALUES ('dup')"))
    with pytest.raises(OperationalError):
        async with unit_of_work(sessions) as session:
            await session.execute(text("SELECT nope FROM items"))
    async with unit_of_work(sessions) as session:
        names = (await session.execute(text("SELECT name FROM items"))).scalars().all()
    assert names == ["dup"]


async def _write_while_locked(
    holder: AsyncEngine, write: Callable[[], Awaitable[None]], *, meanwhile: Callable[[], None] = lambda: None
) -> None:
    """Run ``write`` while ``holder``, standing for another process, holds the file's write lock.

    The write must still be waiting 0.3 s later, with the event loop turning meanwhile (its wait is on a
    connection's thread), and must finish once the lock is released. ``meanwhile`` checks more while it waits.
    """
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticker = asyncio.create_task(tick())
    try:
        async with holder.connect() as locked:
            await locked.execute(text("BEGIN IMMEDIATE"))
            await locked.execute(text("INSERT INTO items (name) VALUES ('first')"))
            writing = asyncio.create_task(write())
            await asyncio.sleep(0.3)
            assert not writing.done()  # waiting for the lock
            assert ticks >= 10  # while the event loop kept turning
            meanwhile()
            await locked.commit()
        await asyncio.wait_for(writing, timeout=10)
    finally:
        ticker.cancel()


async def test_a_writer_waiting_for_a_lock_blocks_its_thread_not_the_event_loop(tmp_path) -> None:
    """A second engine stands for another process holding the write lock: the loop runs on meanwhile."""
    url = f"sqlite+aiosqlite:///{tmp_path}/locks.db"
    holder, waiter = create_engine(url), create_engine(url)
    try:
        async with holder.begin() as conn:
            await conn.execute(text("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)"))

        async def second_writer() -> None:
            async with waiter.begin() as conn:
                await conn.execute(text("INSERT INTO items (name) VALUES ('second')"))

        await _write_while_locked(holder, second_writer)
        async with holder.connect() as conn:
            names = (await conn.execute(text("SELECT name FROM items ORDER BY id"))).scalars().all()
        assert names == ["first", "second"]
    finally:
        await holder.dispose()
        await waiter.dispose()


async def test_sessions_on_several_connections_interleave(engine) -> None:
    sessions = session_factory(engine)

    async def insert(i: int) -> None:
        async with unit_of_work(sessions) as session:
            await session.execute(text("INSERT INTO items (name) VALUES (:name)"), {"name": f"c{i}"})
            await asyncio.sleep(0)
            assert (await session.execute(text("SELECT count(*) FROM items"))).scalar_one() >= 1

    await asyncio.gather(*(insert(i) for i in range(20)))
    async with engine.connect() as conn:
        assert (await conn.execute(text("SELECT count(*) FROM items"))).scalar_one() == 20


async def test_returning_a_committed_connection_to_the_pool_costs_no_hop(engine, hops) -> None:
    sessions = session_factory(engine)
    async with unit_of_work(sessions) as session:
        await session.execute(text("INSERT INTO items (name) VALUES ('a')"))
    assert hops == ["_execute_and_fetch", "commit"]
    hops.clear()
    async with sessions() as session:  # a read that never commits: the pool's rollback has nothing to end
        assert (await session.execute(text("SELECT count(*) FROM items"))).scalar_one() == 1
    assert hops == ["_execute_and_fetch"]
    hops.clear()
    with pytest.raises(IntegrityError):  # a transaction that is open when it fails is still rolled back
        async with unit_of_work(sessions) as session:
            await session.execute(text("INSERT INTO items (name) VALUES ('b')"))
            await session.execute(text("INSERT INTO items (name) VALUES ('a')"))
    assert hops == ["_execute_and_fetch", "_execute_and_fetch", "rollback"]


async def test_an_in_memory_database_works() -> None:
    engine = create_engine("sqlite+aiosqlite:///:memory:")
    try:
        async with engine.begin() as conn:
            await conn.execute(text("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)"))
            await conn.execute(text("INSERT INTO items (name) VALUES ('m')"))
            assert (await conn.execute(text("SELECT name FROM items"))).scalar_one() == "m"
    finally:
        await engine.dispose()


async def test_a_connection_closed_underneath_is_dropped_from_the_pool(tmp_path) -> None:
    """As with the stock cursor: a disconnect SQLAlchemy invalidates, and the next checkout connects afresh."""
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path}/closed.db")
    try:
        async with engine.connect() as conn:
            raw = await conn.get_raw_connection()
            await raw.dbapi_connection._connection.close()  # the aiosqlite connection and its thread end
            with pytest.raises(OperationalError) as failure:
                await conn.execute(text("SELECT 1"))
            assert failure.value.connection_invalidated
        async with engine.connect() as conn:
            assert (await conn.execute(text("SELECT 2"))).scalar_one() == 2
    finally:
        await engine.dispose()


async def test_connections_opened_for_a_burst_are_kept_for_the_next(engine) -> None:
    """A burst of concurrent sessions opens its connections once; the next burst reuses every one.

    SQLAlchemy's default SQLite pool kept 5 and closed the rest on return, so each burst beyond 5 opened
    new ones: an aiosqlite thread, a file open and the PRAGMAs each.
    """
    opened: list[object] = []
    event.listen(
        engine.sync_engine, "connect", lambda dbapi_connection, _record: opened.append(dbapi_connection)
    )
    sessions = session_factory(engine)
    burst = 16

    async def one_burst() -> None:
        all_in = asyncio.Barrier(burst)

        async def hold() -> None:
            async with sessions() as session:
                assert (await session.execute(text("SELECT count(*) FROM items"))).scalar_one() == 0
                await all_in.wait()  # every session holds its connection at once

        await asyncio.wait_for(asyncio.gather(*(hold() for _ in range(burst))), timeout=30)

    await one_burst()
    first = len(opened)
    assert first >= burst - 1  # the fixture's connection may serve one of them
    await one_burst()
    assert len(opened) == first
    assert engine.pool.checkedin() == burst  # the fixture's connection and the ones the first burst opened


async def test_sessions_beyond_the_cap_wait_for_a_connection(tmp_path) -> None:
    """The cap is kept: one session more than the pool holds waits for a connection, then gets one."""
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path}/cap.db", pool_size=2)
    cap = sqlite_pool_size(2)
    sessions = session_factory(engine)
    release, all_held = asyncio.Event(), asyncio.Event()
    holding = 0

    async def hold() -> None:
        nonlocal holding
        async with sessions() as session:
            await session.execute(text("SELECT 1"))
            holding += 1
            if holding == cap:
                all_held.set()
            await release.wait()

    try:
        holders = [asyncio.create_task(hold()) for _ in range(cap)]
        await asyncio.wait_for(all_held.wait(), timeout=10)
        late = asyncio.create_task(hold())
        await asyncio.sleep(0.2)
        assert holding == cap  # the extra session is still waiting for a connection
        release.set()
        await asyncio.wait_for(asyncio.gather(*holders, late), timeout=10)
        assert holding == cap + 1
        assert engine.pool.checkedin() == cap
    finally:
        await engine.dispose()


async def test_under_the_write_turn_no_call_leaves_the_event_loop(engine, hops) -> None:
    sessions = session_factory(engine)
    async with WriteTurn(), unit_of_work(sessions) as session:
        inserted = await session.execute(text("INSERT INTO items (name) VALUES ('a') RETURNING id, name"))
        assert [tuple(row) for row in inserted] == [(1, "a")]
        await session.execute(text("INSERT INTO items (name) VALUES (:name)"), [{"name": "b"}, {"name": "c"}])
        rows = (await session.execute(text("SELECT name FROM items ORDER BY id"))).scalars().all()
        assert rows == ["a", "b", "c"]
    assert hops == []  # the commit ran on the loop too
    async with unit_of_work(sessions) as session:  # the turn is over: statements and commit hop again
        await session.execute(text("INSERT INTO items (name) VALUES ('d')"))
        assert (await session.execute(text("SELECT count(*) FROM items"))).scalar_one() == 4
    assert hops == ["_execute_and_fetch", "_execute_and_fetch", "commit"]


async def test_an_autocommit_statement_under_the_write_turn_runs_on_the_loop_and_commits(
    tmp_path, hops
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/autocommit.db"
    setup = create_engine(url)
    statements = create_engine(url, autocommit=True)
    try:
        async with setup.begin() as conn:
            await conn.execute(text("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)"))
        async with statements.connect() as conn:  # its connection opened (which costs hops of its own)
            await conn.execute(text("SELECT 1"))
        hops.clear()
        async with WriteTurn(), unit_of_work(session_factory(statements)) as session:
            await session.execute(text("INSERT INTO items (name) VALUES ('a')"))
        assert hops == []
        async with setup.connect() as conn:  # another connection sees it: it committed as it ran
            assert (await conn.execute(text("SELECT name FROM items"))).scalars().all() == ["a"]
    finally:
        await setup.dispose()
        await statements.dispose()


async def test_an_error_under_the_write_turn_rolls_back_as_on_the_thread(engine) -> None:
    sessions = session_factory(engine)
    async with unit_of_work(sessions) as session:
        await session.execute(text("INSERT INTO items (name) VALUES ('dup')"))
    with pytest.raises(IntegrityError):
        async with WriteTurn(), unit_of_work(sessions) as session:
            await session.execute(text("INSERT INTO items (name) VALUES ('kept-out')"))
            await session.execute(text("INSERT INTO items (name) VALUES ('dup')"))
    async with unit_of_work(sessions) as session:
        names = (await session.execute(text("SELECT name FROM items"))).scalars().all()
    assert names == ["dup"]


async def test_a_held_lock_sends_the_turns_call_to_the_thread_and_the_loop_runs_on(tmp_path, hops) -> None:
    """Another process's write lock (a second engine here): the statement waits on its thread, not the loop."""
    url = f"sqlite+aiosqlite:///{tmp_path}/turn-locks.db"
    holder, turn_holder = create_engine(url), create_engine(url)
    try:
        async with holder.begin() as conn:
            await conn.execute(text("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)"))
        sessions = session_factory(turn_holder)
        async with turn_holder.connect() as conn:  # its connection opened (which costs hops of its own)
            await conn.execute(text("SELECT 1"))

        async def in_turn() -> None:
            hops.clear()  # the holder's own statements ran before this
            async with WriteTurn(), unit_of_work(sessions) as session:
                await session.execute(text("INSERT INTO items (name) VALUES ('second')"))

        def on_its_thread() -> None:
            assert hops == ["_execute_and_fetch"]

        await _write_while_locked(holder, in_turn, meanwhile=on_its_thread)
        async with unit_of_work(sessions) as session:
            names = (await session.execute(text("SELECT name FROM items ORDER BY id"))).scalars().all()
            # The connection's settings are back after the call on the loop.
            timeout = (await session.execute(text("PRAGMA busy_timeout"))).scalar_one()
            pages = (await session.execute(text("PRAGMA wal_autocheckpoint"))).scalar_one()
        assert names == ["first", "second"]
        assert (timeout, pages) == (BUSY_TIMEOUT_MS, AUTOCHECKPOINT_PAGES)
    finally:
        await holder.dispose()
        await turn_holder.dispose()


async def test_one_turn_in_so_many_runs_on_the_thread(engine, hops) -> None:
    """Where SQLite's automatic checkpoint may run: the calls on the loop turn it off."""
    sessions = session_factory(engine)
    turn = WriteTurn()
    threaded = []
    for n in range(1, 2 * CHECKPOINT_TURN_EVERY + 1):
        hops.clear()
        async with turn, unit_of_work(sessions) as session:
            await session.execute(text("INSERT INTO items (name) VALUES (:name)"), {"name": f"n{n}"})
        if hops:
            threaded.append(n)
    assert threaded == [CHECKPOINT_TURN_EVERY, 2 * CHECKPOINT_TURN_EVERY]


def _log_size(database: str) -> int:
    """The size of the database's write-ahead log file."""
    return os.path.getsize(database + "-wal")


async def test_the_log_stays_bounded_when_every_write_takes_the_turn(engine) -> None:
    """Pages written through turns alone are checkpointed: the log file does not grow with them."""
    sessions = session_factory(engine)
    turn = WriteTurn()
    page = 4096
    rows = 800  # each row and its index entry spill over several pages: some 28 MB written in all
    for n in range(rows):
        async with turn, unit_of_work(sessions) as session:
            await session.execute(
                text("INSERT INTO items (name) VALUES (:name)"), {"name": f"{n:06d}" + "x" * (2 * page)}
            )
    # Checkpointed, the log holds about the threshold's pages (4 MB) plus what the turns since the last
    # checkpoint turn wrote; never checkpointed, it would hold every page written.
    assert _log_size(engine.url.database) < 2 * AUTOCHECKPOINT_PAGES * page
    async with unit_of_work(sessions) as session:
        assert (await session.execute(text("SELECT count(*) FROM items"))).scalar_one() == rows


async def test_the_write_turn_admits_one_task_at_a_time() -> None:
    turn = WriteTurn()
    inside = 0
    most = 0

    async def writer() -> None:
        nonlocal inside, most
        async with turn:
            inside += 1
            most = max(most, inside)
            await asyncio.sleep(0.01)
            inside -= 1

    await asyncio.gather(*(writer() for _ in range(5)))
    assert most == 1


async def test_engines_on_one_file_share_its_write_turn(tmp_path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/shared.db"
    main, statements, other = (
        create_engine(url),
        create_engine(url, autocommit=True),
        create_engine(f"sqlite+aiosqlite:///{tmp_path}/other.db"),
    )
    memory = create_engine("sqlite+aiosqlite:///:memory:")
    try:
        turn = write_turn(session_factory(main))
        assert isinstance(turn, WriteTurn)
        assert write_turn(session_factory(statements)) is turn
        assert write_turn(session_factory(other)) is not turn
        assert not isinstance(write_turn(session_factory(memory)), WriteTurn)
    finally:
        for engine in (main, statements, other, memory):
            await engine.dispose()


async def test_the_write_turn_is_found_from_an_engine_as_from_its_sessions(tmp_path) -> None:
    # The API's rate limiter writes with an engine, not sessions.
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path}/by-engine.db", autocommit=True)
    try:
        assert write_turn(engine) is write_turn(session_factory(engine))
    finally:
        await engine.dispose()


async def test_reads_on_the_loop_make_no_hop_and_the_next_read_hops_again(tmp_path, hops) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/reads.db"
    setup, statements = create_engine(url), create_engine(url, autocommit=True)
    try:
        async with setup.begin() as conn:
            await conn.execute(text("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)"))
            await conn.execute(text("INSERT INTO items (name) VALUES ('a'), ('b')"))
        sessions = session_factory(statements)
        async with sessions() as session:
            await session.execute(text("SELECT 1"))  # its connection opened (which costs hops of its own)
            hops.clear()
            with reads_on_loop(sessions):
                names = (await session.execute(text("SELECT name FROM items ORDER BY id"))).scalars().all()
            assert (names, hops) == (["a", "b"], [])
            assert (await session.execute(text("SELECT count(*) FROM items"))).scalar_one() == 2
            assert hops == ["_execute_and_fetch"]
    finally:
        await setup.dispose()
        await statements.dispose()


async def test_a_read_on_the_loop_sees_committed_rows_while_another_process_writes(tmp_path) -> None:
    """A writer's open transaction (a second engine, as another process) neither blocks nor shows."""
    url = f"sqlite+aiosqlite:///{tmp_path}/read-while-writing.db"
    holder, statements = create_engine(url), create_engine(url, autocommit=True)
    try:
        async with holder.begin() as conn:
            await conn.execute(text("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)"))
            await conn.execute(text("INSERT INTO items (name) VALUES ('committed')"))
        sessions = session_factory(statements)
        async with holder.connect() as locked:
            await locked.execute(text("BEGIN IMMEDIATE"))
            await locked.execute(text("INSERT INTO items (name) VALUES ('pending')"))
            async with sessions() as session:
                with reads_on_loop(sessions):
                    names = (await session.execute(text("SELECT name FROM items"))).scalars().all()
                timeout = (await session.execute(text("PRAGMA busy_timeout"))).scalar_one()
            await locked.commit()
        assert names == ["committed"]
        assert timeout == BUSY_TIMEOUT_MS  # restored after each call on the loop
    finally:
        await holder.dispose()
        await statements.dispose()


async def test_reads_on_the_loop_are_nothing_off_a_sqlite_file() -> None:
    memory = create_engine("sqlite+aiosqlite:///:memory:")
    try:
        assert not isinstance(reads_on_loop(memory), ReadsOnLoop)
    finally:
        await memory.dispose()
