"""Operator provisioning and the tenant's view of its resources."""

from __future__ import annotations

import httpx

from tests.conftest import ADMIN_KEY
from tests.support.tenants import TenantFixture

ADMIN = {"X-Admin-Key": ADMIN_KEY}


async def test_phone_number_record_includes_hidden_from_inbox(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    response = await app_client.get(f"/v1/phone-numbers/{tenant.phone_id}", headers=tenant.headers())
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == tenant.phone_id
    assert body["phone_number_id"] == tenant.phone_number_id
    assert body["hidden_from_inbox"] is False
    assert body["customer_id"] == tenant.customer_id
    assert body["throughput_tier"] == "standard"


async def test_other_tenants_phone_number_is_404(
    app_client: httpx.AsyncClient, tenant: TenantFixture, other_tenant: TenantFixture
):
    response = await app_client.get(f"/v1/phone-numbers/{other_tenant.phone_id}", headers=tenant.headers())
    assert response.status_code == 404
    assert response.json()["statusCode"] == 404


async def test_phone_number_list_is_scoped_and_enveloped(
    app_client: httpx.AsyncClient, tenant: TenantFixture, other_tenant: TenantFixture
):
    response = await app_client.get("/v1/phone-numbers", headers=tenant.headers())
    assert response.status_code == 200
    body = response.json()
    assert [p["id"] for p in body["data"]] == [tenant.phone_id]
    assert (body["page"], body["per_page"], body["total"], body["has_more"]) == (1, 20, 1, False)


async def test_waba_access_token_is_never_returned(app_client: httpx.AsyncClient, tenant: TenantFixture):
    response = await app_client.post(
        f"/v1/admin/tenants/{tenant.id}/wabas",
        json={"waba_id": "123456789", "access_token": "super-secret-token"},
        headers=ADMIN,
    )
    assert response.status_code == 201
    assert "super-secret-token" not in response.text
    assert "access_token" not in response.json()


async def test_duplicate_channel_phone_number_is_409(app_client: httpx.AsyncClient, tenant: TenantFixture):
    response = await app_client.post(
        f"/v1/admin/tenants/{tenant.id}/phone-numbers",
        json={
            "phone_number_id": tenant.phone_number_id,
            "display_phone_number": "+1",
            "waba_id": tenant.waba_id,
        },
        headers=ADMIN,
    )
    assert response.status_code == 409
    assert response.json()["code"] == "ALREADY_EXISTS"


async def test_phone_under_another_tenants_waba_is_waba_not_in_tenant(
    app_client: httpx.AsyncClient, tenant: TenantFixture, other_tenant: TenantFixture
):
    response = await app_client.post(
        f"/v1/admin/tenants/{tenant.id}/phone-numbers",
        json={"phone_number_id": "777000111", "display_phone_number": "+1", "waba_id": other_tenant.waba_id},
        headers=ADMIN,
    )
    assert response.status_code == 403
    assert response.json()["code"] == "WABA_NOT_IN_TENANT"


async def test_customer_of_another_tenant_is_404_when_registering_phone(
    app_client: httpx.AsyncClient, tenant: TenantFixture, other_tenant: TenantFixture
):
    response = await app_client.post(
        f"/v1/admin/tenants/{tenant.id}/phone-numbers",
        json={
            "phone_number_id": "777000112",
            "display_phone_number": "+1",
            "waba_id": tenant.waba_id,
            "customer_id": other_tenant.customer_id,
        },
        headers=ADMIN,
    )
    assert response.status_code == 404


async def test_custom_rate_limits_need_enterprise(app_client: httpx.AsyncClient, tenant: TenantFixture):
    response = await app_client.patch(
        f"/v1/admin/tenants/{tenant.id}", json={"rate_limit_per_second": 5}, headers=ADMIN
    )
    assert response.status_code == 422
    ok = await app_client.patch(
        f"/v1/admin/tenants/{tenant.id}",
        json={"plan": "enterprise", "rate_limit_per_second": 5},
        headers=ADMIN,
    )
    assert ok.status_code == 200
    assert ok.json()["rate_limit_per_second"] == 5


async def test_operator_endpoints_need_the_admin_key(app_client: httpx.AsyncClient, tenant: TenantFixture):
    no_key = await app_client.post("/v1/admin/tenants", json={"name": "x"})
    assert no_key.status_code == 401
    wrong = await app_client.post("/v1/admin/tenants", json={"name": "x"}, headers={"X-Admin-Key": "nope"})
    assert wrong.status_code == 401
    # An API key is not an admin key, whatever its role.
    as_owner = await app_client.post("/v1/admin/tenants", json={"name": "x"}, headers=tenant.headers())
    assert as_owner.status_code == 401


async def test_pausing_a_customer_needs_owner_or_admin(app_client: httpx.AsyncClient, tenant: TenantFixture):
    path = f"/v1/customers/{tenant.customer_id}"
    member = await app_client.patch(
        path, json={"sending_paused": True}, headers=tenant.headers(tenant.member_key)
    )
    assert member.status_code == 403
    assert member.json()["code"] == "ROLE_FORBIDDEN"
    owner = await app_client.patch(path, json={"sending_paused": True}, headers=tenant.headers())
    assert owner.status_code == 200
    assert owner.json()["sending_paused"] is True


async def test_other_tenants_customer_is_404(
    app_client: httpx.AsyncClient, tenant: TenantFixture, other_tenant: TenantFixture
):
    path = f"/v1/customers/{other_tenant.customer_id}"
    assert (await app_client.get(path, headers=tenant.headers())).status_code == 404
    patched = await app_client.patch(path, json={"sending_paused": True}, headers=tenant.headers())
    assert patched.status_code == 404
