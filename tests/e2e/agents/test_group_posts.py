"""A post in a WhatsApp group is filed in the group's own conversation and no agent answers it.

The group post is Meta's documented shape (group messages webhook reference: ``group_id`` beside ``from``
on the message, the member in ``contacts[]``; tests/fixtures/channel/group_text.json), posted through the
signed channel webhook to a number with a bound agent, beside a private message from the same person.
"""

from __future__ import annotations

import asyncio
import copy
import json
import time
from typing import Any

import httpx

from tests.e2e.agents.support import deploy_agent, finished_runs, say, text_envelope
from tests.fakes.scripting import FakeProvider, TextReply
from tests.fixtures.channel import USER_PHONE, load
from tests.support.http_server import serve_app
from tests.support.tenants import TenantFixture
from tests.workflows.test_webhook_support import Receiver

GROUP_ID = "Y2FwaV9ncm91cDpFWEFNUExFX0dST1VQX0lE"
OTHER_MEMBER = "447700900123"


def group_post(wamid: str, text: str, *, member: str = USER_PHONE) -> bytes:
    payload = copy.deepcopy(load("group_text"))
    value = payload["entry"][0]["changes"][0]["value"]
    value["contacts"] = [{"profile": {"name": "Member"}, "wa_id": member}]
    message = value["messages"][0]
    message.update(id=wamid, **{"from": member})
    message["text"] = {"body": text}
    return json.dumps(payload).encode()


async def received(endpoint: Receiver, count: int) -> list[dict[str, Any]]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        bodies = [json.loads(r.body) for r in endpoint.at("/hook")]
        found = [b for b in bodies if b["event"] == "channel.message.received"]
        if len(found) >= count:
            return sorted(found, key=lambda b: b["message"]["id"])
        await asyncio.sleep(0.1)
    raise AssertionError(f"fewer than {count} channel.message.received")


async def test_group_posts_have_their_own_conversation_and_start_no_turn(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    tools_url: str,
) -> None:
    headers = bound_tenant.headers()
    fakes["anthropic"].script(TextReply("¡Hola! ¿En qué te ayudo?"))
    await deploy_agent(app_client, bound_tenant, provider="anthropic", tool_base_url=tools_url)
    endpoint = Receiver()
    async with serve_app(endpoint.app()) as base_url:
        created = await app_client.post("/v1/webhooks", json={"url": f"{base_url}/hook"}, headers=headers)
        assert created.status_code == 201, created.text

        await say(app_client, group_post("wamid.g1", "¿Alguien sabe si el jueves abren?"))
        await say(app_client, group_post("wamid.g2", "Creo que sí", member=OTHER_MEMBER))
        await say(app_client, text_envelope("hola, quería un turno", wamid="wamid.p1"))
        g1, g2, private = await received(endpoint, 3)

    assert g1["conversation"]["group_id"] == GROUP_ID and g1["message"]["group_id"] == GROUP_ID
    assert g1["message"]["from"] == USER_PHONE and g2["message"]["from"] == OTHER_MEMBER
    assert g1["conversation"]["id"] == g2["conversation"]["id"], "one conversation per group"
    assert (g1["is_new_conversation"], g2["is_new_conversation"]) == (True, False)
    assert "contact_phone" not in g1["conversation"], "the group is nobody's phone"
    assert private["conversation"]["id"] != g1["conversation"]["id"]
    assert "group_id" not in private["conversation"] and "group_id" not in private["message"]

    [run] = await finished_runs(app_client, bound_tenant, count=1)
    assert run["status"] == "completed"
    assert len(fakes["anthropic"].requests) == 1
    assert "hola, quería un turno" in str(fakes["anthropic"].requests[0].body)
    assert "jueves" not in str(fakes["anthropic"].requests[0].body), "no agent reads the group"

    group = (
        await app_client.get(f"/v1/inbox-embed/conversations/{g1['conversation']['id']}", headers=headers)
    ).json()
    assert (group["group_id"], group["unread_count"], group["contact_phone"]) == (GROUP_ID, 2, None)
    stored = (
        await app_client.get(f"/v1/messages/{g2['message']['service']['message_id']}", headers=headers)
    ).json()
    assert (stored["group_id"], stored["from_phone"]) == (GROUP_ID, OTHER_MEMBER)

    reply = await app_client.post(
        f"/v1/inbox-embed/conversations/{g1['conversation']['id']}/messages",
        json={"text": "¡Sí, abrimos!"},
        headers=headers,
    )
    assert reply.status_code == 409, reply.text
    assert reply.json()["code"] == "GROUP_CONVERSATION"
    assert reply.json()["details"] == {"group_id": GROUP_ID}
