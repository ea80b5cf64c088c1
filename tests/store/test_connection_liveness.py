"""Pooled PostgreSQL connections are pinged only after sitting idle, and a dead one is replaced.

The server side is real: the test's own database on the local PostgreSQL, whose
backends are killed with ``pg_terminate_backend`` the way a failover or an
operator would. Skipped on SQLite, where there is no server connection to lose.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import psycopg
import pytest
from sqlalchemy import exc, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from switchboard.store.database import create_engine


@pytest.fixture
def postgres_url(database_url: str) -> str:
    if not database_url.startswith("postgresql"):
        pytest.skip("connection liveness is a PostgreSQL concern")
    return database_url


def _terminate_backends(database_url: str) -> int:
    """Kill every backend of the test's database (not this helper's own); how many."""
    url = make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            " AND backend_type = 'client backend'"
        ).fetchall()
    return len(rows)


class _PingCounter:
    """Counts SQLAlchemy's dialect pings on one engine (the call the checkout hook makes)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.calls = 0
        dialect = engine.sync_engine.dialect
        original = dialect.do_ping

        def counted(dbapi_connection: Any) -> bool:
            self.calls += 1
            return original(dbapi_connection)

        dialect.do_ping = counted  # type: ignore[method-assign]


async def _backend_pid(engine: AsyncEngine) -> int:
    async with engine.connect() as conn:
        return int((await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one())


@pytest.fixture
async def engines() -> AsyncIterator[list[AsyncEngine]]:
    made: list[AsyncEngine] = []
    yield made
    for engine in made:
        await engine.dispose()


async def test_a_connection_reused_within_the_idle_window_is_not_pinged(
    postgres_url: str, engines: list[AsyncEngine]
) -> None:
    engine = create_engine(postgres_url, pool_size=1, ping_after_idle_seconds=3600)
    engines.append(engine)
    pings = _PingCounter(engine)
    first = await _backend_pid(engine)
    for _ in range(5):
        assert await _backend_pid(engine) == first
    assert pings.calls == 0


async def test_an_idle_connection_is_pinged_and_a_dead_one_replaced_before_use(
    postgres_url: str, engines: list[AsyncEngine]
) -> None:
    # An idle window of zero: every checkout after the first counts as idle, as after a restart.
    engine = create_engine(postgres_url, pool_size=1, ping_after_idle_seconds=0.0)
    engines.append(engine)
    pings = _PingCounter(engine)
    before = await _backend_pid(engine)
    pings.calls = 0
    assert _terminate_backends(postgres_url) == 1
    after = await _backend_pid(engine)
    assert after != before
    # The dead connection's ping failed; its replacement, checked out in the same loop, was pinged too.
    assert pings.calls == 2


async def test_a_busy_connection_killed_fails_once_then_the_pool_is_fresh(
    postgres_url: str, engines: list[AsyncEngine]
) -> None:
    engine = create_engine(postgres_url, pool_size=2, ping_after_idle_seconds=3600)
    engines.append(engine)
    async with engine.connect() as a, engine.connect() as b:
        # Two pooled connections, both used just now.
        await a.execute(text("SELECT 1"))
        await b.execute(text("SELECT 1"))
    assert _terminate_backends(postgres_url) == 2
    with pytest.raises(exc.DBAPIError) as failed:
        await _backend_pid(engine)
    assert failed.value.connection_invalidated
    # The disconnect recycled the whole pool: the other killed connection is not handed out either.
    async with engine.connect() as a, engine.connect() as b:
        assert (await a.execute(text("SELECT 1"))).scalar_one() == 1
        assert (await b.execute(text("SELECT 1"))).scalar_one() == 1
