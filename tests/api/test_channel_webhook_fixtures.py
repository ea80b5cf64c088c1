"""Every channel fixture payload, posted signed to /channel/webhook and applied by the real worker."""

from __future__ import annotations

import pytest

from switchboard.models.events import RawInbound
from tests.fixtures.channel import FIXTURE_NAMES, raw
from tests.support.inbound import (
    add_outbound,
    channel_fixture,  # noqa: F401 - the channel fixture
    events,
    messages,
    provision_fixture_number,
    rows,
)

WAMID_SENT = "wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA="
WAMID_FAILED = "wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI0QUQ2MjA4NEYyRkExNjMyREUA"
RECEIVED = ["conversation.created", "channel.message.received"]


def received(message_type: str) -> tuple[list[str], list[tuple[str, str, str]]]:
    return RECEIVED, [("inbound", message_type, "received")]


# Outbound messages the send path would have stored before these statuses arrive.
OUTBOUND_BEFORE = {
    "status_sent": [WAMID_SENT],
    "status_delivered": [WAMID_SENT],
    "status_read": [WAMID_SENT],
    "status_failed": [WAMID_FAILED],
    "status_failed_bsuid": ["wamid.bsuidfail01"],
    "status_sent_legacy_cbp": ["wamid.legacy01"],
    "batch": ["wamid.out01"],
}

# fixture -> (event kinds in order, inbound-written message rows as (direction, type, status))
EXPECTED: dict[str, tuple[list[str], list[tuple[str, str, str]]]] = {
    "audio": received("audio"),
    "batch": (
        [*RECEIVED, "channel.message.received", "channel.message.delivered", "channel.message.read"],
        [("inbound", "text", "received"), ("inbound", "text", "received")],
    ),
    "business_username_updates": ([], []),
    "button": received("button"),
    "contacts": received("contacts"),
    "contacts_request_contact_info": (
        [*RECEIVED, "channel.contact.phone_received"],
        [("inbound", "contacts", "received")],
    ),
    "document": received("document"),
    "history": (
        ["conversation.created"],
        [("outbound", "text", "historical"), ("inbound", "text", "historical")],
    ),
    "history_declined": ([], []),
    "history_unrecoverable": (
        ["conversation.created"],
        [("inbound", "errors", "historical"), ("outbound", "image", "historical")],
    ),
    "image": received("image"),
    "interactive_button_reply": received("interactive"),
    "interactive_list_reply": received("interactive"),
    "interactive_nfm_reply": received("interactive"),
    "interactive_error": received("interactive"),
    "group_text": received("text"),
    "history_media": (["conversation.created"], [("inbound", "image", "historical")]),
    "message_edited": ([*RECEIVED, "channel.message.edited"], [("inbound", "text", "received")]),
    "message_revoked": ([*RECEIVED, "channel.message.revoked"], [("inbound", "image", "received")]),
    "smb_message_echo_edited": (
        ["conversation.created", "channel.message.echoed", "channel.message.edited"],
        [("outbound", "text", "sent")],
    ),
    "location": received("location"),
    "message_template_status_update": ([], []),
    "reaction": received("reaction"),
    "reaction_removed": received("reaction"),
    "smb_app_state_sync": ([], []),
    "smb_message_echoes": (
        ["conversation.created", "channel.message.echoed"],
        [("outbound", "text", "sent")],
    ),
    "status_delivered": (["channel.message.delivered"], []),
    "status_failed": (["channel.message.failed"], []),
    "status_failed_bsuid": (["channel.message.failed"], []),
    "status_read": (["channel.message.read"], []),
    "status_sent": ([], []),
    "status_sent_legacy_cbp": ([], []),
    "sticker": received("sticker"),
    "system_customer_identity_changed": ([], []),
    "system_user_changed_number": ([], []),
    "system_user_changed_user_id": (["channel.contact.identity_changed"], []),
    "text": received("text"),
    "text_argentina": received("text"),
    "text_bsuid": received("text"),
    "text_forwarded": received("text"),
    "text_referral": received("text"),
    "text_reply": received("text"),
    "text_username_only": received("text"),
    "unsupported": received("unsupported"),
    "user_id_update": (["channel.contact.identity_changed"], []),
    "video": received("video"),
}


def test_every_fixture_has_an_expectation():
    assert sorted(EXPECTED) == FIXTURE_NAMES


@pytest.mark.parametrize("name", FIXTURE_NAMES)
async def test_fixture_is_stored_and_raises_its_events(name, channel, app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    preexisting = [await add_outbound(settings, tenant, wamid) for wamid in OUTBOUND_BEFORE.get(name, [])]
    body = raw(name)

    summary = await channel.deliver(body)

    kinds, written = EXPECTED[name]
    recorded = await events(settings, tenant.id)
    # Events of one transaction share a millisecond, and ids order only to the millisecond.
    assert sorted(e.kind for e in recorded) == sorted(kinds)
    for event in recorded:
        assert event.payload["event"] == event.kind
        assert event.payload["tenant_id"] == tenant.id
        assert "delivery_id" not in event.payload
    ours = {m.id for m in preexisting}
    stored = [m for m in await messages(settings, tenant.id) if m.id not in ours]
    assert sorted((m.direction, m.message_type, m.status) for m in stored) == sorted(written)
    assert summary.dropped == 0 and summary.deferred == []
    (envelope,) = await rows(settings, RawInbound)
    assert envelope.body == body.decode() and envelope.processed_at is not None
