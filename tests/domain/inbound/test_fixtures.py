"""Every channel fixture payload parses into the expected items."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from switchboard.domain.inbound import (
    ChannelError,
    EchoMessage,
    HistoryError,
    HistoryMedia,
    HistoryMessage,
    IdentityChange,
    InboundMessage,
    MessageEdit,
    MessageRevoke,
    PhoneNumberChange,
    SharedContactPhone,
    Skipped,
    StatusUpdate,
    TemplateUpdate,
    UsernameUpdate,
    parse_envelope,
)
from tests.fixtures.channel import (
    DISPLAY_PHONE_NUMBER,
    FIXTURE_NAMES,
    OTHER_PHONE_NUMBER_ID,
    OTHER_WABA_ID,
    PHONE_NUMBER_ID,
    USER_BSUID,
    USER_PARENT_BSUID,
    USER_PHONE,
    WABA_ID,
    raw,
)

RECEIVED_AT = datetime(2026, 1, 1, tzinfo=UTC)
NEW_BSUID = "US.99999999999999999999"
WAMID_SENT = "wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA="


def at(epoch: int) -> datetime:
    return datetime.fromtimestamp(epoch, tz=UTC)


def msg(wamid: str, epoch: int, message_type: str, **fields: Any) -> tuple[type, dict[str, Any]]:
    """An expected InboundMessage from the fixture customer (phone, contact BSUIDs) unless overridden."""
    base = {
        "wa_message_id": wamid,
        "timestamp": str(epoch),
        "occurred_at": at(epoch),
        "message_type": message_type,
        "from_phone": USER_PHONE,
        "from_wa_id": USER_PHONE,
        "contact_user_id": USER_BSUID,
        "contact_parent_user_id": USER_PARENT_BSUID,
        "profile_name": "Test Name",
        "has_media": False,
        "media_id": None,
        "reply_id": None,
        "from_user_id": None,
    }
    return InboundMessage, {**base, **fields}


def media(wamid: str, epoch: int, message_type: str, media_id: str, mime: str, content: str):
    return msg(
        wamid, epoch, message_type, has_media=True, media_id=media_id, media_mime_type=mime, content=content
    )


EXPECTED: dict[str, list[tuple[type, dict[str, Any]]]] = {
    "text": [msg("wamid.xyzxyz", 1697043223, "text", content="Body Text", type_object={"body": "Body Text"})],
    "text_bsuid": [
        msg(
            "wamid.bsuid01",
            1750030073,
            "text",
            content="Hola",
            from_user_id=USER_BSUID,
            from_parent_user_id=USER_PARENT_BSUID,
            username="pablomorales",
            profile_name="Pablo M.",
        )
    ],
    "text_username_only": [
        msg(
            "wamid.username01",
            1750030090,
            "text",
            content="Hi from a username",
            from_phone=None,
            from_wa_id=None,
            from_user_id=USER_BSUID,
            contact_parent_user_id=None,
            username="pablomorales",
            profile_name="Pablo M.",
        )
    ],
    "text_reply": [
        msg(
            "wamid.reply01",
            1697044746,
            "text",
            content="replied text",
            reply_to_wa_message_id="wamid.quoted01==",
            reply_to_from=DISPLAY_PHONE_NUMBER,
        )
    ],
    "text_forwarded": [
        msg(
            "wamid.fwd01",
            1697044750,
            "text",
            content="forwarded text",
            forwarded=True,
            reply_to_wa_message_id=None,
        )
    ],
    "text_referral": [
        msg(
            "wamid.ref01",
            1697045000,
            "text",
            content="BODY",
            referral={
                "source_url": "AD_OR_POST_FB_URL",
                "source_id": "ADID",
                "source_type": "ad",
                "headline": "AD_TITLE",
                "body": "AD_DESCRIPTION",
                "media_type": "image",
                "image_url": "RAW_IMAGE_URL",
                "video_url": "RAW_VIDEO_URL",
                "thumbnail_url": "RAW_THUMBNAIL_URL",
                "ctwa_clid": "CTWA_CLID",
            },
        )
    ],
    "text_argentina": [
        msg(
            "wamid.ar01",
            1697043300,
            "text",
            content="Hola desde Argentina",
            from_phone="541123456789",
            from_wa_id="5491123456789",
            contact_user_id=None,
            contact_parent_user_id=None,
            profile_name="Juan",
        )
    ],
    "image": [media("wamid.img01", 1697043379, "image", "65463453", "image/jpeg", "optional caption")],
    "video": [media("wamid.vid01", 1697043380, "video", "65463454", "video/mp4", "video caption")],
    "audio": [
        media("wamid.aud01", 1697043381, "audio", "1234567890987654321", "audio/ogg; codecs=opus", "[audio]")
    ],
    "document": [
        media("wamid.doc01", 1697043382, "document", "1234567890987654322", "application/pdf", "caption")
    ],
    "sticker": [
        media("wamid.stk01", 1697043383, "sticker", "1234567890987654323", "image/webp", "[sticker]")
    ],
    "location": [
        msg(
            "wamid.loc01",
            1697044557,
            "location",
            content="Facebook HQ 1 Hacker Way, Menlo Park, CA 94025 (37.4611978, -122.2164385)",
        )
    ],
    "contacts": [msg("wamid.ctc01", 1697044621, "contacts", content="Chandler Bing +1 555-555-5555")],
    "contacts_request_contact_info": [
        msg(
            "wamid.shared01",
            1750030073,
            "contacts",
            content="+1 650-555-1234",
            from_phone=None,
            from_wa_id=None,
            from_user_id=USER_BSUID,
            contact_parent_user_id=None,
            username="pablomorales",
            profile_name="Pablo M.",
        ),
        (
            SharedContactPhone,
            {
                "wa_message_id": "wamid.shared01",
                "user_id": USER_BSUID,
                "from_phone": None,
                "phone": "16505551234",
                "shared_wa_id": "16505551234",
                "shared_phone_raw": "+1 650-555-1234",
                "occurred_at": at(1750030073),
            },
        ),
    ],
    "reaction": [msg("wamid.rct01", 1697044456, "reaction", content="\U0001f62e")],
    "reaction_removed": [
        msg(
            "wamid.rct02",
            1697044460,
            "reaction",
            content=None,
            type_object={"message_id": "wamid.yzxyzx=", "emoji": ""},
        )
    ],
    "interactive_button_reply": [
        msg(
            "wamid.btn01",
            1698266730,
            "interactive",
            content="Morning",
            reply_id="slot-am",
            reply_to_wa_message_id="wamid.asked01",
            type_object={"type": "button_reply", "button_reply": {"id": "slot-am", "title": "Morning"}},
        )
    ],
    "interactive_list_reply": [
        msg("wamid.lst01", 1698266905, "interactive", content="Express", reply_id="priority_express")
    ],
    "interactive_nfm_reply": [msg("wamid.nfm01", 1698266950, "interactive", content="Sent", reply_id=None)],
    "button": [
        msg(
            "wamid.xsidjw",
            1698269027,
            "button",
            content="title",
            reply_id="callback_data",
            type_object={"payload": "callback_data", "text": "title"},
        )
    ],
    "unsupported": [
        msg(
            "wamid.uns01",
            1697044706,
            "unsupported",
            content="Message type unknown",
            type_object=None,
            error_code=131051,
            error_title="Message type unknown",
            error_message="Message type unknown",
        )
    ],
    "group_text": [
        msg(
            "wamid.group01",
            1781654400,
            "text",
            content="¿Alguien sabe si el jueves abren?",
            group_id="Y2FwaV9ncm91cDpFWEFNUExFX0dST1VQX0lE",
        )
    ],
    "interactive_error": [
        msg(
            "wamid.interr01",
            1698266730,
            "interactive",
            content="Message type unknown",
            type_object=None,
            error_code=131051,
            error_title="Message type unknown",
            error_message="Message type unknown",
        )
    ],
    "message_edited": [
        msg("wamid.edit00", 1749854500, "text", content="See you at 10"),
        (
            MessageEdit,
            {
                "wa_message_id": "wamid.edit01",
                "original_wa_message_id": "wamid.edit00",
                "target_direction": "inbound",
                "timestamp": "1749854575",
                "occurred_at": at(1749854575),
                "message_type": "text",
                "type_object": {"body": "See you at 11"},
                "content": "See you at 11",
                "has_media": False,
            },
        ),
    ],
    "message_revoked": [
        media("wamid.rvk00", 1697043100, "image", "1234567890", "image/jpeg", "wrong photo"),
        (
            MessageRevoke,
            {
                "wa_message_id": "wamid.rvk01",
                "original_wa_message_id": "wamid.rvk00",
                "target_direction": "inbound",
                "occurred_at": at(1697043223),
            },
        ),
    ],
    "smb_message_echo_edited": [
        (EchoMessage, {"wa_message_id": "wamid.echoedit00", "content": "Test message"}),
        (
            MessageEdit,
            {
                "wa_message_id": "wamid.echoedit01",
                "original_wa_message_id": "wamid.echoedit00",
                "target_direction": "outbound",
                "content": "Test message, corrected",
            },
        ),
    ],
    "history_media": [
        (
            HistoryMessage,
            {
                "wa_message_id": "wamid.histimg01",
                "direction": "inbound",
                "message_type": "image",
                "has_media": True,
                "media_id": None,
                "content": "the rash, last week",
            },
        ),
        (
            HistoryMedia,
            {
                "wa_message_id": "wamid.histimg01",
                "message_type": "image",
                "media_id": "3141592653589793",
                "media_mime_type": "image/jpeg",
                "occurred_at": at(1739321100),
            },
        ),
    ],
    "system_user_changed_number": [
        (
            PhoneNumberChange,
            {"wa_message_id": "wamid.sys01==", "previous_phone": USER_PHONE, "current_phone": "16505559876"},
        )
    ],
    "system_user_changed_user_id": [
        (
            IdentityChange,
            {
                "wa_id": USER_PHONE,
                "previous_user_id": USER_BSUID,
                "current_user_id": NEW_BSUID,
                "source": "system",
                "occurred_at": at(1753851400),
            },
        )
    ],
    "system_customer_identity_changed": [
        (
            Skipped,
            {
                "change_field": "messages",
                "what": "system message customer_identity_changed",
                "reason": "a system notice the service does not act on",
            },
        )
    ],
    "status_sent": [
        (
            StatusUpdate,
            {
                "wa_message_id": WAMID_SENT,
                "status": "sent",
                "timestamp": "1750030073",
                "occurred_at": at(1750030073),
                "recipient_id": USER_PHONE,
                "recipient_phone": USER_PHONE,
                "recipient_user_id": None,
                "conversation": {
                    "id": "72b14d6bd5407799e66f64d1b338e567",
                    "expiration_timestamp": "1750116480",
                    "origin": {"type": "marketing"},
                },
                "pricing": {
                    "billable": True,
                    "pricing_model": "PMP",
                    "type": "regular",
                    "category": "marketing",
                },
            },
        )
    ],
    "status_sent_legacy_cbp": [
        (
            StatusUpdate,
            {
                "wa_message_id": "wamid.legacy01",
                "status": "sent",
                "pricing": {"billable": True, "pricing_model": "CBP", "category": "service"},
            },
        )
    ],
    "status_delivered": [
        (
            StatusUpdate,
            {
                "wa_message_id": WAMID_SENT,
                "status": "delivered",
                "recipient_user_id": USER_BSUID,
                "recipient_parent_user_id": USER_PARENT_BSUID,
                "username": "pablomorales",
                "error_code": None,
            },
        )
    ],
    "status_read": [
        (
            StatusUpdate,
            {
                "wa_message_id": WAMID_SENT,
                "status": "read",
                "occurred_at": at(1750030080),
                "recipient_user_id": USER_BSUID,
                "recipient_parent_user_id": None,
                "username": "pablomorales",
            },
        )
    ],
    "status_failed": [
        (
            StatusUpdate,
            {
                "status": "failed",
                "recipient_phone": USER_PHONE,
                "recipient_user_id": None,
                "error_code": 131049,
                "error_title": "This message was not delivered to maintain healthy ecosystem engagement.",
                "error_message": "This message was not delivered to maintain healthy ecosystem engagement.",
                "error_details": "In order to maintain a healthy ecosystem engagement, the message failed to be delivered.",
            },
        )
    ],
    "status_failed_bsuid": [
        (
            StatusUpdate,
            {
                "wa_message_id": "wamid.bsuidfail01",
                "status": "failed",
                "recipient_id": None,
                "recipient_phone": None,
                "recipient_user_id": USER_BSUID,
                "recipient_parent_user_id": USER_PARENT_BSUID,
                "error_code": 131047,
            },
        )
    ],
    "smb_message_echoes": [
        (
            EchoMessage,
            {
                "wa_message_id": "wamid.echo01",
                "message_type": "text",
                "content": "Test message",
                "from_phone": DISPLAY_PHONE_NUMBER,
                "to_phone": USER_PHONE,
                "to_user_id": USER_BSUID,
                "to_parent_user_id": USER_PARENT_BSUID,
                "occurred_at": at(1697043223),
                "direction": "outbound",
                "coexistence_echo": True,
                "source": "HUMAN_COEXISTENCE",
                "status": "sent",
            },
        )
    ],
    "history": [
        (
            HistoryMessage,
            {
                "wa_message_id": "wamid.hist01",
                "direction": "outbound",
                "coexistence_echo": True,
                "source": "HUMAN_COEXISTENCE",
                "status": "historical",
                "history_status": "read",
                "contact_phone": USER_PHONE,
                "content": "Here's the info you requested!",
                "phase": 0,
                "chunk_order": 1,
                "progress": 55,
                "occurred_at": at(1739321024),
            },
        ),
        (
            HistoryMessage,
            {
                "wa_message_id": "wamid.hist02",
                "direction": "inbound",
                "coexistence_echo": False,
                "source": None,
                "status": "historical",
                "history_status": "delivered",
                "contact_phone": USER_PHONE,
                "thread_id": USER_PHONE,
            },
        ),
    ],
    "history_unrecoverable": [
        (
            HistoryError,
            {
                "wa_message_id": "wamid.hist03",
                "message_type": "errors",
                "status": "historical",
                "error_title": "history_import_error",
                "error_code": 131051,
                "error_message": "Message type is not supported in history sync.",
                "contact_phone": USER_PHONE,
                "occurred_at": at(1739320000),
            },
        ),
        (
            HistoryMessage,
            {
                "wa_message_id": "wamid.hist04",
                "message_type": "image",
                "has_media": True,
                "media_id": None,
                "content": "old photo",
                "direction": "outbound",
            },
        ),
    ],
    "history_declined": [
        (
            ChannelError,
            {
                "change_field": "history",
                "code": 2593109,
                "title": "History sharing declined",
                "occurred_at": RECEIVED_AT,
            },
        )
    ],
    "user_id_update": [
        (
            IdentityChange,
            {
                "wa_id": USER_PHONE,
                "phone": USER_PHONE,
                "previous_user_id": USER_BSUID,
                "current_user_id": NEW_BSUID,
                "previous_parent_user_id": USER_PARENT_BSUID,
                "current_parent_user_id": "US.ENT.22222222222222222222",
                "source": "user_id_update",
                "occurred_at": at(1750030073),
            },
        )
    ],
    "business_username_updates": [
        (
            UsernameUpdate,
            {
                "phone_number_id": None,
                "display_phone_number": DISPLAY_PHONE_NUMBER,
                "username": "luckyshrimp",
                "status": "approved",
                "occurred_at": at(1750030073),
            },
        )
    ],
    "smb_app_state_sync": [
        (
            Skipped,
            {
                "change_field": "smb_app_state_sync",
                "what": "change",
                "reason": "a field the service does not use",
            },
        )
    ],
    "message_template_status_update": [
        (
            TemplateUpdate,
            {
                "phone_number_id": None,
                "change_field": "message_template_status_update",
                "template_id": "1689556908129832",
                "name": "order_confirmation",
                "language": "en_US",
                "event": "APPROVED",
                "reason": "NONE",
                "category": "UTILITY",
                "occurred_at": at(1751247548),
            },
        )
    ],
    "batch": [
        msg(
            "wamid.batch01",
            1697043223,
            "text",
            content="first",
            contact_user_id=None,
            contact_parent_user_id=None,
        ),
        msg(
            "wamid.batch02",
            1697043224,
            "text",
            content="second",
            contact_user_id=None,
            contact_parent_user_id=None,
        ),
        (
            TemplateUpdate,
            {"phone_number_id": None, "template_id": "1", "event": "PAUSED", "name": None},
        ),
        (StatusUpdate, {"wa_message_id": "wamid.out01", "status": "delivered"}),
        (StatusUpdate, {"wa_message_id": "wamid.out01", "status": "read"}),
        msg(
            "wamid.batch03",
            1697043250,
            "text",
            content="third",
            from_phone="447700900123",
            from_wa_id="447700900123",
            contact_user_id=None,
            contact_parent_user_id=None,
            profile_name="Other",
            phone_number_id=OTHER_PHONE_NUMBER_ID,
            waba_id=OTHER_WABA_ID,
        ),
    ],
}


def test_every_fixture_has_expectations() -> None:
    assert sorted(EXPECTED) == FIXTURE_NAMES


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_parses_into_expected_items(name: str) -> None:
    items = parse_envelope(raw(name), received_at=RECEIVED_AT)
    expected = EXPECTED[name]
    assert [type(item) for item in items] == [cls for cls, _ in expected]
    for item, (_, fields) in zip(items, expected, strict=True):
        identity = {"waba_id": WABA_ID, "phone_number_id": PHONE_NUMBER_ID}
        if isinstance(item, UsernameUpdate | TemplateUpdate):
            identity = {"waba_id": WABA_ID}
        for key, value in {**identity, **fields}.items():
            assert getattr(item, key) == value, f"{name}: {key}"
