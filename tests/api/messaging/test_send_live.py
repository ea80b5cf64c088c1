"""Live sends through the API, a real worker and the fake upstream."""

from __future__ import annotations

import httpx

from tests.support.fake_channel import FakeChannel
from tests.support.tenants import TenantFixture


async def test_text_send_reaches_upstream_and_answers_sent(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    response = await app_client.post(
        "/v1/messages",
        json={
            "phone_number_id": tenant.phone_number_id,
            "to": "14155550100",
            "type": "text",
            "text": {"body": "hello"},
        },
        headers=tenant.headers(),
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["status"] == "sent"
    assert body["direction"] == "outbound"
    assert body["message_type"] == "text"
    assert body["wa_message_id"].startswith("wamid.FAKE")
    assert body["to_phone"] == "14155550100"
    assert body["source"] == "API"
    assert body["created_at"].endswith("Z") and len(body["created_at"].split(".")[1]) == 4
    assert channel.sends[-1] == {
        "_phone_number_id": tenant.phone_number_id,
        "messaging_product": "whatsapp",
        "recipient_type": "individual",
        "to": "+14155550100",
        "type": "text",
        "text": {"body": "hello"},
    }
    assert channel.auth_headers[-1].startswith("Bearer token-")
    stored = await app_client.get(f"/v1/messages/{body['id']}", headers=tenant.headers())
    assert stored.json()["status"] == "sent"
    assert stored.json()["wa_message_id"] == body["wa_message_id"]
