"""Edits and deletions applied to a stored message's payload (pure: domain/inbound/edits.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from switchboard.domain.inbound import MessageEdit, MessageRevoke, Skipped
from switchboard.domain.inbound.content import content_summary
from switchboard.domain.inbound.edits import apply_edit, apply_revoke, change_fields, parse_change
from switchboard.domain.inbound.unread import counts_unread

T0 = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
BASE = {"phone_number_id": "pn", "occurred_at": T0}


def edit(body: str, epoch: int, wamid: str = "wamid.e") -> MessageEdit:
    change = parse_change(
        {
            "id": wamid,
            "timestamp": str(epoch),
            "type": "edit",
            "edit": {"original_message_id": "wamid.o", "message": {"type": "text", "text": {"body": body}}},
        },
        base=BASE,
        field="messages",
        target_direction="inbound",
    )
    assert isinstance(change, MessageEdit)
    return change


STORED = {"type": "text", "text": {"body": "v1"}, "context": {"id": "wamid.q"}, "reply_id": None}


def test_an_edit_shows_the_new_text_and_keeps_the_old_one_with_its_time():
    first = apply_edit(
        STORED, message_type="text", content="v1", has_media=False, edit=edit("v2", 1_780_000_000)
    )
    assert (first.content, first.current) == ("v2", True)
    assert first.payload["text"] == {"body": "v2"} and first.payload["context"] == {"id": "wamid.q"}
    second = apply_edit(
        first.payload, message_type="text", content="v2", has_media=False, edit=edit("v3", 1_780_000_060)
    )
    assert second.content == "v3"
    assert [(v["content"], v["since"]) for v in second.payload["edits"]] == [
        ("v1", None),
        ("v2", "2026-05-28T20:26:40.000Z"),
    ]
    assert change_fields(second.payload) == {
        "edited_at": "2026-05-28T20:27:40.000Z",
        "revoked_at": None,
        "edits": second.payload["edits"],
    }


def test_an_edit_older_than_the_one_showing_only_joins_the_history():
    latest = apply_edit(
        STORED, message_type="text", content="v1", has_media=False, edit=edit("v3", 1_780_000_060)
    )
    late = apply_edit(
        latest.payload, message_type="text", content="v3", has_media=False, edit=edit("v2", 1_780_000_000)
    )
    assert (late.current, late.content, late.payload["text"]) == (False, "v3", {"body": "v3"})
    assert [v["content"] for v in late.payload["edits"]] == ["v1", "v2"]
    assert late.payload["edited_at"] == latest.payload["edited_at"]


def test_a_revoke_removes_the_content_and_every_earlier_version():
    edited = apply_edit(
        {"type": "image", "image": {"id": "m1", "caption": "c"}, "media_id": "m1"},
        message_type="image",
        content="c",
        has_media=True,
        edit=edit("x", 1_780_000_000),
    )
    revoke = MessageRevoke(
        **BASE, wa_message_id="wamid.r", original_wa_message_id="wamid.o", timestamp="1780000100"
    )
    gone = apply_revoke(edited.payload, message_type="text", revoke=revoke)
    assert (gone.content, gone.has_media) == (None, False)
    assert "text" not in gone.payload and "edits" not in gone.payload and "media_id" not in gone.payload
    assert change_fields(gone.payload)["revoked_at"] == "2026-06-01T12:00:00.000Z"


def test_a_change_without_ids_is_skipped_with_the_reason():
    skipped = parse_change(
        {"id": "wamid.r", "type": "revoke", "revoke": {}},
        base=BASE,
        field="messages",
        target_direction="inbound",
    )
    assert isinstance(skipped, Skipped)
    assert skipped.reason == "no id or original_message_id to apply it to"


def test_only_reactions_are_not_unread():
    assert not counts_unread("reaction")
    assert all(counts_unread(t) for t in ("text", "image", "interactive", "unsupported", "location"))


def test_a_message_with_errors_reads_as_its_error_whatever_its_type():
    errors = [{"code": 131051, "title": "Message type unknown"}]
    assert content_summary("interactive", None, errors=errors) == "Message type unknown"
    assert content_summary("unsupported", None, errors=errors) == "Message type unknown"
    assert content_summary("text", {"body": "hi"}, errors=errors) == "hi"
