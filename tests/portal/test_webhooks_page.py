"""The webhooks page in Chromium: health figures, the test event from the health dialog, reactivation."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from playwright.async_api import expect
from sqlalchemy import update

from switchboard.models.base import utcnow
from switchboard.models.events import WebhookEndpoint
from switchboard.settings import Settings
from tests.portal.support import api_get, sign_in
from tests.support.http_server import serve_app
from tests.support.inbound import db
from tests.support.tenants import TenantFixture
from tests.workflows.test_webhook_support import Receiver


@pytest.fixture
async def receiver() -> AsyncIterator[tuple[Receiver, str]]:
    hooks = Receiver()
    async with serve_app(hooks.app()) as url:
        yield hooks, url


async def _create(client: httpx.AsyncClient, tenant: TenantFixture, url: str, description: str) -> str:
    response = await client.post(
        "/v1/webhooks", json={"url": url, "description": description}, headers=tenant.headers()
    )
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


async def test_health_dialog_sends_a_test_event_and_an_auto_disabled_webhook_is_reactivated(
    app_client: httpx.AsyncClient,
    base_url: str,
    settings: Settings,
    tenant: TenantFixture,
    worker: Any,
    receiver: tuple[Receiver, str],
    page: Any,
    screenshots: Any,
) -> None:
    hooks, hooks_url = receiver
    orders = await _create(app_client, tenant, f"{hooks_url}/hook", "Order system")
    crm = await _create(app_client, tenant, f"{hooks_url}/other", "Legacy CRM")
    async with db(settings) as session:
        await session.execute(
            update(WebhookEndpoint)
            .where(WebhookEndpoint.id == crm)  # type: ignore[arg-type]
            .values(auto_disabled_at=utcnow(), auto_disabled_reason="failing for 5 days")
        )

    await sign_in(page, base_url, tenant.live_key, "/portal/webhooks")
    orders_row = page.locator(f"#webhooks-body tr[data-id='{orders}']")
    crm_row = page.locator(f"#webhooks-body tr[data-id='{crm}']")
    await expect(orders_row.locator("[data-status]")).to_have_attribute("data-status", "no_deliveries")
    await expect(crm_row.locator("[data-status]")).to_have_attribute("data-status", "auto_disabled")

    # The health dialog's test button: one webhook.test delivery, then a 100 % day.
    await orders_row.locator("[data-action=health]").click()
    await expect(page.locator("#health-dialog")).to_be_visible()
    await page.locator("#health-test").click()
    await expect(page.locator("#health-test-result")).to_have_attribute("data-state", "delivered")
    [request] = await hooks.wait_for(1)
    event = json.loads(request.body)
    assert (event["event"], event["webhook_id"]) == ("webhook.test", orders)
    await expect(page.locator("#health-kv")).to_contain_text("100 % of 1 attempt (0 failed)")
    await screenshots(page, "webhook-health")
    await page.locator("#health-close").click()
    await expect(orders_row.locator("[data-rate='24h']")).to_contain_text("100 %")
    await expect(orders_row.locator("[data-status]")).to_have_attribute("data-status", "healthy")
    await screenshots(page, "webhooks")

    # The auto-disabled one comes back with one click.
    await crm_row.locator("[data-action=reactivate]").click()
    await expect(page.locator("#toast")).to_contain_text("reactivated")
    await expect(crm_row.locator("[data-status]")).to_have_attribute("data-status", "no_deliveries")
    await expect(crm_row.locator("[data-action=reactivate]")).to_have_count(0)
    webhook = await api_get(app_client, tenant, f"/v1/webhooks/{crm}")
    assert webhook["auto_disabled_at"] is None and webhook["enabled"] is True
