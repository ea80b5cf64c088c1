"""A sandbox send's number and pause flag, kept in process for SANDBOX_PHONE_CACHE_SECONDS.

The reads are counted as the statements that read ``phone_numbers`` on a real database; time is the
cache's own clock, moved by the test, so expiry needs no sleep.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx
import pytest
from sqlalchemy import event as sa_event
from sqlalchemy import text

from switchboard.api.app import create_app
from switchboard.api.sandbox_phones import SandboxPhoneCache
from switchboard.domain.errors import Forbidden, ValidationFailed
from switchboard.store.database import create_engine
from tests.conftest import ADMIN_KEY
from tests.support.tenants import TenantFixture, provision_tenant

TO = "14155550100"
TTL = 5.0


class Clock:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def counted(settings) -> AsyncIterator[tuple[object, Counter[str]]]:
    """An autocommit engine, as the API's, with how many statements read the numbers table."""
    engine = create_engine(settings.database_url, autocommit=True)
    reads: Counter[str] = Counter()

    def note(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        if "FROM phone_numbers" in statement:
            reads["phone_numbers"] += 1

    sa_event.listen(engine.sync_engine, "before_cursor_execute", note)
    yield engine, reads
    await engine.dispose()


async def test_a_number_is_read_once_while_fresh_and_again_when_stale(counted, tenant):
    engine, reads = counted
    clock = Clock()
    cache = SandboxPhoneCache(engine, ttl_seconds=TTL, clock=clock)
    for _ in range(10):
        phone, facts = await cache.sending_phone(tenant.id, tenant.phone_number_id)
        assert (phone.phone_number_id, phone.tenant_id, facts.customer_paused) == (
            tenant.phone_number_id,
            tenant.id,
            False,
        )
    assert reads["phone_numbers"] == 1
    clock.now += TTL  # still fresh at exactly the TTL
    await cache.sending_phone(tenant.id, tenant.phone_number_id)
    assert reads["phone_numbers"] == 1
    clock.now += 0.001
    await cache.sending_phone(tenant.id, tenant.phone_number_id)
    assert reads["phone_numbers"] == 2


async def test_the_tenant_is_checked_on_every_answer_from_memory(counted, tenant, other_tenant):
    engine, reads = counted
    cache = SandboxPhoneCache(engine, ttl_seconds=TTL)
    await cache.sending_phone(tenant.id, tenant.phone_number_id)
    for _ in range(2):
        with pytest.raises(Forbidden) as refused:
            await cache.sending_phone(other_tenant.id, tenant.phone_number_id)
        assert (refused.value.status_code, refused.value.code) == (403, "PHONE_NUMBER_NOT_IN_TENANT")
    assert reads["phone_numbers"] == 1  # answered from memory, refused all the same


async def test_refused_reads_are_not_kept(counted, tenant, other_tenant):
    """An unknown number may be registered a moment later; another tenant's number is not the caller's to keep."""
    engine, reads = counted
    cache = SandboxPhoneCache(engine, ttl_seconds=TTL)
    for _ in range(2):
        with pytest.raises(ValidationFailed) as unknown:
            await cache.sending_phone(tenant.id, "999999999999")
        assert unknown.value.code == "INVALID_PHONE_NUMBER_ID"
        with pytest.raises(Forbidden):
            await cache.sending_phone(tenant.id, other_tenant.phone_number_id)
    assert reads["phone_numbers"] == 4


async def test_zero_seconds_reads_every_time(counted, tenant):
    engine, reads = counted
    cache = SandboxPhoneCache(engine, ttl_seconds=0)
    for _ in range(3):
        await cache.sending_phone(tenant.id, tenant.phone_number_id)
    assert reads["phone_numbers"] == 3


async def test_a_read_in_flight_when_the_cache_forgets_is_not_kept(counted, tenant):
    """A pause committed while a read is in flight: the read may hold the old flag, so it is not kept."""
    engine, reads = counted
    cache = SandboxPhoneCache(engine, ttl_seconds=TTL)
    waiting = asyncio.create_task(cache.sending_phone(tenant.id, tenant.phone_number_id))
    await asyncio.sleep(0)  # the request has started its read
    cache.forget()
    assert (await waiting)[0].tenant_id == tenant.id  # the request in flight gets its answer
    await cache.sending_phone(tenant.id, tenant.phone_number_id)
    assert reads["phone_numbers"] == 2


@dataclass
class Api:
    client: httpx.AsyncClient
    clock: Clock
    tenant: TenantFixture


@pytest.fixture
async def api(settings) -> AsyncIterator[Api]:
    """The API with its lifespan running, its sandbox cache on a clock the test moves."""
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        state = app.state.switchboard
        clock = Clock()
        state.sandbox_phones = SandboxPhoneCache(state.autocommit_engine, ttl_seconds=TTL, clock=clock)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://switchboard.test") as client:
            yield Api(client, clock, await provision_tenant(client, ADMIN_KEY))


def text_send(tenant: TenantFixture) -> dict[str, object]:
    return {"phone_number_id": tenant.phone_number_id, "to": TO, "type": "text", "text": {"body": "hi"}}


async def sandbox_status(api: Api) -> tuple[int, str | None]:
    response = await api.client.post(
        "/v1/messages", json=text_send(api.tenant), headers=api.tenant.headers(api.tenant.test_key)
    )
    return response.status_code, response.json().get("code")


async def test_a_pause_written_by_another_process_reaches_sandbox_sends_within_the_cache_time(
    api: Api, settings
):
    assert await sandbox_status(api) == (201, None)
    # Another process pauses the customer: this one learns of it only from the database.
    engine = create_engine(settings.database_url, autocommit=True)
    try:
        async with engine.connect() as connection:
            await connection.execute(
                text("UPDATE customers SET sending_paused = :paused WHERE id = :id"),
                {"paused": True, "id": api.tenant.customer_id},
            )
    finally:
        await engine.dispose()
    assert await sandbox_status(api) == (201, None)  # within the cache time
    live = await api.client.post("/v1/messages", json=text_send(api.tenant), headers=api.tenant.headers())
    assert (live.status_code, live.json()["code"]) == (
        403,
        "customer_sending_disabled",
    )  # live reads every time
    api.clock.now += TTL + 0.001
    assert await sandbox_status(api) == (403, "customer_sending_disabled")


@pytest.mark.parametrize("by", ["tenant", "operator"])
async def test_a_pause_through_this_process_is_seen_at_once(api: Api, by: str):
    tenant = api.tenant
    if by == "tenant":
        path, headers = f"/v1/customers/{tenant.customer_id}", tenant.headers()
    else:
        path, headers = (
            f"/v1/admin/tenants/{tenant.id}/customers/{tenant.customer_id}",
            {"X-Admin-Key": ADMIN_KEY},
        )
    assert await sandbox_status(api) == (201, None)
    paused = await api.client.patch(path, json={"sending_paused": True}, headers=headers)
    assert paused.status_code == 200, paused.text
    assert await sandbox_status(api) == (403, "customer_sending_disabled")
    resumed = await api.client.patch(path, json={"sending_paused": False}, headers=headers)
    assert resumed.status_code == 200, resumed.text
    assert await sandbox_status(api) == (201, None)
