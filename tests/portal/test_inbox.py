"""The inbox in Chromium: customer messages appear without reload, human replies go out with their source.

The customer writes through the signed channel webhook; the agent answers with
the fake model; the person in the inbox replies through the normal send path,
which the fake upstream records, and the agent steps aside (human_detected).
"""

from __future__ import annotations

from typing import Any

import httpx
from playwright.async_api import expect

from tests.e2e.agents.support import deploy_agent, eventually, finished_runs, say, text_envelope
from tests.fakes.scripting import FakeProvider, TextReply
from tests.fixtures.channel import USER_PHONE
from tests.portal.support import (
    api_get,
    fixture_message,
    now_stamp,
    only_thread,
    outbound_with_source,
    sign_in,
)
from tests.support.fake_channel import FakeChannel, Scripted, cloud_error
from tests.support.inbound import post_webhook, status_payload
from tests.support.tenants import TenantFixture


async def test_a_customer_message_appears_and_an_anonymous_reply_mutes_the_agent(
    app_client: httpx.AsyncClient,
    base_url: str,
    bound_tenant: TenantFixture,
    anthropic: FakeProvider,
    channel: FakeChannel,
    tools_url: str,
    page: Any,
    screenshots: Any,
) -> None:
    anthropic.script(
        TextReply("¡Hola! Soy el asistente de la clínica. ¿En qué te ayudo?"),
        TextReply("Gracias por la foto. ¿Preferís turno a la mañana o a la tarde?"),
        TextReply("Perfecto, a la mañana. ¿Qué día te queda mejor?"),
    )
    await deploy_agent(app_client, bound_tenant, provider="anthropic", tool_base_url=tools_url)
    await sign_in(page, base_url, bound_tenant.live_key, "/portal/inbox?poll=500")
    await expect(page.locator("#conv-empty")).to_be_visible()

    # The customer writes: the conversation shows up without a reload, unread, window open.
    await say(app_client, now_stamp(text_envelope("Hola, quería pedir un turno")))
    item = page.locator(".conv-item").first
    await expect(item.locator(".name")).to_have_text("Test Name")
    await expect(item.locator(".ids")).to_contain_text("+16505551234")
    await expect(item.locator(".ids")).to_contain_text("BSUID US.13491208655302741918")
    await expect(item.locator("[data-unread]")).to_have_text("1")
    await expect(item.locator("[data-window=open]")).to_contain_text("24 h window")

    # Its thread: the customer's words, then the agent's answer (sent by the AI agent).
    await item.click()
    messages = page.locator("#messages")
    await expect(messages.locator(".msg.inbound").first).to_contain_text("Hola, quería pedir un turno")
    agent_reply = messages.locator(".msg[data-source=AUTO_AGENT_PLATFORM]")
    await expect(agent_reply).to_contain_text("Soy el asistente")
    await expect(agent_reply.locator(".source")).to_have_text("AI agent")
    [run] = await finished_runs(app_client, bound_tenant)
    assert run["status"] == "completed", run

    # A photo and a button tap arrive while the thread is open: a placeholder and a readable choice.
    await say(app_client, fixture_message("image", "wamid.portal.img1"))
    await say(app_client, fixture_message("interactive_button_reply", "wamid.portal.btn1"))
    await expect(messages.locator("[data-media=image]")).to_contain_text("image/jpeg")
    await expect(messages.locator(".msg.inbound").filter(has_text="optional caption")).to_have_count(1)
    await expect(messages.locator("[data-interactive=button_reply]")).to_contain_text("Tapped a button")

    # A person answers from the inbox: anonymous embed source, through the normal send path.
    await page.locator("#reply-text").fill("Hola, soy Ana de recepción. Te paso los horarios.")
    await page.locator("#reply-send").click()
    human = messages.locator(".msg[data-source=HUMAN_EMBED_ANONYMOUS]")
    await expect(human).to_contain_text("soy Ana de recepción")
    await expect(human.locator(".ticks")).to_have_attribute("data-status", "sent")
    await expect(page.locator("#reply-text")).to_have_value("")

    [sent] = await outbound_with_source(app_client, bound_tenant, "HUMAN_EMBED_ANONYMOUS")
    assert sent["sent_by"] is None and sent["to_phone"] == USER_PHONE
    bodies = [s.get("text", {}).get("body") for s in channel.sends_to(USER_PHONE)]
    assert "Hola, soy Ana de recepción. Te paso los horarios." in bodies, bodies

    async def muted_by_human() -> dict[str, Any] | None:
        thread = await only_thread(app_client, bound_tenant)
        return thread if thread["muted_reason"] == "human_detected" else None

    await eventually(muted_by_human)

    # The upstream reports delivery, then the read: the ticks follow without a reload.
    for status in ("delivered", "read"):
        response = await post_webhook(app_client, status_payload(sent["wa_message_id"], status))
        assert response.status_code == 200, response.text
        await expect(human.locator(".ticks")).to_have_attribute("data-status", status)
    await screenshots(page, "inbox")

    # Mark as resolved: it leaves the open list and shows under Resolved.
    await page.locator("#archive-button").click()
    await expect(page.locator(".conv-item")).to_have_count(0)
    await page.locator(".conv-tabs [data-status=archived]").click()
    await expect(page.locator(".conv-item .name")).to_have_text("Test Name")
    [conversation] = (await api_get(app_client, bound_tenant, "/v1/inbox-embed/conversations"))["data"]
    assert (conversation["status"], conversation["unread_count"]) == ("archived", 0)


