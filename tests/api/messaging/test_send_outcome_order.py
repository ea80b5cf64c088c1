"""A send's outcome never moves its conversation's last-message pointer back.

The pointer moves only forward in ``occurred_at``: a send is dated when it was
queued, so one recorded after the upstream kept it waiting (here: held at the
fake upstream's door) is older than a customer message that arrived meanwhile.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import httpx
import pytest

from switchboard.models.base import utcnow
from switchboard.models.messaging import Conversation, Message
from tests.fixtures.channel import PHONE_NUMBER_ID, USER_PHONE
from tests.support.fake_channel import FakeChannel
from tests.support.inbound import conversations, deliver, provision_fixture_number, rows, text_payload
from tests.support.tenants import TenantFixture


@pytest.fixture
async def phone(app_client: httpx.AsyncClient, tenant: TenantFixture) -> dict[str, Any]:
    """The channel fixtures' business number, so inbound payloads reach the same tenant."""
    return await provision_fixture_number(app_client, tenant)


async def send_text(client: httpx.AsyncClient, tenant: TenantFixture) -> httpx.Response:
    body = {"phone_number_id": PHONE_NUMBER_ID, "to": USER_PHONE, "type": "text", "text": {"body": "hello"}}
    return await client.post("/v1/messages", json=body, headers=tenant.headers())


async def the_conversation(settings: Any, tenant: TenantFixture) -> Conversation:
    [conversation] = await conversations(settings, tenant.id)
    return conversation


async def inbound_id(settings: Any, wa_message_id: str) -> str:
    [message] = await rows(settings, Message, Message.wa_message_id == wa_message_id)
    return str(message.id)


async def test_a_send_recorded_after_a_newer_inbound_leaves_the_pointer_on_the_inbound(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    phone,
    worker,
    channel: FakeChannel,
    settings,
    temporal_env,
):
    # The customer writes first: the conversation exists and its 24 h window is open.
    await deliver(
        app_client, temporal_env.client, text_payload("wamid.FIRST", from_phone=USER_PHONE), settings=settings
    )
    gate = channel.hold()
    sending = asyncio.create_task(send_text(app_client, tenant))
    await channel.gate_entered.wait()
    # The send is queued and waiting at the upstream; the customer writes again (a later timestamp:
    # the channel's are whole seconds, the send's is not).
    later = utcnow() + timedelta(seconds=2)
    await deliver(
        app_client,
        temporal_env.client,
        text_payload("wamid.LATER", from_phone=USER_PHONE, at=later),
        settings=settings,
    )
    newest = await inbound_id(settings, "wamid.LATER")
    before = await the_conversation(settings, tenant)
    assert before.last_message_id == newest

    gate.set()
    response = await sending
    assert response.status_code == 201, response.text
    assert response.json()["status"] == "sent"

    after = await the_conversation(settings, tenant)
    assert after.last_message_id == newest
    assert after.last_message_at == before.last_message_at
    [sent] = await rows(settings, Message, Message.id == response.json()["id"])
    assert sent.status == "sent" and sent.occurred_at < after.last_message_at


async def test_a_send_newer_than_the_last_message_moves_the_pointer(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    phone,
    worker,
    channel: FakeChannel,
    settings,
    temporal_env,
):
    earlier = utcnow() - timedelta(minutes=5)
    await deliver(
        app_client,
        temporal_env.client,
        text_payload("wamid.EARLIER", from_phone=USER_PHONE, at=earlier),
        settings=settings,
    )
    response = await send_text(app_client, tenant)
    assert response.status_code == 201, response.text
    conversation = await the_conversation(settings, tenant)
    assert conversation.last_message_id == response.json()["id"]
