"""Edits, deletions and reactions change what is there; none of them is a new message to read.

Each payload is a Cloud API message object as the channel posts it (tests/fixtures/channel; the edit and
revoke shapes are pywa's fixtures ``edited_message.json`` and ``deleted_message.json``), sent through the
signed channel webhook in its own request, as the channel sends them, and applied by a real worker. What
is checked: the tenant's loopback receiver gets each event once, ``GET /v1/messages/{id}`` shows the
message as it now stands, and the conversation's unread count counts only what asks to be read.
"""

from __future__ import annotations

import asyncio
import copy
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from switchboard.models.messaging import Message
from tests.fixtures.channel import load
from tests.support.http_server import serve_app
from tests.support.inbound import deliver, provision_fixture_number, rows
from tests.workflows.test_webhook_support import Receiver


@pytest.fixture
async def hooked(app_client: httpx.AsyncClient, tenant, worker) -> AsyncIterator[Receiver]:
    """The fixture number, and a webhook subscribed to every event on a loopback receiver."""
    await provision_fixture_number(app_client, tenant)
    endpoint = Receiver()
    async with serve_app(endpoint.app()) as base_url:
        created = await app_client.post(
            "/v1/webhooks", json={"url": f"{base_url}/hook"}, headers=tenant.headers()
        )
        assert created.status_code == 201, created.text
        yield endpoint


def split(name: str) -> list[bytes]:
    """A fixture whose messages[] holds several messages, as one payload per message (as the channel posts)."""
    payload = load(name)
    value = payload["entry"][0]["changes"][0]["value"]
    key = "messages" if "messages" in value else "message_echoes"
    bodies = []
    for message in value[key]:
        single = copy.deepcopy(payload)
        single["entry"][0]["changes"][0]["value"][key] = [message]
        bodies.append(json.dumps(single).encode())
    return bodies


async def events_of(endpoint: Receiver, kind: str, count: int = 1) -> list[dict[str, Any]]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = [b for b in (json.loads(r.body) for r in endpoint.at("/hook")) if b["event"] == kind]
        if len(found) >= count:
            await asyncio.sleep(0.3)  # anything more would be a duplicate
            found = [b for b in (json.loads(r.body) for r in endpoint.at("/hook")) if b["event"] == kind]
            assert len(found) == count, found
            return found
        await asyncio.sleep(0.1)
    raise AssertionError(f"fewer than {count} {kind} events")


async def message(client: httpx.AsyncClient, tenant, message_id: str) -> dict[str, Any]:
    response = await client.get(f"/v1/messages/{message_id}", headers=tenant.headers())
    assert response.status_code == 200, response.text
    return dict(response.json())


async def unread(client: httpx.AsyncClient, tenant, conversation_id: str) -> int:
    response = await client.get(f"/v1/inbox-embed/conversations/{conversation_id}", headers=tenant.headers())
    assert response.status_code == 200, response.text
    return int(response.json()["unread_count"])


async def test_an_edit_changes_the_message_keeps_the_old_text_and_is_not_unread(
    app_client, tenant, settings, temporal_env, hooked
):
    original, edit = split("message_edited")
    await deliver(app_client, temporal_env.client, original, settings=settings)
    [received] = await events_of(hooked, "channel.message.received")
    message_id = received["message"]["service"]["message_id"]

    await deliver(app_client, temporal_env.client, edit, settings=settings)

    [edited] = await events_of(hooked, "channel.message.edited")
    assert edited["message"]["id"] == "wamid.edit00", "the event names the message that changed"
    assert edited["message"]["text"] == {"body": "See you at 11"}
    assert edited["message"]["service"]["content"] == "See you at 11"
    assert edited["message"]["edit"] == {
        "id": "wamid.edit01",
        "timestamp": "1749854575",
        "occurred_at": "2025-06-13T22:42:55.000Z",
        "current": True,
    }
    assert edited["message"]["from"] == received["message"]["from"]
    assert edited["conversation"]["id"] == received["conversation"]["id"]
    assert edited["conversation_sequence"] == received["conversation_sequence"] + 1
    stored = await message(app_client, tenant, message_id)
    assert (stored["content"], stored["edited_at"], stored["revoked_at"]) == (
        "See you at 11",
        "2025-06-13T22:42:55.000Z",
        None,
    )
    assert stored["edits"] == [
        {"type": "text", "content": "See you at 10", "since": None, "text": {"body": "See you at 10"}}
    ]
    assert await unread(app_client, tenant, received["conversation"]["id"]) == 1, "the edit is not unread"
    listed = (
        await app_client.get(
            "/v1/messages",
            params={"conversation_id": received["conversation"]["id"]},
            headers=tenant.headers(),
        )
    ).json()["data"]
    assert [m["id"] for m in listed] == [message_id], "an edit is not a message of its own"


