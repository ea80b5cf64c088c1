"""The inbox in Chromium shows a WhatsApp group's conversation as the group's, with who wrote each post.

Posts arrive through the signed channel webhook in Meta's group shape (tests/fixtures/channel/group_text.json).
A reply would go to one person, so the composer is off for a group, and says why.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from playwright.async_api import expect

from tests.e2e.agents.support import say
from tests.fixtures.channel import USER_PHONE, load
from tests.portal.support import now_stamp, sign_in
from tests.support.tenants import TenantFixture

GROUP_ID = "Y2FwaV9ncm91cDpFWEFNUExFX0dST1VQX0lE"
OTHER_MEMBER = "447700900123"


def post(wamid: str, text: str, member: str) -> bytes:
    payload = load("group_text")
    value = payload["entry"][0]["changes"][0]["value"]
    value["contacts"] = [{"profile": {"name": "Member"}, "wa_id": member}]
    value["messages"][0].update({"id": wamid, "from": member, "text": {"body": text}})
    return now_stamp(json.dumps(payload).encode())


async def test_a_group_conversation_names_the_group_and_each_posts_author(
    app_client: httpx.AsyncClient, base_url: str, bound_tenant: TenantFixture, page: Any
) -> None:
    await sign_in(page, base_url, bound_tenant.live_key, "/portal/inbox?poll=500")
    await say(app_client, post("wamid.pg1", "¿Alguien sabe si el jueves abren?", USER_PHONE))
    await say(app_client, post("wamid.pg2", "Creo que sí", OTHER_MEMBER))

    item = page.locator(".conv-item").first
    await expect(item.locator(".name")).to_have_text("WhatsApp group")
    await expect(item.locator(".ids")).to_contain_text(f"group {GROUP_ID}")
    await expect(item.locator("[data-unread]")).to_have_text("2")
    await item.click()
    messages = page.locator("#messages")
    await expect(messages.locator(".msg.inbound .author")).to_have_text(
        [f"+{USER_PHONE}", f"+{OTHER_MEMBER}"]
    )
    await expect(page.locator("#reply-text")).to_be_disabled()
    await expect(page.locator("#reply-text")).to_have_attribute(
        "placeholder", "Replies to a group are not sent from the inbox"
    )
    await expect(page.locator("#reply-send")).to_be_disabled()
