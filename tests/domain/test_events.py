"""Tenant event envelopes (exact dicts), kinds and groups, and subscription matching."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from switchboard.domain.errors import ValidationFailed
from switchboard.domain.events import (
    ALL_EVENT_KINDS,
    EVENT_GROUPS,
    ConversationFacts,
    MessageFacts,
    conversation_created_event,
    expand_groups,
    identity_changed_event,
    iso_utc,
    matches,
    message_event,
    phone_received_event,
    webhook_test_event,
)

SENT_AT = datetime(2023, 10, 11, 16, 53, 43, tzinfo=UTC)
EVENT_AT = datetime(2023, 10, 11, 16, 54, 0, 250000, tzinfo=UTC)
COMMON = {
    "object": "service_events",
    "delivery_id": "dlv_1",
    "occurred_at": "2023-10-11T16:54:00.250Z",
    "tenant_id": "ten_1",
}

INBOUND = MessageFacts(
    id="msg_1",
    wa_message_id="wamid.in1",
    phone_number_id="106540352242922",
    direction="inbound",
    message_type="text",
    status="received",
    origin="CUSTOMER",
    occurred_at=SENT_AT,
    from_phone="16505551234",
    type_object={"body": "Hola"},
    content="Hola",
)
OUTBOUND = MessageFacts(
    id="msg_2",
    wa_message_id="wamid.out1",
    phone_number_id="106540352242922",
    direction="outbound",
    message_type="text",
    status="delivered",
    origin="API",
    occurred_at=SENT_AT,
    from_phone="15550783881",
    to_phone="16505551234",
    type_object={"body": "Hi"},
    content="Hi",
)
CONVERSATION = ConversationFacts(id="conv_1", status="active", contact_phone="16505551234")


def test_iso_utc_has_milliseconds_and_z() -> None:
    assert iso_utc(EVENT_AT) == "2023-10-11T16:54:00.250Z"
    with pytest.raises(ValueError):
        iso_utc(datetime(2023, 1, 1))


def test_received_event_exact() -> None:
    event = message_event(
        "channel.message.received",
        INBOUND,
        tenant_id="ten_1",
        delivery_id="dlv_1",
        occurred_at=EVENT_AT,
        conversation=CONVERSATION,
        is_new_conversation=True,
    )
    assert event == {
        **COMMON,
        "event": "channel.message.received",
        "phone_number_id": "106540352242922",
        "message": {
            "id": "wamid.in1",
            "timestamp": "1697043223",
            "type": "text",
            "from": "16505551234",
            "occurred_at": "2023-10-11T16:53:43.000Z",
            "text": {"body": "Hola"},
            "service": {
                "message_id": "msg_1",
                "direction": "inbound",
                "status": "received",
                "origin": "CUSTOMER",
                "has_media": False,
                "content": "Hola",
            },
        },
        "conversation": {"id": "conv_1", "status": "active", "contact_phone": "16505551234"},
        "is_new_conversation": True,
    }


def test_received_event_with_bsuid_button_and_reply_context() -> None:
    facts = replace(
        INBOUND,
        message_type="interactive",
        from_phone=None,
        from_user_id="US.1",
        from_parent_user_id="US.ENT.2",
        type_object={"type": "list_reply", "list_reply": {"id": "row-1", "title": "Express"}},
        content="Express",
        reply_to_wa_message_id="wamid.asked",
    )
    conversation = ConversationFacts(
        id="conv_2",
        status="active",
        business_scoped_user_id="US.1",
        parent_business_scoped_user_id="US.ENT.2",
        username="pablomorales",
    )
    event = message_event(
        "channel.message.received",
        facts,
        tenant_id="ten_1",
        delivery_id="dlv_1",
        occurred_at=EVENT_AT,
        conversation=conversation,
    )
    assert event["message"] == {
        "id": "wamid.in1",
        "timestamp": "1697043223",
        "type": "interactive",
        "occurred_at": "2023-10-11T16:53:43.000Z",
        "from_user_id": "US.1",
        "from_parent_user_id": "US.ENT.2",
        "interactive": {"type": "list_reply", "list_reply": {"id": "row-1", "title": "Express"}},
        "context": {"id": "wamid.asked"},
        "service": {
            "message_id": "msg_1",
            "direction": "inbound",
            "status": "received",
            "origin": "CUSTOMER",
            "has_media": False,
            "content": "Express",
        },
    }
    assert event["conversation"] == {
        "id": "conv_2",
        "status": "active",
        "business_scoped_user_id": "US.1",
        "parent_business_scoped_user_id": "US.ENT.2",
        "username": "pablomorales",
    }
    assert event["is_new_conversation"] is False


def test_received_event_never_carries_recipient_fields() -> None:
    facts = replace(INBOUND, recipient_user_id="US.9", to_user_id="US.8")
    message = message_event(
        "channel.message.received", facts, tenant_id="t", delivery_id="d", occurred_at=EVENT_AT
    )["message"]
    assert "recipient_user_id" not in message and "to_user_id" not in message


@pytest.mark.parametrize("kind", ["sent", "delivered", "read"])
def test_status_events_exact(kind: str) -> None:
    facts = replace(OUTBOUND, status=kind, recipient_user_id="US.1", recipient_parent_user_id="US.ENT.2")
    event = message_event(
        f"channel.message.{kind}", facts, tenant_id="ten_1", delivery_id="dlv_1", occurred_at=EVENT_AT
    )
    assert event == {
        **COMMON,
        "event": f"channel.message.{kind}",
        "phone_number_id": "106540352242922",
        "message": {
            "id": "wamid.out1",
            "timestamp": "1697043223",
            "type": "text",
            "from": "15550783881",
            "occurred_at": "2023-10-11T16:53:43.000Z",
            "recipient_id": "16505551234",
            "recipient_user_id": "US.1",
            "recipient_parent_user_id": "US.ENT.2",
            "text": {"body": "Hi"},
            "service": {
                "message_id": "msg_2",
                "direction": "outbound",
                "status": kind,
                "origin": "API",
                "has_media": False,
                "content": "Hi",
            },
        },
    }


def test_failed_event_for_a_bsuid_send_carries_recipient_user_id_and_errors() -> None:
    facts = replace(
        OUTBOUND,
        status="failed",
        to_phone=None,
        recipient_user_id="US.1",
        error_code=131047,
        error_title="Re-engagement message",
        error_message="More than 24 hours have passed",
    )
    message = message_event(
        "channel.message.failed", facts, tenant_id="ten_1", delivery_id="dlv_1", occurred_at=EVENT_AT
    )["message"]
    assert "recipient_id" not in message
    assert message["recipient_user_id"] == "US.1"
    assert "recipient_parent_user_id" not in message
    assert message["errors"] == [
        {"code": 131047, "title": "Re-engagement message", "message": "More than 24 hours have passed"}
    ]
    assert message["service"]["status"] == "failed"


@pytest.mark.parametrize(
    ("kind", "shown"),
    [("channel.message.failed", True), ("channel.message.delivered", False), ("channel.message.sent", False)],
)
def test_spec_error_code_rides_in_the_service_object_of_failed_events_only(kind: str, shown: bool) -> None:
    facts = replace(
        OUTBOUND,
        status=kind.rsplit(".", 1)[1],
        error_code=131047,
        error_title="More than 24 h since the recipient last replied; send a template",
        error_message="More than 24 h since the recipient last replied; send a template",
        code="OUTSIDE_CONVERSATION_WINDOW",
    )
    message = message_event(kind, facts, tenant_id="ten_1", delivery_id="dlv_1", occurred_at=EVENT_AT)[
        "message"
    ]
    assert message["service"].get("error_code") == ("OUTSIDE_CONVERSATION_WINDOW" if shown else None)
    assert ("errors" in message) is shown
    if shown:
        assert message["errors"][0]["code"] == 131047


def test_echoed_event_exact() -> None:
    facts = replace(
        OUTBOUND,
        id="msg_3",
        wa_message_id="wamid.echo1",
        status="sent",
        origin="HUMAN_COEXISTENCE",
        to_user_id="US.1",
        type_object={"body": "Test message"},
        content="Test message",
    )
    event = message_event(
        "channel.message.echoed",
        facts,
        tenant_id="ten_1",
        delivery_id="dlv_1",
        occurred_at=EVENT_AT,
        conversation=CONVERSATION,
    )
    assert event == {
        **COMMON,
        "event": "channel.message.echoed",
        "phone_number_id": "106540352242922",
        "message": {
            "id": "wamid.echo1",
            "timestamp": "1697043223",
            "type": "text",
            "from": "15550783881",
            "occurred_at": "2023-10-11T16:53:43.000Z",
            "to": "16505551234",
            "to_user_id": "US.1",
            "text": {"body": "Test message"},
            "service": {
                "message_id": "msg_3",
                "direction": "outbound",
                "status": "sent",
                "origin": "HUMAN_COEXISTENCE",
                "has_media": False,
                "content": "Test message",
            },
        },
        "conversation": {"id": "conv_1", "status": "active", "contact_phone": "16505551234"},
        "is_new_conversation": False,
    }


def test_media_message_has_media_flag_and_type_object() -> None:
    facts = replace(
        INBOUND,
        message_type="image",
        type_object={"id": "654", "mime_type": "image/jpeg"},
        has_media=True,
        content="[image]",
    )
    message = message_event(
        "channel.message.received", facts, tenant_id="t", delivery_id="d", occurred_at=EVENT_AT
    )["message"]
    assert message["image"] == {"id": "654", "mime_type": "image/jpeg"}
    assert message["service"]["has_media"] is True


@pytest.mark.parametrize(
    "kind", ["conversation.created", "webhook.test", "channel.contact.phone_received", "nope"]
)
def test_message_event_refuses_other_kinds(kind: str) -> None:
    with pytest.raises(ValueError):
        message_event(kind, INBOUND, tenant_id="t", delivery_id="d", occurred_at=EVENT_AT)


def test_conversation_created_exact() -> None:
    conversation = ConversationFacts(id="conv_9", status="active", business_scoped_user_id="US.1")
    event = conversation_created_event(
        conversation,
        tenant_id="ten_1",
        phone_number_id="106540352242922",
        delivery_id="dlv_1",
        occurred_at=EVENT_AT,
    )
    assert event == {
        **COMMON,
        "event": "conversation.created",
        "phone_number_id": "106540352242922",
        "conversation": {"id": "conv_9", "status": "active", "business_scoped_user_id": "US.1"},
        "is_new_conversation": True,
    }


@pytest.mark.parametrize(("previous", "phone_number_id"), [(None, "106540352242922"), ("16505550000", None)])
def test_phone_received_exact(previous: str | None, phone_number_id: str | None) -> None:
    event = phone_received_event(
        tenant_id="ten_1",
        waba_id="102290129340398",
        phone_number_id=phone_number_id,
        business_scoped_user_id="US.1",
        previous_phone=previous,
        current_phone="16505551234",
        delivery_id="dlv_1",
        occurred_at=EVENT_AT,
    )
    expected = {
        **COMMON,
        "event": "channel.contact.phone_received",
        "waba_id": "102290129340398",
        "contact": {
            "business_scoped_user_id": "US.1",
            "phone": {"previous": previous, "current": "16505551234"},
        },
    }
    if phone_number_id:
        expected["phone_number_id"] = phone_number_id
    assert event == expected


def test_identity_changed_exact() -> None:
    event = identity_changed_event(
        tenant_id="ten_1",
        waba_id="102290129340398",
        phone_number_id="106540352242922",
        wa_id="16505551234",
        previous_user_id="US.1",
        current_user_id="US.9",
        previous_parent_user_id=None,
        current_parent_user_id=None,
        delivery_id="dlv_1",
        occurred_at=EVENT_AT,
    )
    assert event == {
        **COMMON,
        "event": "channel.contact.identity_changed",
        "phone_number_id": "106540352242922",
        "waba_id": "102290129340398",
        "contact": {
            "wa_id": "16505551234",
            "business_scoped_user_id": {"previous": "US.1", "current": "US.9"},
            "parent_business_scoped_user_id": {"previous": None, "current": None},
        },
    }


def test_webhook_test_exact() -> None:
    event = webhook_test_event(
        tenant_id="ten_1", webhook_id="wh_1", phone_number_id=None, delivery_id="dlv_1", occurred_at=EVENT_AT
    )
    assert event == {**COMMON, "event": "webhook.test", "webhook_id": "wh_1", "test": True}


def test_kinds_and_groups() -> None:
    assert ALL_EVENT_KINDS == (
        "channel.message.received",
        "channel.message.echoed",
        "channel.message.edited",
        "channel.message.revoked",
        "channel.message.sent",
        "channel.message.delivered",
        "channel.message.read",
        "channel.message.failed",
        "channel.contact.phone_received",
        "channel.contact.identity_changed",
        "conversation.created",
        "agent.thread.muted",
        "agent.thread.unmuted",
        "agent.thread.reactivated",
        "agent.thread.messages_reset",
        "agent.thread.messages_auto_reset",
        "agent.thread.messages_inactivity_reset",
        "webhook.test",
    )
    assert list(EVENT_GROUPS) == ["Messages", "Statuses", "Contacts", "Conversations", "Agents", "Test"]
    assert len(set(ALL_EVENT_KINDS)) == len(ALL_EVENT_KINDS)


@pytest.mark.parametrize(
    ("selection", "expected"),
    [
        (["Contacts"], ["channel.contact.phone_received", "channel.contact.identity_changed"]),
        (
            ["conversation.created", "Statuses"],
            [
                "channel.message.sent",
                "channel.message.delivered",
                "channel.message.read",
                "channel.message.failed",
                "conversation.created",
            ],
        ),
        (["channel.message.read", "channel.message.read"], ["channel.message.read"]),
        ([], []),
    ],
)
def test_expand_groups(selection: list[str], expected: list[str]) -> None:
    assert expand_groups(selection) == expected


def test_expand_groups_refuses_unknown_names() -> None:
    with pytest.raises(ValidationFailed) as caught:
        expand_groups(["Messages", "message.new"])
    assert caught.value.details["value"] == ["message.new"]


PN_A, PN_B = "111", "222"


@pytest.mark.parametrize(
    ("events", "phone_filter", "kind", "event_phone", "expected"),
    [
        (None, None, "channel.message.received", PN_A, True),
        ([], None, "channel.message.read", PN_A, True),
        (["channel.message.received"], None, "channel.message.received", PN_A, True),
        (["channel.message.received"], None, "channel.message.read", PN_A, False),
        (None, PN_A, "channel.message.received", PN_A, True),
        (None, PN_A, "channel.message.received", PN_B, False),
        (None, PN_A, "conversation.created", PN_A, True),
        (None, PN_A, "conversation.created", PN_B, False),
        (["conversation.created"], PN_A, "conversation.created", PN_A, True),
        (["channel.message.received"], PN_A, "conversation.created", PN_A, False),
        (None, PN_A, "channel.contact.identity_changed", None, True),
        (None, PN_A, "channel.contact.identity_changed", PN_B, False),
        (["channel.message.received"], PN_B, "webhook.test", PN_A, True),
    ],
)
def test_matches(events, phone_filter, kind, event_phone, expected) -> None:
    assert matches(events, phone_filter, kind, event_phone) is expected
