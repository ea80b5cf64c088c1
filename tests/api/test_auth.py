"""X-API-Key authentication: each key error, revocation and caching."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import ADMIN_KEY
from tests.support.tenants import TenantFixture

ADMIN = {"X-Admin-Key": ADMIN_KEY}


@pytest.mark.parametrize(
    ("headers", "code"),
    [
        ({}, "INVALID_API_KEY"),
        ({"X-API-Key": "not-a-key"}, "MALFORMED_API_KEY"),
        ({"X-API-Key": "gsk_prod_" + "a" * 40}, "MALFORMED_API_KEY"),
        ({"X-API-Key": "gsk_live_short"}, "MALFORMED_API_KEY"),
        ({"X-API-Key": "gsk_live_" + "a" * 43}, "INVALID_API_KEY"),
        ({"X-API-Key": "gsk_test_" + "b" * 43}, "INVALID_API_KEY"),
    ],
)
async def test_key_errors_answer_401_with_code(
    app_client: httpx.AsyncClient, headers: dict[str, str], code: str
):
    response = await app_client.get("/v1/phone-numbers", headers=headers)
    assert response.status_code == 401
    body = response.json()
    assert body["code"] == code
    assert body["statusCode"] == 401
    assert body["error"] == "Unauthorized"
    assert isinstance(body["message"], str) and body["message"]


async def test_revoked_key_is_expired_at_once(app_client: httpx.AsyncClient, tenant: TenantFixture):
    created = await app_client.post(
        f"/v1/admin/tenants/{tenant.id}/api-keys", json={"mode": "live", "role": "admin"}, headers=ADMIN
    )
    key = created.json()["key"]
    assert (await app_client.get("/v1/phone-numbers", headers={"X-API-Key": key})).status_code == 200
    revoked = await app_client.delete(f"/v1/admin/api-keys/{created.json()['id']}", headers=ADMIN)
    assert revoked.status_code == 200
    assert revoked.json()["revoked"] is True
    after = await app_client.get("/v1/phone-numbers", headers={"X-API-Key": key})
    assert after.status_code == 401
    assert after.json()["code"] == "EXPIRED_API_KEY"


async def test_revocation_elsewhere_is_honoured_within_the_cache_ttl(
    app_client: httpx.AsyncClient, tenant: TenantFixture, settings
):
    """A revocation written by another process reaches this one when its cache entry expires."""
    from switchboard.api.app import create_app
    from switchboard.models.base import utcnow
    from switchboard.store import tenancy
    from switchboard.store.database import create_engine, session_factory, unit_of_work

    app = create_app(settings.model_copy(update={"api_key_cache_seconds": 0.2}))
    async with app.router.lifespan_context(app):
        other = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://other.test")
        assert (await other.get("/v1/phone-numbers", headers=tenant.headers())).status_code == 200
        engine = create_engine(settings.database_url)
        async with unit_of_work(session_factory(engine)) as session:
            found = await tenancy.find_key(
                session, __import__("switchboard.domain.api_keys").domain.api_keys.hash_key(tenant.live_key)
            )
            assert found is not None
            await tenancy.revoke_key(session, found[0].id, at=utcnow())
        await engine.dispose()
        import asyncio

        await asyncio.sleep(0.3)
        response = await other.get("/v1/phone-numbers", headers=tenant.headers())
        assert response.status_code == 401
        assert response.json()["code"] == "EXPIRED_API_KEY"
        await other.aclose()


async def test_sandbox_and_live_keys_both_authenticate(app_client: httpx.AsyncClient, tenant: TenantFixture):
    for key in (tenant.live_key, tenant.test_key):
        response = await app_client.get(f"/v1/phone-numbers/{tenant.phone_id}", headers={"X-API-Key": key})
        assert response.status_code == 200


async def test_api_key_is_not_logged(app_client: httpx.AsyncClient, tenant: TenantFixture, caplog):
    caplog.set_level("DEBUG")
    await app_client.get("/v1/phone-numbers", headers=tenant.headers())
    await app_client.get("/v1/phone-numbers", headers={"X-API-Key": "gsk_live_" + "z" * 43})
    assert tenant.live_key not in caplog.text
