"""The webhooks page's deliveries in Chromium: the attempt log, Resend on a delivery, Recover on the endpoint."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from playwright.async_api import expect

from switchboard.settings import Settings
from tests.portal.support import sign_in
from tests.support.http_server import free_port, serve_app
from tests.support.tenants import TenantFixture
from tests.workflows.test_webhook_support import Receiver


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """One attempt per delivery: an endpoint that is down fails each delivery at once."""
    return settings.model_copy(update={"webhook_retry_schedule_seconds": "0", "webhook_jitter_ratio": 0.0})


@pytest.fixture
async def receiver() -> AsyncIterator[tuple[Receiver, str]]:
    hooks = Receiver()
    async with serve_app(hooks.app()) as url:
        yield hooks, url


async def failed_deliveries(
    client: httpx.AsyncClient, tenant: TenantFixture, webhook_id: str, count: int
) -> None:
    for _ in range(200):
        response = await client.get(
            f"/v1/webhooks/{webhook_id}/deliveries", params={"status": "failed"}, headers=tenant.headers()
        )
        if len(response.json()["data"]) == count:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"{count} failed deliveries expected")


async def test_the_log_resends_a_delivery_and_recovers_the_rest(
    app_client: httpx.AsyncClient,
    base_url: str,
    tenant: TenantFixture,
    worker: Any,
    receiver: tuple[Receiver, str],
    page: Any,
    screenshots: Any,
) -> None:
    hooks, hooks_url = receiver
    hooks.default = (503, {})
    created = await app_client.post(
        "/v1/webhooks",
        json={"url": f"{hooks_url}/hook", "description": "Order system", "events": ["webhook.test"]},
        headers=tenant.headers(),
    )
    webhook_id = created.json()["id"]
    for _ in range(2):
        await app_client.post(f"/v1/webhooks/{webhook_id}/test", headers=tenant.headers())
    await failed_deliveries(app_client, tenant, webhook_id, 2)

    await sign_in(page, base_url, tenant.live_key, "/portal/webhooks")
    row = page.locator(f"#webhooks-body tr[data-id='{webhook_id}']")
    await expect(row).to_contain_text("1 kind")
    await row.locator("[data-action=deliveries]").click()
    log = page.locator("#log-body tr")
    await expect(log).to_have_count(2)
    await expect(page.locator("#log-body tr[data-status=failed]")).to_have_count(2)
    await expect(log.first).to_contain_text("HTTP 503")

    await log.first.locator("[data-action=attempts]").click()
    await expect(page.locator("#attempts-list li")).to_have_count(1)
    await expect(page.locator("#attempts-list")).to_contain_text("receiver says no")
    await screenshots(page, "webhook-deliveries")

    # The endpoint is back: Resend one delivery, then Recover the other.
    hooks.default = (200, {})
    resent_id = await log.first.get_attribute("data-id")
    await log.first.locator("[data-action=resend]").click()
    await expect(page.locator("#recover-result")).to_have_attribute("data-state", "completed")
    await expect(page.locator("#recover-result")).to_contain_text("1 delivered, 0 failed again")
    await expect(page.locator(f"#log-body tr[data-id='{resent_id}']")).to_have_attribute(
        "data-status", "succeeded"
    )

    page.once("dialog", lambda dialog: asyncio.ensure_future(dialog.accept()))
    await page.locator("#recover").click()
    await expect(page.locator("#recover-result")).to_contain_text(
        "Recovery completed: 1 delivered, 0 failed again"
    )
    await expect(page.locator("#log-body tr[data-status=succeeded]")).to_have_count(2)
    posted = [json.loads(request.body)["delivery_id"] for request in hooks.at("/hook")]
    assert len(posted) == 4 and sorted(posted[2:]) == sorted(set(posted[:2]))


async def test_a_refused_connection_is_told_apart_from_an_error_answer(
    app_client: httpx.AsyncClient, base_url: str, tenant: TenantFixture, worker: Any, page: Any
) -> None:
    closed = f"http://127.0.0.1:{free_port()}/hook"
    created = await app_client.post("/v1/webhooks", json={"url": closed}, headers=tenant.headers())
    webhook_id = created.json()["id"]
    await sign_in(page, base_url, tenant.live_key, "/portal/webhooks")
    await page.locator(f"#webhooks-body tr[data-id='{webhook_id}'] [data-action=health]").click()
    await page.locator("#health-test").click()
    result = page.locator("#health-test-result")
    await expect(result).to_have_attribute("data-state", "failed")
    await expect(result).to_contain_text("connection failed")
    await expect(result).not_to_contain_text("answered")
