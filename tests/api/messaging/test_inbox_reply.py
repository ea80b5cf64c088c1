"""The embedded inbox's human reply goes through the send path with a human source."""

from __future__ import annotations

import httpx
import pytest

from tests.fixtures.channel import USER_PHONE, raw
from tests.support.fake_channel import FakeChannel
from tests.support.inbound import conversations, deliver, provision_fixture_number
from tests.support.tenants import TenantFixture


async def _conversation(app_client, tenant, temporal_env, settings) -> str:
    await provision_fixture_number(app_client, tenant)
    await deliver(app_client, temporal_env.client, raw("text_bsuid"), settings=settings)
    (conversation,) = await conversations(settings, tenant.id)
    return conversation.id


@pytest.mark.parametrize(
    ("extra", "source"),
    [({}, "HUMAN_EMBED_ANONYMOUS"), ({"requireAgentLogin": True, "agent_id": "agent-7"}, "HUMAN_PORTAL")],
    ids=["anonymous-embed", "logged-in-agent"],
)
async def test_reply_is_sent_to_the_contact_with_a_human_source(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    channel: FakeChannel,
    worker,
    temporal_env,
    settings,
    extra: dict,
    source: str,
):
    conversation_id = await _conversation(app_client, tenant, temporal_env, settings)
    response = await app_client.post(
        f"/v1/inbox-embed/conversations/{conversation_id}/messages",
        json={"text": "A human here", **extra},
        headers=tenant.headers(),
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert (body["source"], body["status"], body["conversation_id"]) == (source, "sent", conversation_id)
    assert body["to_phone"] == USER_PHONE
    assert channel.sends[-1]["to"] == "+" + USER_PHONE
    assert channel.sends[-1]["text"] == {"body": "A human here"}
    listed = await app_client.get(
        f"/v1/inbox-embed/conversations/{conversation_id}/messages", headers=tenant.headers()
    )
    assert listed.json()["data"][0]["id"] == body["id"]


async def test_reply_needs_the_agent_when_login_is_required(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel, worker, temporal_env, settings
):
    conversation_id = await _conversation(app_client, tenant, temporal_env, settings)
    response = await app_client.post(
        f"/v1/inbox-embed/conversations/{conversation_id}/messages",
        json={"text": "hi", "requireAgentLogin": True},
        headers=tenant.headers(),
    )
    assert response.status_code == 400
    assert response.json()["details"]["field"] == "agent_id"
    assert channel.sends == []


async def test_reply_cannot_readdress_and_is_tenant_scoped(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    other_tenant: TenantFixture,
    channel: FakeChannel,
    worker,
    temporal_env,
    settings,
):
    conversation_id = await _conversation(app_client, tenant, temporal_env, settings)
    readdressed = await app_client.post(
        f"/v1/inbox-embed/conversations/{conversation_id}/messages",
        json={"text": "x", "to": "14155550100"},
        headers=tenant.headers(),
    )
    assert readdressed.status_code == 400
    foreign = await app_client.post(
        f"/v1/inbox-embed/conversations/{conversation_id}/messages",
        json={"text": "x"},
        headers=other_tenant.headers(),
    )
    assert foreign.status_code == 404
    assert channel.sends == []
