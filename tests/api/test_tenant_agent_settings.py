"""CONTRACTS 7a tenant settings: platform_managed (capConversacion 30) and the IANA time zone."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import ADMIN_KEY
from tests.support.tenants import TenantFixture

ADMIN = {"X-Admin-Key": ADMIN_KEY}


async def test_defaults_and_updates(app_client: httpx.AsyncClient) -> None:
    created = await app_client.post("/v1/admin/tenants", json={"name": "Clínica"}, headers=ADMIN)
    assert created.status_code == 201, created.text
    assert (created.json()["platform_managed"], created.json()["timezone"]) == (False, "UTC")
    tenant_id = created.json()["id"]
    patched = await app_client.patch(
        f"/v1/admin/tenants/{tenant_id}",
        json={"platform_managed": True, "timezone": "America/Argentina/Buenos_Aires"},
        headers=ADMIN,
    )
    assert patched.status_code == 200, patched.text
    assert (patched.json()["platform_managed"], patched.json()["timezone"]) == (
        True,
        "America/Argentina/Buenos_Aires",
    )
    untouched = await app_client.patch(
        f"/v1/admin/tenants/{tenant_id}", json={"plan": "standard"}, headers=ADMIN
    )
    assert untouched.json()["timezone"] == "America/Argentina/Buenos_Aires"


@pytest.mark.parametrize("zone", ["Mars/Olympus_Mons", "UTC+3", ""])
async def test_unknown_time_zone_is_refused(
    app_client: httpx.AsyncClient, tenant: TenantFixture, zone: str
) -> None:
    response = await app_client.patch(
        f"/v1/admin/tenants/{tenant.id}", json={"timezone": zone}, headers=ADMIN
    )
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["statusCode"] == 400 and body["details"]["field"] == "timezone"


async def test_platform_managed_tenants_bindings_default_to_thirty(
    app_client: httpx.AsyncClient, tenant: TenantFixture
) -> None:
    from tests.api.agent_catalog_support import create_agent, create_binding, create_version

    agent = await create_agent(app_client, tenant)
    version = await create_version(app_client, tenant, agent["id"])
    before = await create_binding(app_client, tenant, version["id"])
    assert before["effective_params"]["capConversacion"] == 20
    await app_client.patch(f"/v1/admin/tenants/{tenant.id}", json={"platform_managed": True}, headers=ADMIN)
    after = await app_client.get(f"/v1/agent-bindings/{before['id']}", headers=tenant.headers())
    assert after.json()["effective_params"]["capConversacion"] == 30


@pytest.mark.parametrize("cap", ["100000000", "4.66e306", "0.00001", "-1"])
async def test_cost_caps_out_of_the_stored_range_are_refused(
    app_client: httpx.AsyncClient, tenant: TenantFixture, cap: str
) -> None:
    response = await app_client.patch(
        f"/v1/admin/tenants/{tenant.id}", json={"cost_cap_day_usd": cap}, headers=ADMIN
    )
    assert response.status_code == 400, response.text
    assert response.json()["details"]["field"] == "cost_cap_day_usd"
    ok = await app_client.patch(
        f"/v1/admin/tenants/{tenant.id}", json={"cost_cap_day_usd": "99999999.9999"}, headers=ADMIN
    )
    assert ok.status_code == 200 and ok.json()["cost_cap_day_usd"] in ("99999999.9999", 99999999.9999)
