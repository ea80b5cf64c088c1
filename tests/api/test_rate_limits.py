"""Per-key rate limits: headers on every response, 429s, and a limit shared across processes."""

from __future__ import annotations

import asyncio
import collections
import time

import httpx

from tests.conftest import ADMIN_KEY
from tests.support.http_server import free_port
from tests.support.processes import spawn_api
from tests.support.tenants import TenantFixture

ADMIN = {"X-Admin-Key": ADMIN_KEY}


async def _start_of_second() -> None:
    """Wait until just after a second boundary so a short burst stays in one window."""
    await asyncio.sleep(1 - (time.time() % 1) + 0.01)


async def _enterprise(app_client: httpx.AsyncClient, tenant: TenantFixture, **limits: int) -> None:
    response = await app_client.patch(
        f"/v1/admin/tenants/{tenant.id}", json={"plan": "enterprise", **limits}, headers=ADMIN
    )
    assert response.status_code == 200


async def test_headers_on_success_and_on_errors(app_client: httpx.AsyncClient, tenant: TenantFixture):
    ok = await app_client.get("/v1/phone-numbers", headers=tenant.headers())
    missing = await app_client.get("/v1/phone-numbers/pn_nope", headers=tenant.headers())
    for response in (ok, missing):
        assert response.headers["X-RateLimit-Limit"] == "100"
        assert 0 <= int(response.headers["X-RateLimit-Remaining"]) < 100
        assert int(response.headers["X-RateLimit-Reset"]) >= int(time.time())


