"""The API key cache: concurrent requests with an uncached key share one lookup.

A busy key's cache entry expires every API_KEY_CACHE_SECONDS in every API
process; without sharing, every request in flight at that moment would read
the key from the database at once. The lookups are counted as the statements
that read ``api_keys`` on a real database.
"""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
from sqlalchemy import event as sa_event

from switchboard.api.principal import ApiKeyCache
from switchboard.domain.api_keys import hash_key
from switchboard.domain.errors import Unauthorized
from switchboard.store.database import create_engine, session_factory

CALLERS = 20


@pytest.fixture
async def counted(settings):
    """Sessions on their own engine, with how many statements read the keys table."""
    engine = create_engine(settings.database_url)
    lookups: Counter[str] = Counter()

    def note(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        if "FROM api_keys" in statement:
            lookups["api_keys"] += 1

    sa_event.listen(engine.sync_engine, "before_cursor_execute", note)
    yield session_factory(engine), lookups
    await engine.dispose()


async def test_concurrent_requests_with_a_new_key_share_one_lookup(counted, tenant):
    sessions, lookups = counted
    cache = ApiKeyCache(sessions, ttl_seconds=60)
    principals = await asyncio.gather(*(cache.resolve(tenant.live_key) for _ in range(CALLERS)))
    assert lookups["api_keys"] == 1
    assert {p.tenant_id for p in principals} == {tenant.id}
    assert len({p.key_id for p in principals}) == 1
    # Cached now: no further lookup.
    await cache.resolve(tenant.live_key)
    assert lookups["api_keys"] == 1


async def test_an_expired_entry_is_read_again_once_for_all_waiting(counted, tenant):
    sessions, lookups = counted
    cache = ApiKeyCache(sessions, ttl_seconds=0)  # every entry is stale at once
    await cache.resolve(tenant.live_key)
    await asyncio.gather(*(cache.resolve(tenant.live_key) for _ in range(CALLERS)))
    assert lookups["api_keys"] == 2


async def test_an_unknown_key_is_refused_to_every_caller_after_one_lookup(counted, tenant):
    sessions, lookups = counted
    cache = ApiKeyCache(sessions, ttl_seconds=60)
    unknown = tenant.live_key[:-4] + ("0000" if not tenant.live_key.endswith("0000") else "1111")
    results = await asyncio.gather(*(cache.resolve(unknown) for _ in range(CALLERS)), return_exceptions=True)
    assert all(isinstance(r, Unauthorized) and r.code == "INVALID_API_KEY" for r in results), results
    assert lookups["api_keys"] == 1


async def test_a_lookup_in_flight_when_the_key_is_forgotten_is_not_cached(counted, tenant):
    """A revocation here forgets the key: a lookup that may have read it before must not be cached."""
    sessions, lookups = counted
    cache = ApiKeyCache(sessions, ttl_seconds=60)
    waiting = asyncio.create_task(cache.resolve(tenant.live_key))
    await asyncio.sleep(0)  # the request has started its lookup and waits for it
    cache.forget(hash_key(tenant.live_key))
    assert (await waiting).tenant_id == tenant.id  # the request already waiting gets its answer
    await cache.resolve(tenant.live_key)
    assert lookups["api_keys"] == 2  # read again: the forgotten lookup was not cached


async def test_a_caller_that_goes_away_does_not_cancel_the_others_lookup(counted, tenant):
    sessions, lookups = counted
    cache = ApiKeyCache(sessions, ttl_seconds=60)
    leaving = asyncio.create_task(cache.resolve(tenant.live_key))
    staying = asyncio.create_task(cache.resolve(tenant.live_key))
    await asyncio.sleep(0)
    leaving.cancel()
    assert (await staying).tenant_id == tenant.id
    with pytest.raises(asyncio.CancelledError):
        await leaving
    assert lookups["api_keys"] == 1
