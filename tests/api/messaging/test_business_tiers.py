"""Business-initiated conversation tiers: counted from our own sends, refused past the WABA's tier."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest

from switchboard.models.base import utcnow
from switchboard.models.messaging import Message
from tests.conftest import ADMIN_KEY
from tests.fixtures.channel import PHONE_NUMBER_ID, WABA_ID
from tests.support.fake_channel import FakeChannel
from tests.support.inbound import db, deliver, provision_fixture_number, text_payload
from tests.support.tenants import TenantFixture

TIER_1 = 1_000


@pytest.fixture
async def phone(app_client: httpx.AsyncClient, tenant: TenantFixture) -> dict[str, Any]:
    return await provision_fixture_number(app_client, tenant)


def template(to: str) -> dict[str, Any]:
    return {
        "phone_number_id": PHONE_NUMBER_ID,
        "to": to,
        "type": "template",
        "template": {"name": "order_update", "language": {"code": "en_US"}},
    }


def _row(tenant: TenantFixture, conversation_id: str, *, ago: timedelta, **fields: Any) -> Message:
    at = utcnow() - ago
    values: dict[str, Any] = {
        "tenant_id": tenant.id,
        "phone_number_id": PHONE_NUMBER_ID,
        "direction": "outbound",
        "message_type": "template",
        "status": "delivered",
        "conversation_id": conversation_id,
        "source": "API",
        "created_at": at,
        "occurred_at": at,
        **fields,
    }
    return Message(**values)


async def seed(settings, tenant: TenantFixture, *, counted: int) -> None:
    """Earlier sends of this WABA: ``counted`` that count, and others that must not."""
    rows = [_row(tenant, f"conv_seed_{n}", ago=timedelta(hours=1)) for n in range(counted)]
    # Older than 24 h, refused by the upstream, or sent inside the customer's window: none count.
    rows += [_row(tenant, f"conv_old_{n}", ago=timedelta(hours=25)) for n in range(5)]
    rows += [_row(tenant, f"conv_failed_{n}", ago=timedelta(hours=1), status="failed") for n in range(5)]
    for n in range(3):
        rows.append(
            _row(
                tenant,
                f"conv_window_{n}",
                ago=timedelta(hours=3),
                direction="inbound",
                message_type="text",
                status="received",
            )
        )
        rows.append(_row(tenant, f"conv_window_{n}", ago=timedelta(hours=1)))
    async with db(settings) as session:
        session.add_all(rows)


async def send(
    client: httpx.AsyncClient, tenant: TenantFixture, to: str, key: str | None = None
) -> httpx.Response:
    return await client.post("/v1/messages", json=template(to), headers=tenant.headers(key))


async def test_templates_past_the_tier_are_refused_until_a_conversation_expires(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    phone,
    worker,
    channel: FakeChannel,
    settings,
    temporal_env,
):
    await seed(settings, tenant, counted=TIER_1 - 1)
    last_slot = await send(app_client, tenant, "14155550001")
    assert last_slot.status_code == 201, last_slot.text

    refused = await send(app_client, tenant, "14155550002")
    assert refused.status_code == 429, refused.text
    body = refused.json()
    assert (body["statusCode"], body["error"], body["code"]) == (
        429,
        "Too Many Requests",
        "BUSINESS_INITIATED_LIMIT_REACHED",
    )
    assert body["details"] == {
        "waba_id": WABA_ID,
        "messaging_tier": "tier_1",
        "limit": TIER_1,
        "open": TIER_1,
    }
    # The oldest counted conversation (1 h old) frees its slot 23 h from now.
    assert 23 * 3600 - 120 <= body["retry_after_seconds"] <= 23 * 3600
    assert refused.headers["Retry-After"] == str(body["retry_after_seconds"])
    assert channel.sends_to("14155550002") == []
    # Nothing of the refused send is kept: no message, no contact, no conversation for it.
    listed = (
        await app_client.get("/v1/messages", params={"direction": "outbound"}, headers=tenant.headers())
    ).json()
    assert "14155550002" not in {m["to_phone"] for m in listed["data"]}
    inbox = (await app_client.get("/v1/inbox-embed/conversations", headers=tenant.headers())).json()
    assert "14155550002" not in {c["contact_phone"] for c in inbox["data"]}

    # A sandbox rehearsal gets the same answer.
    rehearsal = await send(app_client, tenant, "14155550002", key=tenant.test_key)
    assert (rehearsal.status_code, rehearsal.json()["code"]) == (429, "BUSINESS_INITIATED_LIMIT_REACHED")

    # A contact already reached in the last 24 h opens nothing new.
    assert (await send(app_client, tenant, "14155550001")).status_code == 201
    # Neither does a template inside the customer-service window (user-initiated).
    await deliver(
        app_client,
        temporal_env.client,
        text_payload("wamid.IN9", from_phone="14155550003"),
        settings=settings,
    )
    assert (await send(app_client, tenant, "14155550003")).status_code == 201
    # Nor free-form messages, which never open a business-initiated conversation.
    text = {"phone_number_id": PHONE_NUMBER_ID, "to": "14155550004", "type": "text", "text": {"body": "hi"}}
    assert (await app_client.post("/v1/messages", json=text, headers=tenant.headers())).status_code == 201

    # The operator raises the WABA's tier: the refused contact goes through.
    raised = await app_client.patch(
        f"/v1/admin/tenants/{tenant.id}/wabas/{WABA_ID}",
        json={"messaging_tier": "tier_2"},
        headers={"X-Admin-Key": ADMIN_KEY},
    )
    assert raised.status_code == 200, raised.text
    assert (await send(app_client, tenant, "14155550002")).status_code == 201


async def test_tier_4_is_unlimited(
    app_client: httpx.AsyncClient, tenant: TenantFixture, phone, worker, channel: FakeChannel, settings
):
    await seed(settings, tenant, counted=TIER_1)
    assert (await send(app_client, tenant, "14155550001")).status_code == 429
    raised = await app_client.patch(
        f"/v1/admin/tenants/{tenant.id}/wabas/{WABA_ID}",
        json={"messaging_tier": "tier_4"},
        headers={"X-Admin-Key": ADMIN_KEY},
    )
    assert raised.status_code == 200, raised.text
    assert (await send(app_client, tenant, "14155550001")).status_code == 201