async def test_a_revoke_empties_the_message_and_says_when(app_client, tenant, settings, temporal_env, hooked):
    original, revoke = split("message_revoked")
    await deliver(app_client, temporal_env.client, original, settings=settings)
    [received] = await events_of(hooked, "channel.message.received")
    message_id = received["message"]["service"]["message_id"]

    summary = await deliver(app_client, temporal_env.client, revoke, settings=settings)
    await deliver(app_client, temporal_env.client, revoke, settings=settings)  # redelivered: changes nothing

    [revoked] = await events_of(hooked, "channel.message.revoked")
    assert summary.applied == 1
    assert revoked["message"]["id"] == "wamid.rvk00" and revoked["message"]["type"] == "image"
    assert "image" not in revoked["message"] and "content" not in revoked["message"]["service"]
    assert revoked["message"]["revoke"]["id"] == "wamid.rvk01"
    stored = await message(app_client, tenant, message_id)
    assert (stored["content"], stored["has_media"], stored["edits"]) == (None, False, None)
    assert stored["revoked_at"] == "2023-10-11T16:53:43.000Z"
    assert await unread(app_client, tenant, received["conversation"]["id"]) == 1


async def test_a_reaction_is_shown_but_not_unread(app_client, tenant, settings, temporal_env, hooked):
    await deliver(app_client, temporal_env.client, json.dumps(load("text")).encode(), settings=settings)
    [received] = await events_of(hooked, "channel.message.received")
    conversation_id = received["conversation"]["id"]
    assert await unread(app_client, tenant, conversation_id) == 1

    for name in ("reaction", "reaction_removed"):
        await deliver(app_client, temporal_env.client, json.dumps(load(name)).encode(), settings=settings)

    reactions = await events_of(hooked, "channel.message.received", count=3)
    assert [r["message"]["type"] for r in reactions] == ["text", "reaction", "reaction"]
    assert await unread(app_client, tenant, conversation_id) == 1, "reactions ask nobody to read anything"


async def test_a_business_app_edit_changes_the_echoed_message(
    app_client, tenant, settings, temporal_env, hooked
):
    original, edit = split("smb_message_echo_edited")
    await deliver(app_client, temporal_env.client, original, settings=settings)
    await deliver(app_client, temporal_env.client, edit, settings=settings)

    [echoed] = await events_of(hooked, "channel.message.echoed")
    [edited] = await events_of(hooked, "channel.message.edited")
    assert edited["message"]["id"] == "wamid.echoedit00"
    assert edited["message"]["to"] == echoed["message"]["to"]
    assert edited["message"]["service"]["direction"] == "outbound"
    stored = await message(app_client, tenant, echoed["message"]["service"]["message_id"])
    assert stored["content"] == "Test message, corrected"
    assert [v["content"] for v in stored["edits"]] == ["Test message"]


async def test_history_media_reaches_the_row_it_belongs_to(
    app_client, tenant, settings, temporal_env, hooked
):
    """The sync's row comes without a media id; the asset arrives later, in value.messages of a history change."""
    payload = load("history_media")
    value = payload["entry"][0]["changes"][0]["value"]
    sync, assets = copy.deepcopy(payload), copy.deepcopy(payload)
    sync["entry"][0]["changes"][0]["value"].pop("messages")
    assets["entry"][0]["changes"][0]["value"].pop("history")

    await deliver(app_client, temporal_env.client, json.dumps(sync).encode(), settings=settings)
    listed = (await app_client.get("/v1/messages", headers=tenant.headers())).json()["data"]
    [row] = [m for m in listed if m["wa_message_id"] == "wamid.histimg01"]
    assert row["status"] == "historical"
    summary = await deliver(app_client, temporal_env.client, json.dumps(assets).encode(), settings=settings)

    assert summary.applied == 1, summary
    [stored] = await rows(settings, Message, Message.id == row["id"])
    assert stored.payload["media_id"] == "3141592653589793"
    assert stored.payload["image"] == value["messages"][0]["image"], "the asset's id, sha256 and mime type"
    assert stored.payload["history"] == {"phase": 0, "chunk_order": 1, "progress": 100}, (
        "the row's own facts stay"
    )
    api_row = await message(app_client, tenant, row["id"])
    assert (api_row["has_media"], api_row["content"], api_row["status"]) == (
        True,
        "the rash, last week",
        "historical",
    )