async def test_with_agent_login_the_reply_is_human_portal_and_names_the_agent(
    app_client: httpx.AsyncClient,
    base_url: str,
    bound_tenant: TenantFixture,
    channel: FakeChannel,
    page: Any,
) -> None:
    await say(app_client, now_stamp(text_envelope("¿Atienden los sábados?")))
    await sign_in(page, base_url, bound_tenant.live_key, "/portal/inbox?requireAgentLogin=1&poll=500")
    await page.locator(".conv-item").first.click()
    await expect(page.locator("#messages .msg.inbound")).to_contain_text("¿Atienden los sábados?")

    # The page asks who is replying before it lets anyone write.
    await expect(page.locator("#agent-login")).to_be_visible()
    await expect(page.locator("#reply-text")).to_be_disabled()
    await page.locator("#agent-name").fill("ana.perez")
    await page.locator("#agent-save").click()
    await expect(page.locator("#agent-current-name")).to_have_text("ana.perez")

    # The upstream refuses the first reply: the failure and its error show in the thread.
    channel.script(USER_PHONE, Scripted(400, cloud_error(131026, "Message undeliverable")))
    await page.locator("#reply-text").fill("Sí, de 9 a 13.")
    await page.locator("#reply-send").click()
    failed = page.locator("#messages .msg.failed")
    await expect(failed.locator(".ticks")).to_have_attribute("data-status", "failed")
    await expect(failed.locator(".error-text")).not_to_be_empty()
    await expect(page.locator("#reply-error")).not_to_be_empty()

    await page.locator("#reply-text").fill("Sí, de 9 a 13.")
    await page.locator("#reply-send").click()
    delivered = page.locator("#messages .msg[data-source=HUMAN_PORTAL]:not(.failed)")
    await expect(delivered.locator(".ticks")).to_have_attribute("data-status", "sent")
    await expect(delivered.locator(".source")).to_have_text("Inbox agent")

    portal = await outbound_with_source(app_client, bound_tenant, "HUMAN_PORTAL")
    assert {m["status"] for m in portal} == {"sent", "failed"}
    assert {m["sent_by"] for m in portal} == {"ana.perez"}
    assert [s["text"]["body"] for s in channel.sends_to(USER_PHONE)] == ["Sí, de 9 a 13."] * 2
