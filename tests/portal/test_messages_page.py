"""Bulk retry of failed messages in Chromium: per-message outcomes, the 5-minute guard, a progress bar."""

from __future__ import annotations

from typing import Any

import httpx
from playwright.async_api import expect

from tests.portal.support import api_get, sign_in
from tests.support.fake_channel import FakeChannel, Scripted, cloud_error
from tests.support.tenants import TenantFixture

RECIPIENTS = ["14155550101", "14155550102", "14155550103", "14155550104", "14155550105"]
STUBBORN = "14155550199"


async def _failed_send(client: httpx.AsyncClient, tenant: TenantFixture, to: str, text: str) -> str:
    response = await client.post(
        "/v1/messages",
        json={"phone_number_id": tenant.phone_number_id, "to": to, "type": "text", "text": {"body": text}},
        headers=tenant.headers(),
    )
    assert response.status_code == 400, response.text
    return str(response.json()["message_id"])


async def test_bulk_retry_shows_each_outcome_and_respects_the_guard(
    app_client: httpx.AsyncClient,
    base_url: str,
    tenant: TenantFixture,
    worker: Any,
    channel: FakeChannel,
    page: Any,
    screenshots: Any,
) -> None:
    refused = Scripted(400, cloud_error(131026, "Message undeliverable"))
    for to in RECIPIENTS:
        channel.script(to, refused)
    # This one is refused again on retry.
    channel.script(STUBBORN, refused, Scripted(400, cloud_error(131047, "Re-engagement message")))
    ids = [
        await _failed_send(app_client, tenant, to, f"Your order #{n} shipped")
        for n, to in enumerate(RECIPIENTS)
    ]
    stubborn = await _failed_send(app_client, tenant, STUBBORN, "Your order #9 shipped")
    # Someone already retried this one a minute ago: the endpoint's guard makes the batch skip it.
    early = await app_client.post(f"/v1/messages/{ids[0]}/retry", headers=tenant.headers())
    assert early.status_code == 201, early.text
    sends_before = len(channel.sends)

    await sign_in(page, base_url, tenant.live_key, "/portal/messages")
    rows = page.locator("#messages-body tr")
    await expect(rows).to_have_count(6)
    await expect(rows.filter(has_text="+14155550199")).to_contain_text("RECIPIENT_NOT_ON_WHATSAPP")
    await expect(rows.first).to_contain_text("Message undeliverable")

    await page.locator("#select-all").click()
    await expect(page.locator("#selection-count")).to_have_text("6 selected")
    await page.locator("#retry-selected").click()
    await expect(page.locator("#retry-panel")).to_have_attribute("data-done", "true")
    progress = page.locator("#retry-progress")
    assert await progress.evaluate("p => [p.value, p.max]") == [6, 6]
    await expect(page.locator("#retry-counts")).to_have_text("6/6 · 4 sent · 1 failed · 1 skipped")
    results = page.locator("#retry-results")
    await expect(results.locator("[data-outcome=ok]")).to_have_count(4)
    skipped = results.locator(f"tr[data-id='{ids[0]}'] [data-outcome=skip]")
    await expect(skipped).to_contain_text("already retried in the last 5 minutes")
    await expect(results.locator(f"tr[data-id='{stubborn}'] [data-outcome=bad]")).to_contain_text(
        "OUTSIDE_CONVERSATION_WINDOW"
    )
    # The outcome shows in the list too, which now also holds the retry that failed again.
    await expect(rows).to_have_count(7)
    await expect(page.locator(f"#messages-body tr[data-id='{ids[1]}'] [data-outcome=ok]")).to_contain_text(
        "sent again"
    )
    await screenshots(page, "messages", full_page=True)

    # Exactly one new send per retried message, each pointing back at its original.
    assert len(channel.sends) == sends_before + 5
    retries = [
        m
        for m in (await api_get(app_client, tenant, "/v1/messages", per_page=100))["data"]
        if m["retry_of_message_id"]
    ]
    assert sorted(m["retry_of_message_id"] for m in retries) == sorted([*ids, stubborn])
