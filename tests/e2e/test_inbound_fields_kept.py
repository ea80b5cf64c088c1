"""What the channel sends about a received message reaches the tenant whole: ad referrals, reply context
(forwarding and product inquiries included) and an unsupported message's errors[].

The bodies are the Cloud API's documented message objects (tests/fixtures/channel, from
shared/reference/cloud-api-and-peers.md), posted through the signed channel webhook and applied by a
real worker; each is checked in the channel.message.received event a loopback receiver gets (once)
and on GET /v1/messages/{id}.
"""

from __future__ import annotations

import asyncio
import copy
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from tests.fixtures.channel import load
from tests.support.http_server import serve_app
from tests.support.inbound import deliver, provision_fixture_number
from tests.workflows.test_webhook_support import Receiver

PRODUCT = {"catalog_id": "194836987003835", "product_retailer_id": "di9ozbzfi4"}


@pytest.fixture
async def receiver() -> AsyncIterator[tuple[Receiver, str]]:
    endpoint = Receiver()
    async with serve_app(endpoint.app()) as base_url:
        yield endpoint, base_url


def message_of(payload: dict[str, Any]) -> dict[str, Any]:
    return dict(payload["entry"][0]["changes"][0]["value"]["messages"][0])


def product_inquiry() -> dict[str, Any]:
    """A message sent from a product's page ("Message business"): its context names the product."""
    payload = copy.deepcopy(load("text_reply"))
    message = payload["entry"][0]["changes"][0]["value"]["messages"][0]
    message["id"] = "wamid.product01"
    message["context"] = {
        "from": message["context"]["from"],
        "id": "wamid.catalog01",
        "referred_product": PRODUCT,
    }
    return payload


async def received_event(endpoint: Receiver, wamid: str) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        bodies = [json.loads(r.body) for r in endpoint.at("/hook")]
        found = [
            b for b in bodies if b["event"] == "channel.message.received" and b["message"]["id"] == wamid
        ]
        if found:
            assert len(found) == 1, found
            return found[0]
        await asyncio.sleep(0.1)
    raise AssertionError(f"no channel.message.received for {wamid}")


@pytest.mark.parametrize(
    ("fixture", "kept"),
    [
        pytest.param(lambda: load("text_referral"), ("referral",), id="click-to-whatsapp referral"),
        pytest.param(lambda: load("text_reply"), ("context",), id="reply context"),
        pytest.param(lambda: load("text_forwarded"), ("context",), id="forwarded"),
        pytest.param(product_inquiry, ("context",), id="product inquiry"),
        pytest.param(lambda: load("unsupported"), ("errors",), id="unsupported with errors"),
    ],
)
async def test_the_channels_fields_reach_the_event_and_the_message(
    app_client: httpx.AsyncClient, tenant, worker, settings, temporal_env, receiver, fixture, kept
):
    endpoint, base_url = receiver
    await provision_fixture_number(app_client, tenant)
    created = await app_client.post(
        "/v1/webhooks", json={"url": f"{base_url}/hook"}, headers=tenant.headers()
    )
    assert created.status_code == 201, created.text
    payload = fixture()
    sent = message_of(payload)
    await deliver(app_client, temporal_env.client, json.dumps(payload).encode(), settings=settings)

    event = await received_event(endpoint, sent["id"])
    message_id = event["message"]["service"]["message_id"]
    stored = (await app_client.get(f"/v1/messages/{message_id}", headers=tenant.headers())).json()
    for field in kept:
        assert event["message"][field] == sent[field], (field, event["message"])
        assert stored[field] == sent[field], (field, stored)
    for field in {"referral", "context", "errors"} - set(kept):
        assert field not in event["message"] and stored[field] is None


async def test_a_send_shows_no_channel_fields(app_client: httpx.AsyncClient, tenant):
    """A send's stored payload is the tenant's request: none of it is shown as the channel's context."""
    await provision_fixture_number(app_client, tenant)
    response = await app_client.post(
        "/v1/messages",
        json={
            "phone_number_id": tenant.phone_number_id,
            "to": "14155550100",
            "type": "text",
            "text": {"body": "hi"},
            "context": {"message_id": "wamid.quoted"},
        },
        headers=tenant.headers(),
    )
    assert response.status_code in (201, 202), response.text
    stored = (await app_client.get(f"/v1/messages/{response.json()['id']}", headers=tenant.headers())).json()
    assert (stored["context"], stored["referral"], stored["errors"]) == (None, None, None)
