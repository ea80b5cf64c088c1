"""Outbound messages are filed under a conversation: found by phone or BSUID, else created (once).

Also: sent/failed events of BSUID sends carry recipient_user_id, and the
identity of a contact first known from a send is completed by inbound.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from switchboard.domain.events import CONVERSATION_CREATED, MESSAGE_FAILED, MESSAGE_SENT
from switchboard.models.messaging import Message
from tests.fixtures.channel import PHONE_NUMBER_ID, USER_BSUID, USER_PHONE
from tests.support.fake_channel import FakeChannel, Scripted, cloud_error
from tests.support.inbound import (
    add_outbound,
    contacts,
    conversations,
    deliver,
    events,
    of_kind,
    provision_fixture_number,
    rows,
    text_payload,
)
from tests.support.tenants import TenantFixture

TO = "14155550100"


@pytest.fixture
async def phone(app_client: httpx.AsyncClient, tenant: TenantFixture) -> dict[str, Any]:
    """The channel fixtures' business number, so inbound payloads reach the same tenant."""
    return await provision_fixture_number(app_client, tenant)


async def send(client: httpx.AsyncClient, tenant: TenantFixture, **address: str) -> httpx.Response:
    body = {"phone_number_id": PHONE_NUMBER_ID, **address, "type": "text", "text": {"body": "hello"}}
    return await client.post("/v1/messages", json=body, headers=tenant.headers())


async def inbox(client: httpx.AsyncClient, tenant: TenantFixture) -> list[dict[str, Any]]:
    response = await client.get("/v1/inbox-embed/conversations", headers=tenant.headers())
    assert response.status_code == 200, response.text
    return list(response.json()["data"])


async def test_a_first_contact_send_creates_contact_and_conversation_once(
    app_client: httpx.AsyncClient, tenant: TenantFixture, phone, worker, channel: FakeChannel, settings
):
    first = await send(app_client, tenant, to=TO)
    assert first.status_code == 201, first.text
    [conversation] = await inbox(app_client, tenant)
    assert (conversation["contact_phone"], conversation["contactBsuid"]) == (TO, None)
    assert conversation["customer_id"] == tenant.customer_id
    assert conversation["last_message"]["id"] == first.json()["id"]
    assert first.json()["conversation_id"] == conversation["id"]
    second = await send(app_client, tenant, to=TO)
    assert second.json()["conversation_id"] == conversation["id"]
    listed = await app_client.get(
        "/v1/messages", params={"conversation_id": conversation["id"]}, headers=tenant.headers()
    )
    assert {m["id"] for m in listed.json()["data"]} == {first.json()["id"], second.json()["id"]}
    [created] = of_kind(await events(settings, tenant.id), CONVERSATION_CREATED)
    assert created.phone_number_id == PHONE_NUMBER_ID
    assert created.payload["conversation"]["id"] == conversation["id"]
    assert created.payload["is_new_conversation"] is True
    [contact] = await contacts(settings, tenant.id)
    assert (contact.phone, contact.bsuid, contact.customer_id) == (TO, None, tenant.customer_id)


async def test_a_send_to_a_known_contact_joins_their_conversation_in_any_phone_form(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    phone,
    worker,
    channel: FakeChannel,
    settings,
    temporal_env,
):
    # An Argentine user writes first (canonical 54 11 ...), the business answers to the 549 form.
    await deliver(
        app_client,
        temporal_env.client,
        text_payload("wamid.IN1", from_phone="541155550000"),
        settings=settings,
    )
    [conversation] = await inbox(app_client, tenant)
    reply = await send(app_client, tenant, to="5491155550000")
    assert reply.status_code == 201, reply.text
    assert reply.json()["conversation_id"] == conversation["id"]
    assert len(await conversations(settings, tenant.id)) == 1
    assert len(of_kind(await events(settings, tenant.id), CONVERSATION_CREATED)) == 1


async def test_a_bsuid_send_is_filed_and_its_sent_event_carries_recipient_user_id(
    app_client: httpx.AsyncClient, tenant: TenantFixture, phone, worker, channel: FakeChannel, settings
):
    response = await send(app_client, tenant, recipient=USER_BSUID)
    assert response.status_code == 201, response.text
    [conversation] = await inbox(app_client, tenant)
    assert (conversation["contact_phone"], conversation["contactBsuid"]) == (None, USER_BSUID)
    assert response.json()["conversation_id"] == conversation["id"]
    recorded = await events(settings, tenant.id)
    assert len(of_kind(recorded, CONVERSATION_CREATED)) == 1
    [sent] = of_kind(recorded, MESSAGE_SENT)
    message = sent.payload["message"]
    assert message["recipient_user_id"] == USER_BSUID
    assert "recipient_id" not in message
    assert sent.payload["conversation"]["business_scoped_user_id"] == USER_BSUID
    again = await send(app_client, tenant, recipient=USER_BSUID)
    assert again.json()["conversation_id"] == conversation["id"]
    assert len(of_kind(await events(settings, tenant.id), CONVERSATION_CREATED)) == 1


