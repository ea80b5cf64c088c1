"""POST /v1/messages/mark-read: the Cloud API read receipt, idempotent; sandbox answers without a call."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support.fake_channel import FakeChannel, Scripted, cloud_error
from tests.support.tenants import TenantFixture

WAMID = "wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA="


def read(tenant: TenantFixture, phone: str | None = None) -> dict[str, Any]:
    return {"phone_number_id": phone or tenant.phone_number_id, "wa_message_id": WAMID}


async def test_live_mark_read_calls_the_upstream_and_is_idempotent(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel
):
    for _ in range(2):
        response = await app_client.post(
            "/v1/messages/mark-read", json=read(tenant), headers=tenant.headers()
        )
        assert response.status_code == 200, response.text
        assert response.json() == {"success": True}
    expected = {
        "_phone_number_id": tenant.phone_number_id,
        "messaging_product": "whatsapp",
        "status": "read",
        "message_id": WAMID,
    }
    assert channel.sends == [expected, expected]
    token = f"token-{int(tenant.waba_id) - 900000000000}"
    assert channel.auth_headers == [f"Bearer {token}"] * 2


async def test_sandbox_mark_read_makes_no_call(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel
):
    for _ in range(2):
        response = await app_client.post(
            "/v1/messages/mark-read", json=read(tenant), headers=tenant.headers(tenant.test_key)
        )
        assert response.status_code == 200, response.text
        assert response.json() == {"success": True, "sandbox": True}
    assert channel.sends == []


@pytest.mark.parametrize("mode", ["live", "sandbox"])
@pytest.mark.parametrize("missing", ["phone_number_id", "wa_message_id"])
async def test_missing_field_is_400(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel, mode: str, missing: str
):
    body = {k: v for k, v in read(tenant).items() if k != missing}
    key = tenant.live_key if mode == "live" else tenant.test_key
    response = await app_client.post("/v1/messages/mark-read", json=body, headers=tenant.headers(key))
    assert response.status_code == 400, response.text
    assert (response.json()["code"], response.json()["details"]["field"]) == (
        "MISSING_REQUIRED_FIELD",
        missing,
    )
    assert channel.sends == []


@pytest.mark.parametrize("mode", ["live", "sandbox"])
async def test_another_tenants_number_is_forbidden(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    other_tenant: TenantFixture,
    channel: FakeChannel,
    mode: str,
):
    key = tenant.live_key if mode == "live" else tenant.test_key
    response = await app_client.post(
        "/v1/messages/mark-read", json=read(tenant, other_tenant.phone_number_id), headers=tenant.headers(key)
    )
    assert response.status_code == 403, response.text
    assert response.json()["code"] == "PHONE_NUMBER_NOT_IN_TENANT"
    assert channel.sends == []


async def test_non_json_body_is_415(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel
):
    response = await app_client.post(
        "/v1/messages/mark-read",
        content="wa_message_id=x",
        headers={**tenant.headers(), "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert response.status_code == 415, response.text
    assert channel.sends == []


@pytest.mark.parametrize(
    ("status", "code", "expected_status", "expected_code"),
    [(400, 100, 400, "100"), (503, 131016, 503, "131016"), (401, 190, 403, "190")],
    ids=["bad-message-id", "upstream-unavailable", "bad-waba-token"],
)
async def test_upstream_refusal_is_the_spec_error_body(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    channel: FakeChannel,
    status: int,
    code: int,
    expected_status: int,
    expected_code: str,
):
    channel.read_script.append(Scripted(status, cloud_error(code, "refused")))
    response = await app_client.post("/v1/messages/mark-read", json=read(tenant), headers=tenant.headers())
    assert response.status_code == expected_status, response.text
    body = response.json()
    assert (body["statusCode"], body["code"]) == (expected_status, expected_code)
    assert body["error_message"]
