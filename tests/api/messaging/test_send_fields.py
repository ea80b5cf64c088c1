"""Every send field the Cloud API defines that the service offers reaches the upstream; any other is refused.

The fields are the Cloud API's (shared/reference/cloud-api-and-peers.md section 1: ``biz_opaque_callback_data``
is echoed back on the message's status webhooks, ``recipient_identity_key_hash`` makes the upstream refuse
the send with 137000 if the user's identity changed, ``audio.voice`` sends a voice note). Each is posted to
``POST /v1/messages`` and checked in the body the fake upstream on loopback received; the callback data is
then followed back through a signed status webhook into the tenant's status event.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.fixtures.channel import PHONE_NUMBER_ID, USER_PHONE
from tests.support.fake_channel import FakeChannel
from tests.support.inbound import deliver, events, provision_fixture_number, status_payload
from tests.support.tenants import TenantFixture

CALLBACK = "campaign=spring-checkups;patient=1842"
# A status webhook's billing facts as Meta documents them (per-message pricing, July 2025 on).
PRICING = {"billable": True, "pricing_model": "PMP", "category": "utility", "type": "regular"}
BILLING = {"id": "6ceb9d929c5a5d5e1f8b1b8c6f3e0d2a", "origin": {"type": "utility"}}


def send_body(**extra: Any) -> dict[str, Any]:
    return {
        "phone_number_id": PHONE_NUMBER_ID,
        "to": USER_PHONE,
        "type": "text",
        "text": {"body": "hi"},
        **extra,
    }


async def test_callback_data_and_identity_hash_go_upstream_and_come_back_on_status_events(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel, settings, temporal_env
):
    await provision_fixture_number(app_client, tenant)
    response = await app_client.post(
        "/v1/messages",
        json=send_body(biz_opaque_callback_data=CALLBACK, recipient_identity_key_hash="DF2lS5v2W6x="),
        headers=tenant.headers(),
    )
    assert response.status_code == 201, response.text
    assert channel.sends == [
        {
            "_phone_number_id": PHONE_NUMBER_ID,
            "messaging_product": "whatsapp",
            "recipient_type": "individual",
            "to": "+" + USER_PHONE,
            "type": "text",
            "text": {"body": "hi"},
            "biz_opaque_callback_data": CALLBACK,
            "recipient_identity_key_hash": "DF2lS5v2W6x=",
        }
    ]
    wamid = response.json()["wa_message_id"]

    await deliver(
        app_client,
        temporal_env.client,
        status_payload(
            wamid, "delivered", biz_opaque_callback_data=CALLBACK, pricing=PRICING, conversation=BILLING
        ),
        settings=settings,
    )

    recorded = {e.kind: e.payload for e in await events(settings, tenant.id)}
    assert recorded["channel.message.sent"]["message"]["biz_opaque_callback_data"] == CALLBACK
    delivered = recorded["channel.message.delivered"]["message"]
    assert delivered["biz_opaque_callback_data"] == CALLBACK
    assert (delivered["pricing"], delivered["conversation"]) == (PRICING, BILLING), (
        "the status's billing facts"
    )


async def test_a_voice_note_is_sent_as_one(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    payload = {
        "phone_number_id": tenant.phone_number_id,
        "to": "14155550100",
        "type": "audio",
        "audio": {"id": "1013859600285441", "voice": True},
    }
    response = await app_client.post("/v1/messages", json=payload, headers=tenant.headers())
    assert response.status_code == 201, response.text
    assert channel.sends[0]["audio"] == {"id": "1013859600285441", "voice": True}


@pytest.mark.parametrize(
    ("body", "field", "unknown"),
    [
        pytest.param(send_body(foo=1), "foo", ["foo"], id="unknown top-level field"),
        pytest.param(
            send_body(image={"link": "https://example.com/a.jpg"}),
            "image",
            ["image"],
            id="another type's object",
        ),
        pytest.param(
            send_body(text={"body": "hi", "preview": True}),
            "text.preview",
            ["text.preview"],
            id="typo in text",
        ),
        pytest.param(
            send_body(context={"message_id": "wamid.x", "from": "1"}),
            "context.from",
            ["context.from"],
            id="context",
        ),
        pytest.param(
            {**send_body(), "type": "image", "image": {"id": "1", "voice": True}, "text": None},
            "text",
            ["text"],
            id="a null member is still a field",
        ),
    ],
)
async def test_a_field_the_service_would_not_send_is_refused_by_name(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel, body, field, unknown
):
    await provision_fixture_number(app_client, tenant)
    response = await app_client.post("/v1/messages", json=body, headers=tenant.headers())
    assert response.status_code == 400, response.text
    error = response.json()
    assert (error["code"], error["details"]["field"], error["details"]["unknown"]) == (
        "VALIDATION_FAILED",
        field,
        unknown,
    )
    assert channel.sends == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({**send_body(), "type": "image", "image": {"id": "1", "voice": True}}, "image.voice"),
        ({**send_body(), "type": "audio", "audio": {"id": "1", "voice": "yes"}}, "audio.voice"),
        (send_body(biz_opaque_callback_data="x" * 513), "biz_opaque_callback_data"),
        (send_body(messaging_product="sms"), "messaging_product"),
        (send_body(recipient_type="group"), "recipient_type"),
    ],
)
async def test_a_field_out_of_its_rules_is_refused(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel, body, field
):
    await provision_fixture_number(app_client, tenant)
    body = {k: v for k, v in body.items() if not (k == "text" and body["type"] != "text")}
    response = await app_client.post("/v1/messages", json=body, headers=tenant.headers())
    assert response.status_code == 400, response.text
    assert (response.json()["code"], response.json()["details"]["field"]) == ("VALIDATION_FAILED", field)
    assert channel.sends == []


async def test_the_cloud_api_fields_it_sets_itself_may_be_given_as_it_sets_them(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    """Bodies copied from Meta's examples carry messaging_product and recipient_type: accepted as written."""
    body = {
        "messaging_product": "whatsapp",
        "recipient_type": "individual",
        "phone_number_id": tenant.phone_number_id,
        "to": "14155550100",
        "type": "text",
        "text": {"body": "hi"},
    }
    response = await app_client.post("/v1/messages", json=body, headers=tenant.headers())
    assert response.status_code == 201, response.text
    assert channel.sends[0]["recipient_type"] == "individual"