async def test_a_bsuid_send_refused_at_once_carries_recipient_user_id(
    app_client: httpx.AsyncClient, tenant: TenantFixture, phone, worker, channel: FakeChannel, settings
):
    channel.script(
        "", Scripted(400, cloud_error(131026, "Message undeliverable"))
    )  # BSUID sends have no `to`
    response = await send(app_client, tenant, recipient=USER_BSUID)
    assert response.status_code == 400, response.text
    [failed] = of_kind(await events(settings, tenant.id), MESSAGE_FAILED)
    message = failed.payload["message"]
    assert message["recipient_user_id"] == USER_BSUID
    assert "recipient_id" not in message
    assert message["errors"][0]["code"] == 131026
    [conversation] = await inbox(app_client, tenant)
    assert conversation["contactBsuid"] == USER_BSUID


async def test_phone_sends_carry_no_bsuid_fields(
    app_client: httpx.AsyncClient, tenant: TenantFixture, phone, worker, channel: FakeChannel, settings
):
    assert (await send(app_client, tenant, to=TO)).status_code == 201
    [sent] = of_kind(await events(settings, tenant.id), MESSAGE_SENT)
    assert sent.payload["message"]["recipient_id"] == TO
    assert "recipient_user_id" not in sent.payload["message"]


async def test_the_phone_of_a_contact_known_by_bsuid_is_backfilled_by_inbound(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    phone,
    worker,
    channel: FakeChannel,
    settings,
    temporal_env,
):
    sent = await send(app_client, tenant, recipient=USER_BSUID)
    assert sent.status_code == 201, sent.text
    await deliver(
        app_client,
        temporal_env.client,
        text_payload("wamid.IN2", from_phone=USER_PHONE, user_id=USER_BSUID),
        settings=settings,
    )
    [conversation] = await inbox(app_client, tenant)
    assert (conversation["contact_phone"], conversation["contactBsuid"]) == (USER_PHONE, USER_BSUID)
    [contact] = await contacts(settings, tenant.id)
    assert (contact.phone, contact.bsuid) == (USER_PHONE, USER_BSUID)
    history = await app_client.get(
        f"/v1/inbox-embed/conversations/{conversation['id']}/messages", headers=tenant.headers()
    )
    assert {m["direction"] for m in history.json()["data"]} == {"inbound", "outbound"}
    assert len(of_kind(await events(settings, tenant.id), CONVERSATION_CREATED)) == 1


async def test_rows_stored_before_filing_are_filed_when_their_conversation_appears(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    phone,
    worker,
    channel: FakeChannel,
    settings,
    temporal_env,
):
    legacy = await add_outbound(settings, tenant, "wamid.OLD1", to_phone=USER_PHONE)
    assert legacy.conversation_id is None
    await deliver(
        app_client, temporal_env.client, text_payload("wamid.IN3", from_phone=USER_PHONE), settings=settings
    )
    [conversation] = await conversations(settings, tenant.id)
    [filed] = await rows(settings, Message, Message.id == legacy.id)
    assert (filed.conversation_id, filed.contact_id) == (conversation.id, conversation.contact_id)
    listed = await app_client.get(
        "/v1/messages", params={"conversation_id": conversation.id}, headers=tenant.headers()
    )
    assert legacy.id in {m["id"] for m in listed.json()["data"]}


async def test_simultaneous_first_sends_to_one_person_share_one_conversation(
    app_client: httpx.AsyncClient, tenant: TenantFixture, phone, worker, channel: FakeChannel, settings
):
    answers = await asyncio.gather(*(send(app_client, tenant, to=TO) for _ in range(4)))
    assert [a.status_code for a in answers] == [201] * 4, [a.text for a in answers]
    [conversation] = await conversations(settings, tenant.id)
    assert {a.json()["conversation_id"] for a in answers} == {conversation.id}
    assert len(await contacts(settings, tenant.id)) == 1
    assert len(of_kind(await events(settings, tenant.id), CONVERSATION_CREATED)) == 1


async def test_a_row_addressed_by_bsuid_alone_is_filed_when_that_users_conversation_appears(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    phone,
    worker,
    channel: FakeChannel,
    settings,
    temporal_env,
):
    legacy = await add_outbound(settings, tenant, "wamid.OLD2", to_phone=None, recipient_bsuid=USER_BSUID)
    other = await add_outbound(settings, tenant, "wamid.OLD3", to_phone=None, recipient_bsuid="US.other")
    # The user writes with a BSUID and no phone: the filing matches by BSUID with no phone to match.
    await deliver(
        app_client,
        temporal_env.client,
        text_payload("wamid.IN4", from_phone=None, user_id=USER_BSUID),
        settings=settings,
    )
    [conversation] = await conversations(settings, tenant.id)
    assert (conversation.contact_phone, conversation.contact_bsuid) == (None, USER_BSUID)
    [filed] = await rows(settings, Message, Message.id == legacy.id)
    assert (filed.conversation_id, filed.contact_id) == (conversation.id, conversation.contact_id)
    [left] = await rows(settings, Message, Message.id == other.id)
    assert (left.conversation_id, left.contact_id) == (None, None)
