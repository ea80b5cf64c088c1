"""The agents page in Chromium: a thread muted by a human reply, its runs and steps, reactivate, reset."""

from __future__ import annotations

from typing import Any

import httpx
from playwright.async_api import expect

from tests.e2e.agents.support import deploy_agent, eventually, finished_runs, say, text_envelope
from tests.fakes.scripting import FakeProvider, TextReply
from tests.portal.support import api_get, now_stamp, only_thread, sign_in
from tests.support.tenants import TenantFixture


async def test_a_muted_thread_is_explained_and_reactivated_from_the_agents_page(
    app_client: httpx.AsyncClient,
    base_url: str,
    bound_tenant: TenantFixture,
    anthropic: FakeProvider,
    tools_url: str,
    page: Any,
    screenshots: Any,
) -> None:
    anthropic.script(TextReply("¡Hola! ¿Para qué día querés el turno?"))
    await deploy_agent(app_client, bound_tenant, provider="anthropic", tool_base_url=tools_url)
    await say(app_client, now_stamp(text_envelope("Hola, quiero un turno")))
    [run] = await finished_runs(app_client, bound_tenant)
    assert run["status"] == "completed", run
    thread = await only_thread(app_client, bound_tenant)
    reply = await app_client.post(
        f"/v1/inbox-embed/conversations/{thread['conversation_id']}/messages",
        json={"text": "Te atiendo yo, soy Ana."},
        headers=bound_tenant.headers(),
    )
    assert reply.status_code in (201, 202), reply.text

    async def muted() -> dict[str, Any] | None:
        current = await only_thread(app_client, bound_tenant)
        return current if current["muted_reason"] == "human_detected" else None

    thread = await eventually(muted)

    # The muted list: who, why, since when, and what the thread cost.
    await sign_in(page, base_url, bound_tenant.live_key, "/portal/agents?muted=true")
    row = page.locator(f"#threads-body tr[data-id='{thread['id']}']")
    await expect(row.locator("[data-state=muted]")).to_have_attribute("data-reason", "human_detected")
    await expect(row.locator("[data-state=muted]")).to_have_text("muted: a person replied")
    await expect(row).to_contain_text("Test Name")
    assert float(thread["costUsd"]) > 0
    await expect(row.locator("td.num").nth(1)).to_contain_text("$0.0000")

    # Its runs, and one run's steps: the model call with tokens and cost, the guardrails that passed.
    await row.locator("[data-action=details]").click()
    run_row = page.locator(f"#runs-body tr[data-run='{run['id']}']")
    await expect(run_row.locator("[data-status]")).to_have_text("completed")
    await expect(run_row).to_contain_text("claude-haiku-4-5")
    await expect(run_row).to_contain_text("12 / 6")
    await run_row.locator("[data-action=steps]").click()
    model_step = page.locator("#steps-body tr[data-kind=model_call]").first
    await expect(model_step).to_contain_text("tokens in 12, out 6")
    await expect(page.locator("#steps-body tr[data-kind=guardrail]").first).to_contain_text("pass")
    await expect(page.locator("#steps-body tr[data-kind=reply]")).to_contain_text("queued")
    await expect(page.locator("#detail-history")).to_contain_text("Hola, quiero un turno")
    await screenshots(page, "agents", full_page=True)

    # Reactivate with a reason: the thread leaves the muted list and the event records who and why.
    await row.locator("[data-action=reactivate]").click()
    await page.locator("#reason-input").fill("Ana answered; the agent can take it from here")
    await page.locator("#reason-user").fill("ana")
    await page.locator("#reason-confirm").click()
    await expect(page.locator("#toast")).to_contain_text("reactivated")
    await expect(row).to_have_count(0)
    current = await only_thread(app_client, bound_tenant)
    assert (current["muted"], current["muted_reason"]) == (False, None)
    events = await api_get(
        app_client, bound_tenant, "/v1/agent-events", thread_id=thread["id"], type="thread.reactivated"
    )
    [event] = events["data"]
    assert event["properties"]["reason"] == "Ana answered; the agent can take it from here"
    assert event["properties"]["reactivated_by_user_id"] == "ana"

    # Reset the history from the full list (the mute state is left alone).
    await page.locator("#muted-filter").select_option("")
    row = page.locator(f"#threads-body tr[data-id='{thread['id']}']")
    await expect(row.locator("[data-state=active]")).to_be_visible()
    await row.locator("[data-action=reset]").click()
    await page.locator("#reason-input").fill("start over")
    await page.locator("#reason-confirm").click()
    await expect(row.locator("td.num").first).to_have_text("0")
    assert (await only_thread(app_client, bound_tenant))["message_count"] == 0
