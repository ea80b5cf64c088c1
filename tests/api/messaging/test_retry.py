"""POST /v1/messages/{id}/retry: only failed messages, a new row, a 5-minute guard, deduplicated."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from tests.support.fake_channel import FakeChannel, Scripted, cloud_error
from tests.support.tenants import TenantFixture

TO = "14155550100"
PAYLOAD = {"to": TO, "type": "text", "text": {"body": "your order shipped"}}


async def failed_message(
    client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel
) -> dict[str, Any]:
    """Send a message the upstream refuses for good, and return the stored row."""
    channel.script(TO, Scripted(400, cloud_error(131026, "not on WhatsApp")))
    response = await client.post(
        "/v1/messages", json={"phone_number_id": tenant.phone_number_id, **PAYLOAD}, headers=tenant.headers()
    )
    assert response.status_code == 400, response.text
    stored = await client.get(f"/v1/messages/{response.json()['message_id']}", headers=tenant.headers())
    assert stored.json()["status"] == "failed"
    return dict(stored.json())


async def retry(client: httpx.AsyncClient, tenant: TenantFixture, message_id: str) -> httpx.Response:
    return await client.post(f"/v1/messages/{message_id}/retry", headers=tenant.headers())


async def test_retry_creates_a_new_message_and_keeps_the_original(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    original = await failed_message(app_client, tenant, channel)
    response = await retry(app_client, tenant, original["id"])
    assert response.status_code == 201, response.text
    new = response.json()
    assert new["id"] != original["id"]
    assert new["retry_of_message_id"] == original["id"]
    assert (new["status"], new["to_phone"], new["message_type"]) == ("sent", TO, "text")
    assert new["wa_message_id"].startswith("wamid.")
    assert len(channel.sends) == 2 and channel.sends[1] == channel.sends[0]
    unchanged = (await app_client.get(f"/v1/messages/{original['id']}", headers=tenant.headers())).json()
    assert unchanged == original
    stored = (await app_client.get(f"/v1/messages/{new['id']}", headers=tenant.headers())).json()
    assert stored["retry_of_message_id"] == original["id"]
    assert (await app_client.get("/v1/messages", headers=tenant.headers())).json()["total"] == 2


async def test_a_retry_that_fails_again_is_a_new_failed_row(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    original = await failed_message(app_client, tenant, channel)
    channel.script(TO, Scripted(400, cloud_error(131047, "Re-engagement message")))
    response = await retry(app_client, tenant, original["id"])
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "OUTSIDE_CONVERSATION_WINDOW"
    new = (
        await app_client.get(f"/v1/messages/{response.json()['message_id']}", headers=tenant.headers())
    ).json()
    assert (new["status"], new["retry_of_message_id"]) == ("failed", original["id"])


async def test_only_failed_messages_can_be_retried(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    sent = await app_client.post(
        "/v1/messages", json={"phone_number_id": tenant.phone_number_id, **PAYLOAD}, headers=tenant.headers()
    )
    assert sent.status_code == 201
    response = await retry(app_client, tenant, sent.json()["id"])
    assert response.status_code == 400, response.text
    assert response.json()["statusCode"] == 400
    assert len(channel.sends) == 1
    assert (await app_client.get("/v1/messages", headers=tenant.headers())).json()["total"] == 1


async def test_a_repeat_within_five_minutes_is_429(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    original = await failed_message(app_client, tenant, channel)
    assert (await retry(app_client, tenant, original["id"])).status_code == 201
    again = await retry(app_client, tenant, original["id"])
    assert again.status_code == 429, again.text
    body = again.json()
    assert body["code"] == "too_many_requests"
    assert 0 < body["retry_after_seconds"] <= 300
    assert again.headers["Retry-After"] == str(body["retry_after_seconds"])
    assert len(channel.sends) == 2


async def test_concurrent_retries_of_one_original_create_one_message(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    original = await failed_message(app_client, tenant, channel)
    answers = await asyncio.gather(*(retry(app_client, tenant, original["id"]) for _ in range(3)))
    assert sorted(a.status_code for a in answers) == [201, 429, 429]
    listed = (await app_client.get("/v1/messages", headers=tenant.headers())).json()["data"]
    retries = [m for m in listed if m["retry_of_message_id"] == original["id"]]
    assert len(retries) == 1
    assert len(channel.sends) == 2


async def test_another_tenants_message_is_404(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    other_tenant: TenantFixture,
    worker,
    channel: FakeChannel,
):
    original = await failed_message(app_client, tenant, channel)
    response = await retry(app_client, other_tenant, original["id"])
    assert response.status_code == 404, response.text
    assert len(channel.sends) == 1
    assert (await retry(app_client, tenant, original["id"])).status_code == 201, (
        "a 404 does not arm the guard"
    )


async def test_retry_of_a_paused_customers_message_is_403(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    original = await failed_message(app_client, tenant, channel)
    paused = await app_client.patch(
        f"/v1/customers/{tenant.customer_id}", json={"sending_paused": True}, headers=tenant.headers()
    )
    assert paused.status_code == 200
    response = await retry(app_client, tenant, original["id"])
    assert response.status_code == 403, response.text
    assert response.json()["code"] == "customer_sending_disabled"
    assert len(channel.sends) == 1
