"""The shared token cache: lease compare-and-set, invalidation, pruning, abandoned and failed fetches."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from switchboard.activities.tools.token_cache import TokenCache, TokenWaitTimeout
from switchboard.domain.tools import TokenRequest
from switchboard.settings import Settings
from switchboard.store import tool_tokens
from switchboard.store.database import session_factory, unit_of_work
from switchboard.store.tool_tokens import TokenKey
from tests.activities.tools.builders import FakeClock

KEY = TokenKey(tenant_id="ten_1", tool_slug="book", cache_key="k" * 64)


def _request(url: str = "https://auth.example.com/token", secret: str = "s1") -> TokenRequest:
    return TokenRequest(
        method="POST",
        url=url,
        headers={},
        body={"client_secret": secret},
        response_path=("access_token",),
        expires_in_sec=60,
    )


@pytest.fixture
def cache(settings: Settings, engine: AsyncEngine, clock: FakeClock) -> TokenCache:
    return TokenCache(
        session_factory(engine), secrets_key=settings.secrets_key_bytes, clock=clock, poll_seconds=0.01
    )


async def test_lease_is_claimed_once_and_again_only_after_it_expires(
    engine: AsyncEngine, clock: FakeClock
) -> None:
    sessions = session_factory(engine)
    now = clock()
    claims = []
    for owner, at in (("a", now), ("b", now + timedelta(seconds=5)), ("c", now + timedelta(seconds=10))):
        async with unit_of_work(sessions) as session:
            claims.append(
                await tool_tokens.claim_lease(
                    session, KEY, owner=owner, now=at, until=at + timedelta(seconds=10)
                )
            )
    assert claims == [True, False, True]


async def test_fresh_token_blocks_claims_until_it_expires(engine: AsyncEngine, clock: FakeClock) -> None:
    sessions = session_factory(engine)
    now = clock()
    async with unit_of_work(sessions) as session:
        assert await tool_tokens.claim_lease(
            session, KEY, owner="a", now=now, until=now + timedelta(seconds=9)
        )
        await tool_tokens.store_token(
            session, KEY, owner="a", sealed="sealed-1", expires_at=now + timedelta(seconds=60), now=now
        )
    async with unit_of_work(sessions) as session:
        fresh = await tool_tokens.read_fresh(session, KEY, now=now + timedelta(seconds=59))
        stale = await tool_tokens.read_fresh(session, KEY, now=now + timedelta(seconds=60))
        blocked = await tool_tokens.claim_lease(
            session, KEY, owner="b", now=now, until=now + timedelta(seconds=9)
        )
    assert fresh is not None and (fresh.token_sealed, fresh.lease_until) == ("sealed-1", None)
    assert stale is not None and stale.token_sealed is None
    assert blocked is False


async def test_invalidate_drops_only_the_token_that_failed(engine: AsyncEngine, clock: FakeClock) -> None:
    sessions = session_factory(engine)
    now = clock()
    async with unit_of_work(sessions) as session:
        await tool_tokens.claim_lease(session, KEY, owner="a", now=now, until=now)
        await tool_tokens.store_token(
            session, KEY, owner="a", sealed="newer", expires_at=now + timedelta(seconds=60), now=now
        )
    async with unit_of_work(sessions) as session:
        assert await tool_tokens.invalidate(session, KEY, sealed="older") is False
        assert await tool_tokens.invalidate(session, KEY, sealed="newer") is True
        row = await tool_tokens.read_fresh(session, KEY, now=now)
    assert row is not None and row.token_sealed is None


async def test_prune_keeps_fresh_tokens_and_live_leases(engine: AsyncEngine, clock: FakeClock) -> None:
    sessions = session_factory(engine)
    now = clock()
    keys = [TokenKey("ten_1", "book", c * 64) for c in "abc"]
    async with unit_of_work(sessions) as session:
        for key, expires in zip(
            keys[:2], (now - timedelta(seconds=1), now + timedelta(seconds=60)), strict=True
        ):
            await tool_tokens.claim_lease(session, key, owner="x", now=now, until=now)
            await tool_tokens.store_token(session, key, owner="x", sealed="s", expires_at=expires, now=now)
        await tool_tokens.claim_lease(session, keys[2], owner="y", now=now, until=now + timedelta(seconds=30))
    async with unit_of_work(sessions) as session:
        assert await tool_tokens.prune_expired(session, now=now) == 1
        remaining = [await tool_tokens.read_fresh(session, key, now=now) for key in keys]
    assert [row is not None for row in remaining] == [False, True, True]


def test_cache_key_changes_with_host_and_credentials(cache: TokenCache) -> None:
    base = cache.key_for(tenant_id="t", tool_slug="s", request=_request())
    assert cache.key_for(tenant_id="t", tool_slug="s", request=_request()) == base
    assert (
        cache.key_for(tenant_id="t", tool_slug="s", request=_request(url="https://other.example.com/t"))
        != base
    )
    assert cache.key_for(tenant_id="t", tool_slug="s", request=_request(secret="s2")) != base
    assert "s1" not in base.cache_key


async def test_waiter_gives_up_on_a_live_lease_then_takes_over_an_abandoned_one(
    cache: TokenCache, engine: AsyncEngine, clock: FakeClock
) -> None:
    now = clock()
    async with unit_of_work(session_factory(engine)) as session:
        await tool_tokens.claim_lease(
            session, KEY, owner="crashed", now=now, until=now + timedelta(seconds=5)
        )
    fetches: list[str] = []

    async def fetch() -> str:
        fetches.append("x")
        return "fresh-token"

    with pytest.raises(TokenWaitTimeout):
        await cache.get(KEY, fetch=fetch, ttl_seconds=60, lease_seconds=0.2)
    assert fetches == []
    clock.advance(5)
    issued = await cache.get(KEY, fetch=fetch, ttl_seconds=60, lease_seconds=0.2)
    assert (issued.token, issued.fetched, fetches) == ("fresh-token", True, ["x"])


async def test_failed_fetch_releases_the_lease_at_once(cache: TokenCache) -> None:
    async def broken() -> str:
        raise RuntimeError("token endpoint down")

    async def working() -> str:
        return "tok"

    with pytest.raises(RuntimeError):
        await cache.get(KEY, fetch=broken, ttl_seconds=60, lease_seconds=30)
    issued = await cache.get(KEY, fetch=working, ttl_seconds=60, lease_seconds=30)
    assert (issued.token, issued.fetched) == ("tok", True)
    again = await cache.get(KEY, fetch=broken, ttl_seconds=60, lease_seconds=30)
    assert (again.token, again.fetched, again.sealed) == ("tok", False, issued.sealed)


async def test_token_sealed_under_another_key_is_refetched(
    cache: TokenCache, settings: Settings, engine: AsyncEngine, clock: FakeClock
) -> None:
    async def first() -> str:
        return "old"

    await cache.get(KEY, fetch=first, ttl_seconds=60, lease_seconds=30)
    rotated = TokenCache(session_factory(engine), secrets_key=b"\x02" * 32, clock=clock, poll_seconds=0.01)

    async def second() -> str:
        return "new"

    issued = await rotated.get(KEY, fetch=second, ttl_seconds=60, lease_seconds=30)
    assert (issued.token, issued.fetched) == ("new", True)
