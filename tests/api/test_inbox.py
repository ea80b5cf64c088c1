"""The embedded inbox's read side: list, messages, archive, hidden numbers and tenant isolation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from switchboard.domain.events import iso_utc
from tests.fixtures.channel import PHONE_NUMBER_ID, USER_BSUID, USER_PHONE, raw
from tests.support.inbound import (
    channel_fixture,  # noqa: F401 - the channel fixture
    conversations,
    provision_fixture_number,
    text_payload,
)

HIDDEN_NUMBER_ID = "106540352242999"


async def inbox(app_client, tenant, **params):
    response = await app_client.get("/v1/inbox-embed/conversations", params=params, headers=tenant.headers())
    assert response.status_code == 200, response.text
    return response.json()


async def test_conversation_list_fields(channel, app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    recent = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)
    await channel.deliver(raw("text_bsuid"))
    await channel.deliver(text_payload("wamid.recent", body="still there?", at=recent, user_id=USER_BSUID))

    body = await inbox(app_client, tenant)
    assert (body["page"], body["per_page"], body["total"], body["has_more"]) == (1, 20, 1, False)
    (item,) = body["data"]
    (conversation,) = await conversations(settings, tenant.id)
    assert item["id"] == conversation.id
    assert (item["status"], item["phone_number_id"], item["contact_phone"]) == (
        "active",
        PHONE_NUMBER_ID,
        USER_PHONE,
    )
    assert (item["contactUsername"], item["contactBsuid"]) == ("pablomorales", USER_BSUID)
    assert item["unread_count"] == 2
    assert item["last_message"]["id"] == conversation.last_message_id
    assert (item["last_message"]["content"], item["last_message"]["direction"]) == ("still there?", "inbound")
    assert item["last_message"]["occurred_at"] == iso_utc(recent)
    assert item["last_inbound_at"] == iso_utc(recent)
    assert item["window_expires_at"] == iso_utc(recent + timedelta(hours=24))
    assert item["window_open"] is True


async def test_username_and_bsuid_are_null_when_unknown_and_old_window_is_closed(
    channel, app_client, tenant, settings
):
    await provision_fixture_number(app_client, tenant)
    await channel.deliver(raw("text_argentina"))
    (item,) = (await inbox(app_client, tenant))["data"]
    assert (item["contactUsername"], item["contactBsuid"]) == (None, None)
    assert item["window_open"] is False
    assert item["window_expires_at"] == "2023-10-12T16:55:00.000Z"


async def test_filters_status_and_phone_number(channel, app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    await channel.deliver(raw("text"))
    await channel.deliver(text_payload("wamid.other", from_phone="447700900123"))
    first, second = await conversations(settings, tenant.id)
    archived = await app_client.post(
        f"/v1/inbox-embed/conversations/{first.id}/archive", headers=tenant.headers()
    )
    assert archived.status_code == 200 and archived.json()["status"] == "archived"

    assert [c["id"] for c in (await inbox(app_client, tenant, status="archived"))["data"]] == [first.id]
    assert [c["id"] for c in (await inbox(app_client, tenant, status="active"))["data"]] == [second.id]
    assert (await inbox(app_client, tenant, phone_number_id=PHONE_NUMBER_ID))["total"] == 2
    assert (await inbox(app_client, tenant, phone_number_id="123"))["total"] == 0
    assert (await inbox(app_client, tenant, per_page=1))["has_more"] is True
    bad = await app_client.get(
        "/v1/inbox-embed/conversations", params={"status": "resolved"}, headers=tenant.headers()
    )
    assert bad.status_code == 400 and bad.json()["details"]["field"] == "status"


async def test_conversation_messages_newest_first(channel, app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    for name in ("text", "image", "smb_message_echoes"):
        await channel.deliver(raw(name))
    (conversation,) = await conversations(settings, tenant.id)
    response = await app_client.get(
        f"/v1/inbox-embed/conversations/{conversation.id}/messages", headers=tenant.headers()
    )
    assert response.status_code == 200
    body = response.json()
    assert body["total"] == 3 and body["has_more"] is False
    # Newest first; the echo and the text share a timestamp, so the later-stored row comes first.
    assert [m["wa_message_id"] for m in body["data"]] == ["wamid.img01", "wamid.echo01", "wamid.xyzxyz"]
    image = next(m for m in body["data"] if m["wa_message_id"] == "wamid.img01")
    assert (image["direction"], image["status"], image["has_media"], image["source"]) == (
        "inbound",
        "received",
        True,
        "CHANNEL",
    )
    echo = next(m for m in body["data"] if m["wa_message_id"] == "wamid.echo01")
    assert (echo["direction"], echo["coexistence_echo"], echo["source"]) == (
        "outbound",
        True,
        "HUMAN_COEXISTENCE",
    )


async def test_hidden_numbers_are_left_out(channel, app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    await provision_fixture_number(
        app_client, tenant, phone_number_id=HIDDEN_NUMBER_ID, display="15550789999", hidden_from_inbox=True
    )
    await channel.deliver(raw("text"))
    await channel.deliver(text_payload("wamid.hidden", phone_number_id=HIDDEN_NUMBER_ID))
    stored = {c.phone_number_id: c for c in await conversations(settings, tenant.id)}
    assert set(stored) == {PHONE_NUMBER_ID, HIDDEN_NUMBER_ID}

    listed = await inbox(app_client, tenant)
    assert [c["id"] for c in listed["data"]] == [stored[PHONE_NUMBER_ID].id]
    assert (await inbox(app_client, tenant, phone_number_id=HIDDEN_NUMBER_ID))["total"] == 0
    hidden = stored[HIDDEN_NUMBER_ID].id
    for method, path in (
        ("GET", f"/v1/inbox-embed/conversations/{hidden}"),
        ("GET", f"/v1/inbox-embed/conversations/{hidden}/messages"),
        ("POST", f"/v1/inbox-embed/conversations/{hidden}/archive"),
    ):
        response = await app_client.request(method, path, headers=tenant.headers())
        assert response.status_code == 404


@pytest.mark.parametrize(("method", "suffix"), [("GET", ""), ("GET", "/messages"), ("POST", "/archive")])
async def test_other_tenants_conversation_is_404(
    method, suffix, channel, app_client, tenant, other_tenant, settings
):
    await provision_fixture_number(app_client, tenant)
    await channel.deliver(raw("text"))
    (conversation,) = await conversations(settings, tenant.id)
    response = await app_client.request(
        method, f"/v1/inbox-embed/conversations/{conversation.id}{suffix}", headers=other_tenant.headers()
    )
    assert response.status_code == 404 and response.json()["statusCode"] == 404
    assert (await inbox(app_client, other_tenant))["total"] == 0
    (unchanged,) = await conversations(settings, tenant.id)
    assert unchanged.status == "active"


async def test_inbox_needs_an_api_key(app_client):
    response = await app_client.get("/v1/inbox-embed/conversations")
    assert response.status_code == 401
