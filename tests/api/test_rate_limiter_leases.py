"""Where the limiter's leases go: a day's riding along a second's, and PostgreSQL's own connection.

A day's lease running low is topped up in the statement of the key's next
second's lease, so a key's day costs no statements of its own; on PostgreSQL
the leases run on a connection of the limiter's own (store/lease_connection.py),
which must answer as the engine's statement does and survive the server
closing it.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import psycopg
import pytest
from sqlalchemy import make_url, text

from switchboard.api.rate_limiter import LeaseNotWritten, RateLimiter
from switchboard.domain.rate_limits import Limits
from switchboard.store import rate_limits
from switchboard.store.database import create_engine
from switchboard.store.lease_connection import LeaseConnection
from tests.support.rate_limit_rows import counts_by_bucket

SECOND = 1_900_000_000
SANDBOX = Limits(10, 1000)


async def test_a_keys_first_request_leases_its_second_and_its_day_in_one_statement(settings):
    engine = create_engine(settings.database_url, autocommit=True)
    limiter = RateLimiter(engine)
    try:
        decision = await limiter.check("key_first", SANDBOX, now=SECOND + 0.5)
        counts = await counts_by_bucket(engine)
    finally:
        await limiter.aclose()
        await engine.dispose()
    assert decision.allowed
    assert limiter.batches_written == 1
    assert counts == {f"key_first:s:{SECOND}": 2, f"key_first:d:{SECOND // 86_400}": 10}


async def test_the_days_leases_ride_along_the_seconds_and_count_every_request(settings):
    # Four requests a second for twelve seconds: two second's leases (a chunk of 2) each second,
    # and the day's chunk of 10 used up about every two and a half seconds.
    engine = create_engine(settings.database_url, autocommit=True)
    limiter = RateLimiter(engine)
    try:
        decisions = [
            await limiter.check("key_steady", SANDBOX, now=SECOND + s + i / 4)
            for s in range(12)
            for i in range(4)
        ]
        counts = await counts_by_bucket(engine)
    finally:
        await limiter.aclose()
        await engine.dispose()
    assert all(d.allowed for d in decisions)
    # One statement per second's lease and none more: every day's lease went along one of them.
    assert limiter.batches_written == 24, limiter.batches_written
    assert all(counts[f"key_steady:s:{SECOND + s}"] == 4 for s in range(12))
    # The day counted every admitted request, and leased at most a chunk and a half ahead of them.
    day = counts[f"key_steady:d:{SECOND // 86_400}"]
    assert 48 <= day <= 48 + 15, day


async def test_a_full_day_still_refuses_when_its_lease_rides_along(settings):
    engine = create_engine(settings.database_url, autocommit=True)
    limiter = RateLimiter(engine)
    try:
        # A day of 6 (chunk 1) and a second of 100 (chunk 20): the day runs out first.
        decisions = [await limiter.check("key_day", Limits(100, 6), now=SECOND + i / 10) for i in range(9)]
        counts = await counts_by_bucket(engine)
    finally:
        await limiter.aclose()
        await engine.dispose()
    assert [d.allowed for d in decisions] == [True] * 6 + [False] * 3
    assert all(d.daily_exhausted for d in decisions[6:])
    assert counts[f"key_day:d:{SECOND // 86_400}"] == 6


def _postgres_only(settings) -> None:  # type: ignore[no-untyped-def]
    if not settings.database_url.startswith("postgresql"):
        pytest.skip("the limiter's own connection is PostgreSQL's")


async def test_the_own_connection_answers_as_the_engines_statement(settings):
    _postgres_only(settings)
    engine = create_engine(settings.database_url, autocommit=True)
    own = LeaseConnection(engine)
    expires = datetime(2030, 1, 1, tzinfo=UTC)
    setup = [rate_limits.Want("nearly", 9, 10, expires), rate_limits.Want("full", 10, 10, expires)]
    wants = [
        rate_limits.Want("fresh", 4, 10, expires),
        rate_limits.Want("nearly", 4, 10, expires),
        rate_limits.Want("full", 4, 10, expires),
        rate_limits.Want("tiny", 50, 3, expires),
    ]
    try:
        await own.lease_many(setup)
        before = own.statements
        answers = await own.lease_many(wants)
        statements = own.statements - before
        counts = await counts_by_bucket(engine)
        async with engine.begin() as conn:
            await conn.execute(text("DELETE FROM rate_limit_counters"))
            await rate_limits.lease_many(conn, setup)
            engines = await rate_limits.lease_many(conn, wants)
        engines_counts = await counts_by_bucket(engine)
    finally:
        await own.close()
        await engine.dispose()
    assert answers == engines == [(4, 4), (1, 10), (0, 10), (3, 3)]
    assert counts == engines_counts == {"fresh": 4, "nearly": 10, "full": 10, "tiny": 3}
    # The four in one statement; the two whose chunk did not fit tried one slot in a second.
    assert statements == 2


def _named(settings, name: str):  # type: ignore[no-untyped-def]
    """An engine on the test database whose connections carry ``name`` (found in pg_stat_activity)."""
    url = make_url(settings.database_url).update_query_dict({"application_name": name})
    return create_engine(url.render_as_string(hide_password=False), autocommit=True)


async def _backends(engine, name: str) -> list[int]:  # type: ignore[no-untyped-def]
    async with engine.connect() as conn:
        rows = await conn.execute(
            text("SELECT pid FROM pg_stat_activity WHERE application_name = :name"), {"name": name}
        )
        return [pid for (pid,) in rows]


async def test_a_lease_after_the_server_closed_the_connection_runs_on_a_new_one(settings):
    _postgres_only(settings)
    engine = create_engine(settings.database_url, autocommit=True)
    limited = _named(settings, "sb lease restart")
    own = LeaseConnection(limited)
    expires = datetime(2030, 1, 1, tzinfo=UTC)
    try:
        await own.lease_many([rate_limits.Want("restart:1", 2, 10, expires)])
        (pid,) = await _backends(engine, "sb lease restart")
        # What a server restart or a failover does to an idle connection (waiting until it is gone).
        async with engine.connect() as conn:
            await conn.execute(text("SELECT pg_terminate_backend(:pid, 5000)"), {"pid": pid})
        before = own.statements
        answer = await own.lease_many([rate_limits.Want("restart:2", 2, 10, expires)])
        statements = own.statements - before
        after = await _backends(engine, "sb lease restart")
    finally:
        await own.close()
        await limited.dispose()
        await engine.dispose()
    assert answer == [(2, 2)]
    # The first try failed on the closed connection; the second ran on a new one.
    assert statements == 2
    assert len(after) == 1 and after != [pid]


async def test_the_own_connection_gets_the_engines_connection_arguments(settings):
    # A password and a query value with characters a URL escapes (the local server trusts the
    # password; libpq still has to parse it), as the engine's own connections get them.
    _postgres_only(settings)
    url = make_url(settings.database_url).set(password="Sup3r secret%@?")
    url = url.update_query_dict({"application_name": "sb lease args"})
    odd = create_engine(url.render_as_string(hide_password=False), autocommit=True)
    engine = create_engine(settings.database_url, autocommit=True)
    limiter = RateLimiter(odd)
    try:
        decision = await limiter.check("key_args", SANDBOX, now=SECOND + 0.1)
        backends = await _backends(engine, "sb lease args")
    finally:
        await limiter.aclose()
        await odd.dispose()
        await engine.dispose()
    assert decision.allowed
    assert len(backends) == 1


async def test_a_connect_timeout_in_the_url_is_the_own_connections_too(settings):
    # A production URL often sets its own connect_timeout; the limiter's default must not clash with it.
    _postgres_only(settings)
    url = make_url(settings.database_url).update_query_dict(
        {"connect_timeout": "7", "application_name": "sb lease timeout"}
    )
    timed = create_engine(url.render_as_string(hide_password=False), autocommit=True)
    own = LeaseConnection(timed)
    expires = datetime(2030, 1, 1, tzinfo=UTC)
    try:
        answer = await own.lease_many([rate_limits.Want("timeout:1", 2, 10, expires)])
        conn = await own._connection()  # the connection the lease ran on
        timeout = conn.info.get_parameters().get("connect_timeout")
    finally:
        await own.close()
        await timed.dispose()
    assert answer == [(2, 2)]
    assert timeout == "7"


async def test_closing_the_limiter_mid_lease_leaves_no_connection_open(settings):
    # A lease in flight at shutdown must not be tried again on a new connection that nobody closes.
    _postgres_only(settings)
    engine = create_engine(settings.database_url, autocommit=True)
    limited = _named(settings, "sb lease shutdown")
    limiter = RateLimiter(limited)
    try:
        async with engine.connect() as blocker:
            await blocker.execute(text("BEGIN"))
            await blocker.execute(text("LOCK TABLE rate_limit_counters IN ACCESS EXCLUSIVE MODE"))
            request = asyncio.create_task(limiter.check("key_shutdown", SANDBOX, now=SECOND + 0.1))
            await _until_waiting_on_a_lock(engine, "sb lease shutdown")
            await limiter.aclose()
            await blocker.execute(text("ROLLBACK"))
        outcome = await asyncio.gather(request, return_exceptions=True)
        left = await _until_gone(engine, "sb lease shutdown")
        with pytest.raises(LeaseNotWritten):
            await limiter.check("key_later", SANDBOX, now=SECOND + 0.1)
        still_left = await _backends(engine, "sb lease shutdown")
    finally:
        await limiter.aclose()
        await limited.dispose()
        await engine.dispose()
    assert isinstance(outcome[0], asyncio.CancelledError | LeaseNotWritten), outcome
    assert left == [] and still_left == []


async def _until_waiting_on_a_lock(engine, name: str) -> None:  # type: ignore[no-untyped-def]
    """Until the backend named ``name`` waits on a lock (the lease is in flight); at most 10 s."""
    for _ in range(1000):
        async with engine.connect() as conn:
            waiting = (
                await conn.execute(
                    text(
                        "SELECT count(*) FROM pg_stat_activity "
                        "WHERE application_name = :name AND wait_event_type = 'Lock'"
                    ),
                    {"name": name},
                )
            ).scalar_one()
        if waiting:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the lease never reached the server")


async def _until_gone(engine, name: str) -> list[int]:  # type: ignore[no-untyped-def]
    """The backends named ``name``, once none is left or after 10 s (a closed backend exits shortly after)."""
    for _ in range(1000):
        left = await _backends(engine, name)
        if not left:
            return left
        await asyncio.sleep(0.01)
    return left


async def test_a_server_that_cannot_be_reached_fails_the_request_and_the_next_try_runs_again(settings):
    _postgres_only(settings)
    engine = create_engine(settings.database_url, autocommit=True)
    missing = engine.url.set(database="sb_no_such_database")
    unreachable = create_engine(missing.render_as_string(hide_password=False), autocommit=True)
    limiter = RateLimiter(unreachable)
    try:
        for _ in range(2):
            with pytest.raises(LeaseNotWritten) as failed:
                await limiter.check("key_nowhere", SANDBOX, now=SECOND + 0.1)
            assert isinstance(failed.value.__cause__, psycopg.OperationalError)
    finally:
        await limiter.aclose()
        await unreachable.dispose()
        await engine.dispose()
    assert limiter.batches_written == 2


async def test_a_slot_given_back_after_the_lease_moved_on_is_not_added_to_the_new_window(settings):
    # A request refused for its day gives its second's slot back; if the lease moved on to a newer
    # second while the day's answer was on its way, that slot belongs to the old second and must not
    # be served in the new one. Here the day runs out at its last second (another process took all but
    # one request of it), and the next day's first second is leased while the refusal is in flight.
    _postgres_only(settings)
    engine = create_engine(settings.database_url, autocommit=True)
    limited = _named(settings, "sb lease give back")
    limiter = RateLimiter(limited)
    limits = Limits(10, 1000)
    day_end = (SECOND // 86_400 + 1) * 86_400
    try:
        async with engine.begin() as conn:
            await rate_limits.lease(
                conn,
                f"key_back:d:{day_end // 86_400 - 1}",
                want=999,
                limit=1000,
                expires_at=datetime.fromtimestamp(day_end + 3600, UTC),
            )
        # The day's last request: a second's chunk of 2 and the day's last slot in one statement.
        assert (await limiter.check("key_back", limits, now=day_end - 0.5)).allowed
        async with engine.connect() as blocker:
            await blocker.execute(text("BEGIN"))
            await blocker.execute(text("LOCK TABLE rate_limit_counters IN ACCESS EXCLUSIVE MODE"))
            # Its second's other slot, refused for the day: the day's statement waits on the lock.
            refused = asyncio.create_task(limiter.check("key_back", limits, now=day_end - 0.4))
            await _until_waiting_on_a_lock(engine, "sb lease give back")
            # Meanwhile the next day's first second moves the key's lease on, and leases behind it.
            next_first = asyncio.create_task(limiter.check("key_back", limits, now=day_end + 0.5))
            await asyncio.sleep(0)
            await blocker.execute(text("ROLLBACK"))
        outcomes = await asyncio.gather(refused, next_first)
        rest = [await limiter.check("key_back", limits, now=day_end + 0.6) for _ in range(14)]
    finally:
        await limiter.aclose()
        await limited.dispose()
        await engine.dispose()
    assert outcomes[0].daily_exhausted and outcomes[1].allowed
    # The new second admits its limit, 10, and not one more.
    assert 1 + sum(d.allowed for d in rest) == 10
