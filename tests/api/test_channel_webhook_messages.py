"""Inbound messages, echoes and history rows: what is stored and the exact events raised."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from switchboard.domain.events import iso_utc
from switchboard.models.messaging import Contact
from switchboard.models.tenancy import Customer
from switchboard.store.contacts import DEFAULT_CUSTOMER_NAME, default_customer_id
from tests.fixtures.channel import (
    PHONE_NUMBER_ID,
    USER_BSUID,
    USER_PARENT_BSUID,
    USER_PHONE,
    load,
    raw,
)
from tests.support.inbound import (
    by_wamid,
    channel_fixture,  # noqa: F401 - the channel fixture
    contacts,
    conversations,
    db,
    events,
    messages,
    of_kind,
    provision_fixture_number,
    text_payload,
)


def at(epoch: int) -> str:
    return iso_utc(datetime.fromtimestamp(epoch, tz=UTC))


async def test_text_message_rows_and_exact_events(channel, app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    await channel.deliver(raw("text"))

    (message,) = await messages(settings, tenant.id)
    (conversation,) = await conversations(settings, tenant.id)
    (contact,) = await contacts(settings, tenant.id)
    assert (message.direction, message.status, message.source, message.message_type) == (
        "inbound",
        "received",
        "CHANNEL",
        "text",
    )
    assert (message.from_phone, message.to_phone, message.content, message.has_media) == (
        USER_PHONE,
        "15550783881",
        "Body Text",
        False,
    )
    assert message.occurred_at == datetime.fromtimestamp(1697043223, tz=UTC)
    assert message.payload["text"] == {"body": "Body Text"}
    assert (message.conversation_id, message.contact_id) == (conversation.id, contact.id)
    assert (contact.customer_id, contact.phone, contact.bsuid, contact.parent_bsuid, contact.name) == (
        tenant.customer_id,
        USER_PHONE,
        USER_BSUID,
        USER_PARENT_BSUID,
        "Test Name",
    )
    assert (conversation.status, conversation.unread_count, conversation.last_message_id) == (
        "active",
        1,
        message.id,
    )
    assert conversation.last_inbound_at == message.occurred_at == conversation.last_message_at

    recorded = await events(settings, tenant.id)
    (created,) = of_kind(recorded, "conversation.created")
    (received,) = of_kind(recorded, "channel.message.received")
    conversation_object = {
        "id": conversation.id,
        "status": "active",
        "contact_phone": USER_PHONE,
        "business_scoped_user_id": USER_BSUID,
        "parent_business_scoped_user_id": USER_PARENT_BSUID,
    }
    assert created.payload == {
        "object": "service_events",
        "event": "conversation.created",
        "occurred_at": iso_utc(conversation.created_at),
        "tenant_id": tenant.id,
        "phone_number_id": PHONE_NUMBER_ID,
        "conversation": conversation_object,
        "is_new_conversation": True,
        "conversation_sequence": 1,
    }
    assert received.phone_number_id == PHONE_NUMBER_ID
    assert received.payload == {
        "object": "service_events",
        "event": "channel.message.received",
        "occurred_at": at(1697043223),
        "tenant_id": tenant.id,
        "phone_number_id": PHONE_NUMBER_ID,
        "message": {
            "id": "wamid.xyzxyz",
            "timestamp": "1697043223",
            "type": "text",
            "from": USER_PHONE,
            "occurred_at": at(1697043223),
            "text": {"body": "Body Text"},
            "service": {
                "message_id": message.id,
                "direction": "inbound",
                "status": "received",
                "origin": "CHANNEL",
                "has_media": False,
                "content": "Body Text",
            },
        },
        "conversation": conversation_object,
        "is_new_conversation": True,
        "conversation_sequence": 2,
    }


async def test_message_level_bsuid_fields_only_when_sent(channel, app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    await channel.deliver(raw("text_bsuid"))
    await channel.deliver(raw("text_username_only"))

    recorded = await events(settings, tenant.id)
    assert len(of_kind(recorded, "conversation.created")) == 1
    first, second = (e.payload for e in of_kind(recorded, "channel.message.received"))
    assert (first["message"]["from_user_id"], first["message"]["from_parent_user_id"]) == (
        USER_BSUID,
        USER_PARENT_BSUID,
    )
    assert first["conversation"]["username"] == "pablomorales"
    assert second["message"]["from_user_id"] == USER_BSUID
    assert "from_parent_user_id" not in second["message"] and "from" not in second["message"]
    assert second["is_new_conversation"] is False
    # The username-only message is matched to the known contact by BSUID.
    (contact,) = await contacts(settings, tenant.id)
    assert (contact.phone, contact.username) == (USER_PHONE, "pablomorales")
    (conversation,) = await conversations(settings, tenant.id)
    assert (conversation.contact_username, conversation.unread_count) == ("pablomorales", 2)


async def test_text_without_any_bsuid_has_none_in_the_event(channel, app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    await channel.deliver(raw("text_argentina"))
    (received,) = (e.payload for e in of_kind(await events(settings, tenant.id), "channel.message.received"))
    assert "from_user_id" not in received["message"] and "from_parent_user_id" not in received["message"]
    assert received["message"]["from"] == "541123456789"


async def test_media_reply_and_unsupported_fields(channel, app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    for name in ("image", "text_reply", "unsupported", "interactive_list_reply"):
        await channel.deliver(raw(name))
    image, reply, unsupported, listed = await messages(settings, tenant.id)
    assert (
        image.has_media
        and image.payload["media_id"]
        == load("image")["entry"][0]["changes"][0]["value"]["messages"][0]["image"]["id"]
    )
    assert reply.payload["context"]["id"] == "wamid.quoted01=="
    assert (unsupported.error_code, unsupported.error_title) == ("131051", "Message type unknown")
    assert listed.payload["reply_id"] == "priority_express"
    received = [e.payload for e in of_kind(await events(settings, tenant.id), "channel.message.received")]
    assert received[0]["message"]["service"]["has_media"] is True
    # The reply context whole, as the channel sent it (the quoted message and who sent it).
    assert received[1]["message"]["context"] == {"from": "15550783881", "id": "wamid.quoted01=="}
    assert received[2]["message"]["errors"] == [
        {
            "code": 131051,
            "title": "Message type unknown",
            "message": "Message type unknown",
            "error_data": {"details": "Message type is currently not supported."},
        }
    ]
    assert received[3]["message"]["interactive"]["list_reply"]["id"] == "priority_express"


async def test_number_without_customer_uses_the_tenant_default_customer(
    channel, app_client, tenant, settings
):
    await provision_fixture_number(app_client, tenant, with_customer=False)
    await channel.deliver(raw("text"))
    await channel.deliver(raw("audio"))
    (contact,) = await contacts(settings, tenant.id)
    assert contact.customer_id == default_customer_id(tenant.id)
    async with db(settings) as session:
        customer = await session.get(Customer, contact.customer_id)
    assert (customer.tenant_id, customer.name) == (tenant.id, DEFAULT_CUSTOMER_NAME)


async def test_numbers_not_provisioned_here_are_ignored(channel, app_client, tenant, settings):
    summary = await channel.deliver(raw("text"))
    assert (summary.items, summary.ignored, summary.applied) == (1, 1, 0)
    assert await messages(settings, tenant.id) == [] and await events(settings, tenant.id) == []


async def test_contact_is_found_by_any_spelling_of_its_phone(channel, app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    async with db(settings) as session:
        session.add(Contact(tenant_id=tenant.id, customer_id=tenant.customer_id, phone="5491123456789"))
    await channel.deliver(raw("text_argentina"))
    (contact,) = await contacts(settings, tenant.id)
    (message,) = await messages(settings, tenant.id)
    assert message.contact_id == contact.id and message.from_phone == "541123456789"


async def test_archived_conversation_reopens_on_a_new_message(channel, app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    await channel.deliver(raw("text"))
    (conversation,) = await conversations(settings, tenant.id)
    response = await app_client.post(
        f"/v1/inbox-embed/conversations/{conversation.id}/archive", headers=tenant.headers()
    )
    assert response.json()["status"] == "archived" and response.json()["unread_count"] == 0

    await channel.deliver(raw("image"))
    (conversation,) = await conversations(settings, tenant.id)
    assert (conversation.status, conversation.unread_count) == ("active", 1)
    last = (await events(settings, tenant.id))[-1].payload
    assert (last["conversation"]["status"], last["is_new_conversation"]) == ("active", False)


async def test_an_older_late_message_does_not_move_the_window_back(channel, app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    now = datetime.now(UTC).replace(microsecond=0)
    await channel.deliver(text_payload("wamid.new", at=now))
    await channel.deliver(text_payload("wamid.old", at=now - timedelta(hours=2)))
    (conversation,) = await conversations(settings, tenant.id)
    new, _ = await messages(settings, tenant.id)
    assert conversation.last_inbound_at == now and conversation.last_message_id == new.id
    assert conversation.unread_count == 2


async def test_same_items_in_another_payload_change_nothing(channel, app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    await channel.deliver(raw("text"))
    reencoded = json.dumps(load("text"), indent=2).encode()
    summary = await channel.deliver(reencoded)
    assert (summary.duplicate, summary.applied, summary.events) == (1, 0, 0)
    assert len(await messages(settings, tenant.id)) == 1 and len(await events(settings, tenant.id)) == 2
    (conversation,) = await conversations(settings, tenant.id)
    assert conversation.unread_count == 1


async def test_echo_is_an_outbound_coexistence_message(channel, app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    await channel.deliver(raw("text"))
    await channel.deliver(raw("smb_message_echoes"))

    _, echo = await messages(settings, tenant.id)
    assert (echo.direction, echo.status, echo.source, echo.coexistence_echo) == (
        "outbound",
        "sent",
        "HUMAN_COEXISTENCE",
        True,
    )
    assert (echo.from_phone, echo.to_phone, echo.recipient_bsuid) == ("15550783881", USER_PHONE, USER_BSUID)
    (conversation,) = await conversations(settings, tenant.id)
    assert (conversation.last_message_id, conversation.unread_count) == (echo.id, 1)
    echoed = (await events(settings, tenant.id))[-1]
    assert echoed.kind == "channel.message.echoed"
    message = echoed.payload["message"]
    assert (message["to"], message["to_user_id"], message["to_parent_user_id"]) == (
        USER_PHONE,
        USER_BSUID,
        USER_PARENT_BSUID,
    )
    assert message["occurred_at"] == at(1697043223)
    assert message["service"] == {
        "message_id": echo.id,
        "direction": "outbound",
        "status": "sent",
        "origin": "HUMAN_COEXISTENCE",
        "has_media": False,
        "content": "Test message",
    }
    assert echoed.payload["is_new_conversation"] is False


async def test_a_live_message_whose_wamid_a_history_import_stored_is_a_duplicate(
    channel, app_client, tenant, settings
):
    # A live message is inserted without looking for its wamid first; the unique key catches this one
    # and the second try, looking, answers duplicate with nothing written.
    await provision_fixture_number(app_client, tenant)
    await channel.deliver(raw("history"))
    before = len(await events(settings, tenant.id))
    summary = await channel.deliver(text_payload("wamid.hist02", from_phone=USER_PHONE))
    assert (summary.duplicate, summary.applied, summary.events) == (1, 0, 0)
    stored = await messages(settings, tenant.id)
    assert sorted(m.wa_message_id for m in stored) == ["wamid.hist01", "wamid.hist02"]
    assert by_wamid(stored)["wamid.hist02"].status == "historical"
    assert len(await events(settings, tenant.id)) == before
    (conversation,) = await conversations(settings, tenant.id)
    assert conversation.unread_count == 0


async def test_history_rows_are_historical_and_do_not_open_the_window(channel, app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    await channel.deliver(raw("history"))
    await channel.deliver(raw("history_unrecoverable"))

    stored = by_wamid(await messages(settings, tenant.id))
    sent, asked, broken, photo = (stored[f"wamid.hist0{n}"] for n in (1, 2, 3, 4))
    assert (sent.direction, sent.source, sent.coexistence_echo, sent.status) == (
        "outbound",
        "HUMAN_COEXISTENCE",
        True,
        "historical",
    )
    assert (asked.direction, asked.source, asked.coexistence_echo, asked.from_phone) == (
        "inbound",
        "CHANNEL",
        False,
        USER_PHONE,
    )
    assert asked.payload["history_status"] == "delivered"
    assert (broken.message_type, broken.status, broken.error_title, broken.error_code) == (
        "errors",
        "historical",
        "history_import_error",
        "131051",
    )
    assert broken.error_message == "Message type is not supported in history sync."
    assert photo.message_type == "image" and photo.status == "historical"
    (conversation,) = await conversations(settings, tenant.id)
    assert (conversation.unread_count, conversation.last_inbound_at, conversation.last_message_id) == (
        0,
        None,
        sent.id,
    )
    assert [e.kind for e in await events(settings, tenant.id)] == ["conversation.created"]
    async with db(settings) as session:
        assert (await session.execute(select(Contact.phone))).scalars().all() == [USER_PHONE]


async def test_a_nul_in_a_customers_text_is_dropped_and_the_message_stored(
    channel, app_client, tenant, settings
):
    """PostgreSQL text and JSONB refuse U+0000: the character goes, the message stays (no endless retry)."""
    await provision_fixture_number(app_client, tenant)
    envelope = json.loads(raw("text"))
    envelope["entry"][0]["changes"][0]["value"]["messages"][0]["text"]["body"] = "Body\x00 Text"
    await channel.deliver(json.dumps(envelope).encode())

    (message,) = await messages(settings, tenant.id)
    assert message.content == "Body Text"
    assert message.payload["text"] == {"body": "Body Text"}
