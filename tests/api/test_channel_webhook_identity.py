"""Identity items: shared phones backfill only where empty, BSUID rotations apply once, number changes."""

from __future__ import annotations

import json

from switchboard.models.tenancy import PhoneNumber
from tests.fixtures.channel import PHONE_NUMBER_ID, USER_BSUID, USER_PHONE, WABA_ID, load, raw
from tests.support.inbound import (
    channel_fixture,  # noqa: F401 - the channel fixture
    contacts,
    conversations,
    db,
    events,
    of_kind,
    post_webhook,
    provision_fixture_number,
)

NEW_BSUID = "US.99999999999999999999"
NEW_PARENT = "US.ENT.22222222222222222222"


def shared_phone_payload(phone: str) -> bytes:
    """The request_contact_info answer, sharing ``phone``."""
    payload = load("contacts_request_contact_info")
    card = payload["entry"][0]["changes"][0]["value"]["messages"][0]["contacts"][0]
    card["phones"] = [{"phone": f"+{phone}", "wa_id": phone, "type": "CELL"}]
    return json.dumps(payload).encode()


async def test_shared_phone_fills_an_empty_contact_phone(channel, app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    await channel.deliver(raw("text_username_only"))
    (conversation,) = await conversations(settings, tenant.id)
    assert conversation.contact_phone is None

    await channel.deliver(raw("contacts_request_contact_info"))

    (contact,) = await contacts(settings, tenant.id)
    (conversation,) = await conversations(settings, tenant.id)
    assert (contact.phone, contact.bsuid, conversation.contact_phone) == (USER_PHONE, USER_BSUID, USER_PHONE)
    (event,) = of_kind(await events(settings, tenant.id), "channel.contact.phone_received")
    assert event.payload == {
        "object": "service_events",
        "event": "channel.contact.phone_received",
        "occurred_at": "2025-06-15T23:27:53.000Z",
        "tenant_id": tenant.id,
        "phone_number_id": PHONE_NUMBER_ID,
        "waba_id": WABA_ID,
        "contact": {
            "business_scoped_user_id": USER_BSUID,
            "phone": {"previous": None, "current": USER_PHONE},
        },
    }


async def test_shared_phone_never_overwrites_a_known_phone(channel, app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    await channel.deliver(raw("text_bsuid"))
    await channel.deliver(shared_phone_payload("16505550000"))

    (contact,) = await contacts(settings, tenant.id)
    (conversation,) = await conversations(settings, tenant.id)
    assert (contact.phone, conversation.contact_phone) == (USER_PHONE, USER_PHONE)
    (event,) = of_kind(await events(settings, tenant.id), "channel.contact.phone_received")
    assert event.payload["contact"]["phone"] == {"previous": USER_PHONE, "current": "16505550000"}


async def test_bsuid_rotation_applies_once_whichever_signal_comes(channel, app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    await channel.deliver(raw("text"))
    await channel.deliver(raw("user_id_update"))

    (contact,) = await contacts(settings, tenant.id)
    (conversation,) = await conversations(settings, tenant.id)
    assert (contact.bsuid, contact.parent_bsuid, conversation.contact_bsuid) == (
        NEW_BSUID,
        NEW_PARENT,
        NEW_BSUID,
    )
    (event,) = of_kind(await events(settings, tenant.id), "channel.contact.identity_changed")
    assert event.payload == {
        "object": "service_events",
        "event": "channel.contact.identity_changed",
        "occurred_at": "2025-06-15T23:27:53.000Z",
        "tenant_id": tenant.id,
        "phone_number_id": PHONE_NUMBER_ID,
        "waba_id": WABA_ID,
        "contact": {
            "wa_id": USER_PHONE,
            "business_scoped_user_id": {"previous": USER_BSUID, "current": NEW_BSUID},
            "parent_business_scoped_user_id": {
                "previous": "US.ENT.11815799212886844830",
                "current": NEW_PARENT,
            },
        },
    }

    summary = await channel.deliver(raw("system_user_changed_user_id"))
    assert summary.duplicate == 1
    assert (await post_webhook(app_client, raw("user_id_update"))).json()["duplicate"] is True
    assert len(of_kind(await events(settings, tenant.id), "channel.contact.identity_changed")) == 1
    (contact,) = await contacts(settings, tenant.id)
    assert contact.bsuid == NEW_BSUID


async def test_messages_after_a_rotation_stay_on_the_same_contact(channel, app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    await channel.deliver(raw("text"))
    await channel.deliver(raw("user_id_update"))
    rotated = json.loads(raw("text_bsuid"))
    message = rotated["entry"][0]["changes"][0]["value"]["messages"][0]
    message["from_user_id"] = NEW_BSUID
    rotated["entry"][0]["changes"][0]["value"]["contacts"][0]["user_id"] = NEW_BSUID
    await channel.deliver(json.dumps(rotated).encode())
    assert len(await contacts(settings, tenant.id)) == 1
    assert len(await conversations(settings, tenant.id)) == 1


async def test_user_changed_number_moves_the_contact(channel, app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    await channel.deliver(raw("text"))
    await channel.deliver(raw("system_user_changed_number"))
    (contact,) = await contacts(settings, tenant.id)
    (conversation,) = await conversations(settings, tenant.id)
    assert (contact.phone, conversation.contact_phone) == ("16505559876", "16505559876")
    assert [e.kind for e in await events(settings, tenant.id)].count("channel.contact.identity_changed") == 0


async def test_business_username_decision_is_recorded(channel, app_client, tenant, settings):
    phone = await provision_fixture_number(app_client, tenant)
    await channel.deliver(raw("business_username_updates"))
    async with db(settings) as session:
        record = await session.get(PhoneNumber, phone["id"])
    assert (record.username, record.username_status) == ("luckyshrimp", "approved")