async def test_401s_carry_the_headers_of_their_client_address(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    """No key to count against: the client address is counted instead, at the standard live limits."""
    answers = [
        await app_client.get("/v1/phone-numbers"),
        await app_client.get("/v1/phone-numbers", headers={"X-API-Key": "not-a-key"}),
        await app_client.get("/v1/phone-numbers", headers={"X-API-Key": "gsk_live_" + "x" * 32}),
        await app_client.post("/v1/admin/tenants", json={"name": "x"}, headers={"X-Admin-Key": "wrong"}),
    ]
    for response in answers:
        assert response.status_code == 401, response.text
        assert response.headers["X-RateLimit-Limit"] == "100"
        assert 0 <= int(response.headers["X-RateLimit-Remaining"]) < 100
        assert int(response.headers["X-RateLimit-Reset"]) >= int(time.time())
    assert [r.json()["code"] for r in answers] == [
        "INVALID_API_KEY",
        "MALFORMED_API_KEY",
        "INVALID_API_KEY",
        "INVALID_ADMIN_KEY",
    ]
    # A valid key is counted against itself, not against the address.
    ok = await app_client.get("/v1/phone-numbers", headers=tenant.headers(tenant.test_key))
    assert ok.headers["X-RateLimit-Limit"] == "10"


async def test_failed_authentication_past_the_address_limit_is_429(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    await _start_of_second()
    # 250 requests cannot all fit in two 1 s windows of 100.
    answers = await asyncio.gather(
        *(app_client.get("/v1/phone-numbers", headers={"X-API-Key": "nope"}) for _ in range(250))
    )
    codes = collections.Counter(a.status_code for a in answers)
    assert set(codes) == {401, 429} and codes[401] <= 200, codes
    limited = next(a for a in answers if a.status_code == 429)
    assert limited.headers["Retry-After"] == "1"
    assert limited.headers["X-RateLimit-Remaining"] == "0"


async def test_sandbox_keys_get_sandbox_limits(app_client: httpx.AsyncClient, tenant: TenantFixture):
    response = await app_client.get("/v1/phone-numbers", headers=tenant.headers(tenant.test_key))
    assert response.headers["X-RateLimit-Limit"] == "10"


async def test_high_volume_plan_limits(app_client: httpx.AsyncClient, tenant: TenantFixture):
    await app_client.patch(f"/v1/admin/tenants/{tenant.id}", json={"plan": "high_volume"}, headers=ADMIN)
    from switchboard.api.principal import ApiKeyCache  # noqa: F401  (cache is per app; a fresh key sees the plan)

    created = await app_client.post(
        f"/v1/admin/tenants/{tenant.id}/api-keys", json={"mode": "live", "role": "member"}, headers=ADMIN
    )
    response = await app_client.get("/v1/phone-numbers", headers={"X-API-Key": created.json()["key"]})
    assert response.headers["X-RateLimit-Limit"] == "500"


async def test_per_second_limit_answers_429(app_client: httpx.AsyncClient, tenant: TenantFixture):
    await _enterprise(app_client, tenant, rate_limit_per_second=3)
    created = await app_client.post(
        f"/v1/admin/tenants/{tenant.id}/api-keys", json={"mode": "live", "role": "member"}, headers=ADMIN
    )
    headers = {"X-API-Key": created.json()["key"]}
    for _ in range(3):
        await _start_of_second()
        responses = [await app_client.get("/v1/phone-numbers", headers=headers) for _ in range(5)]
        by_window = collections.defaultdict(list)
        for r in responses:
            by_window[r.headers["X-RateLimit-Reset"]].append(r.status_code)
        if len(by_window) == 1:
            break  # the burst fit in one window; on a busy machine it may spill over the boundary
    assert any(codes.count(200) == 3 and 429 in codes for codes in by_window.values()), by_window
    limited = next(r for r in responses if r.status_code == 429)
    body = limited.json()
    assert body["statusCode"] == 429
    assert body["retry_after_seconds"] == 1
    assert limited.headers["Retry-After"] == "1"
    assert limited.headers["X-RateLimit-Remaining"] == "0"
    await asyncio.sleep(1.05)
    assert (await app_client.get("/v1/phone-numbers", headers=headers)).status_code == 200


async def test_daily_limit_answers_429_until_midnight(app_client: httpx.AsyncClient, tenant: TenantFixture):
    await _enterprise(app_client, tenant, rate_limit_per_second=100, rate_limit_per_day=3)
    created = await app_client.post(
        f"/v1/admin/tenants/{tenant.id}/api-keys", json={"mode": "live", "role": "member"}, headers=ADMIN
    )
    headers = {"X-API-Key": created.json()["key"]}
    codes = [(await app_client.get("/v1/phone-numbers", headers=headers)).status_code for _ in range(3)]
    assert codes == [200, 200, 200]
    limited = await app_client.get("/v1/phone-numbers", headers=headers)
    assert limited.status_code == 429
    seconds_to_midnight = 86_400 - int(time.time()) % 86_400
    assert abs(limited.json()["retry_after_seconds"] - seconds_to_midnight) <= 2
    assert int(limited.headers["Retry-After"]) == limited.json()["retry_after_seconds"]
    # Rejected requests do not consume the per-second window.
    assert int(limited.headers["X-RateLimit-Reset"]) % 86_400 == 0


async def _wait_up(base: str) -> None:
    async with httpx.AsyncClient() as client:
        for _ in range(200):
            try:
                await client.get(f"{base}/v1/phone-numbers")
                return
            except httpx.TransportError:
                await asyncio.sleep(0.05)
    raise AssertionError(f"{base} did not come up")


async def test_two_api_processes_share_one_limit(
    app_client: httpx.AsyncClient, tenant: TenantFixture, settings
):
    await _enterprise(app_client, tenant, rate_limit_per_second=5)
    ports = [free_port(), free_port()]
    procs = [spawn_api(settings, port) for port in ports]
    try:
        bases = [f"http://127.0.0.1:{port}" for port in ports]
        await asyncio.gather(*(_wait_up(b) for b in bases))
        async with httpx.AsyncClient(headers=tenant.headers()) as client:
            await _start_of_second()
            responses = await asyncio.gather(
                *(client.get(f"{bases[i % 2]}/v1/phone-numbers") for i in range(16))
            )
        by_window: dict[str, list[tuple[int, int]]] = collections.defaultdict(list)
        for i, r in enumerate(responses):
            by_window[r.headers["X-RateLimit-Reset"]].append((i % 2, r.status_code))
        for window, results in by_window.items():
            allowed = [proc for proc, code in results if code == 200]
            assert len(allowed) <= 5, (window, results)
        busiest = max(by_window.values(), key=len)
        # Both processes answered in the busiest window, and together they
        # admitted exactly the limit.
        assert {proc for proc, _ in busiest} == {0, 1}
        assert sum(1 for _, code in busiest if code == 200) == 5
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=10)
