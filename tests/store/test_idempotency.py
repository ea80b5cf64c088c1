"""Idempotency claims on a real database: new, replay, reuse, in progress, stale takeover."""

from __future__ import annotations

from datetime import timedelta

import pytest

from switchboard.domain.errors import Conflict, Unprocessable
from switchboard.models.base import utcnow
from switchboard.models.tenancy import Tenant
from switchboard.store import idempotency
from switchboard.store.database import create_engine, session_factory, unit_of_work


@pytest.fixture
async def sessions(database_url):
    engine = create_engine(database_url)
    factory = session_factory(engine)
    async with unit_of_work(factory) as session:
        session.add(Tenant(id="ten_a", name="A"))
    yield factory
    await engine.dispose()


async def _claim(sessions, key="k1", fp="f1", now=None):
    async with unit_of_work(sessions) as session:
        return await idempotency.claim(
            session, tenant_id="ten_a", key=key, fingerprint=fp, now=now or utcnow()
        )


async def test_new_key_is_claimed_then_in_progress(sessions):
    assert not (await _claim(sessions)).is_replay
    with pytest.raises(Conflict) as err:
        await _claim(sessions)
    assert err.value.code == "request_in_progress"


async def test_completed_key_replays_same_fingerprint(sessions):
    await _claim(sessions)
    async with unit_of_work(sessions) as session:
        await idempotency.complete(
            session, tenant_id="ten_a", key="k1", status=201, body={"id": "m1"}, now=utcnow()
        )
    claim = await _claim(sessions)
    assert claim.is_replay and claim.replay_status == 201 and claim.replay_body == {"id": "m1"}


async def test_completed_key_with_other_body_is_422(sessions):
    await _claim(sessions)
    async with unit_of_work(sessions) as session:
        await idempotency.complete(session, tenant_id="ten_a", key="k1", status=200, body={}, now=utcnow())
    with pytest.raises(Unprocessable):
        await _claim(sessions, fp="other")


async def test_released_key_runs_cleanly_again(sessions):
    await _claim(sessions)
    async with unit_of_work(sessions) as session:
        await idempotency.release(session, tenant_id="ten_a", key="k1")
    assert not (await _claim(sessions, fp="corrected")).is_replay


async def test_stale_lock_is_taken_over(sessions):
    start = utcnow()
    await _claim(sessions, now=start)
    later = start + idempotency.API_LOCK + timedelta(seconds=1)
    assert not (await _claim(sessions, now=later)).is_replay
    with pytest.raises(Conflict):
        await _claim(sessions, now=later)


async def test_expired_record_starts_over(sessions):
    start = utcnow()
    await _claim(sessions, now=start)
    async with unit_of_work(sessions) as session:
        await idempotency.complete(session, tenant_id="ten_a", key="k1", status=200, body={}, now=start)
    after = start + idempotency.RECORD_LIFETIME + timedelta(seconds=1)
    assert not (await _claim(sessions, fp="new", now=after)).is_replay


async def test_keys_are_compared_as_is(sessions):
    await _claim(sessions, key="Key")
    assert not (await _claim(sessions, key="key")).is_replay
    assert not (await _claim(sessions, key="Key ")).is_replay


def test_fingerprint_ignores_key_order():
    assert idempotency.fingerprint("post", "/v1/messages", {"a": 1, "b": 2}) == idempotency.fingerprint(
        "POST", "/v1/messages", {"b": 2, "a": 1}
    )


async def test_other_body_while_in_flight_is_422(sessions):
    await _claim(sessions)
    with pytest.raises(Unprocessable):
        await _claim(sessions, fp="other")


async def test_a_held_key_is_never_taken_over_even_past_its_lifetime(sessions):
    start = utcnow()
    await _claim(sessions, now=start)
    async with unit_of_work(sessions) as session:
        await idempotency.hold(session, tenant_id="ten_a", key="k1", until=start + timedelta(days=3))
    much_later = start + idempotency.RECORD_LIFETIME + timedelta(hours=1)
    with pytest.raises(Conflict):
        await _claim(sessions, now=much_later)
