"""A paused customer's numbers refuse sends with 403 customer_sending_disabled before the upstream."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.fake_channel import FakeChannel
from tests.support.tenants import TenantFixture

TO = "14155550100"


def text(tenant: TenantFixture) -> dict[str, Any]:
    return {"phone_number_id": tenant.phone_number_id, "to": TO, "type": "text", "text": {"body": "hello"}}


async def pause(
    client: httpx.AsyncClient, tenant: TenantFixture, paused: bool, key: str | None = None
) -> httpx.Response:
    return await client.patch(
        f"/v1/customers/{tenant.customer_id}", json={"sending_paused": paused}, headers=tenant.headers(key)
    )


async def test_paused_customer_refuses_sends_without_contacting_the_upstream(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    paused = await pause(app_client, tenant, True)
    assert paused.status_code == 200, paused.text
    assert paused.json()["sending_paused"] is True
    for path, payload in (
        ("/v1/messages", text(tenant)),
        (
            "/v1/messages/media",
            {**{k: v for k, v in text(tenant).items() if k != "text"}, "type": "image", "image": {"id": "1"}},
        ),
    ):
        response = await app_client.post(path, json=payload, headers=tenant.headers())
        assert response.status_code == 403, response.text
        error = response.json()
        assert (error["statusCode"], error["code"]) == (403, "customer_sending_disabled")
    assert channel.sends == []
    assert (await app_client.get("/v1/messages", headers=tenant.headers())).json()["total"] == 0


async def test_resuming_the_customer_sends_again(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    assert (await pause(app_client, tenant, True)).status_code == 200
    assert (
        await app_client.post("/v1/messages", json=text(tenant), headers=tenant.headers())
    ).status_code == 403
    assert (await pause(app_client, tenant, False)).status_code == 200
    response = await app_client.post("/v1/messages", json=text(tenant), headers=tenant.headers())
    assert response.status_code == 201, response.text
    assert len(channel.sends) == 1


async def test_pausing_takes_effect_at_once_across_api_key_caches(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    assert (
        await app_client.post("/v1/messages", json=text(tenant), headers=tenant.headers())
    ).status_code == 201
    assert (await pause(app_client, tenant, True)).status_code == 200
    response = await app_client.post("/v1/messages", json=text(tenant), headers=tenant.headers())
    assert response.status_code == 403, response.text
    assert len(channel.sends) == 1


async def test_a_member_key_cannot_pause_sending(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    refused = await pause(app_client, tenant, True, key=tenant.member_key)
    assert refused.status_code == 403, refused.text
    assert refused.json()["code"] == "ROLE_FORBIDDEN"
    response = await app_client.post("/v1/messages", json=text(tenant), headers=tenant.headers())
    assert response.status_code == 201, response.text
