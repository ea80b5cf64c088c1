"""/docs and /redoc in Chromium with every request off the machine refused: they render from local assets."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import expect

LOOPBACK = {"127.0.0.1", "localhost"}


async def blocked_off_machine(page: Any) -> list[str]:
    """Refuse every request that would leave the machine; the list of those the page tried."""
    tried: list[str] = []

    async def route(request_route: Any) -> None:
        url = request_route.request.url
        if urlsplit(url).scheme in ("http", "https") and urlsplit(url).hostname not in LOOPBACK:
            tried.append(url)
            await request_route.abort()
        else:
            await request_route.continue_()

    await page.route("**/*", route)
    return tried


async def test_swagger_ui_renders_every_operation_offline(base_url: str, page: Any) -> None:
    tried = await blocked_off_machine(page)
    await page.goto(f"{base_url}/docs")
    await expect(page.locator(".swagger-ui .info .title")).to_contain_text("Switchboard")
    await expect(
        page.locator(".opblock-summary-path[data-path='/v1/webhooks/{webhook_id}/rotate-secret']")
    ).to_have_count(1)
    assert await page.locator(".opblock").count() > 50
    assert tried == []


async def test_redoc_renders_offline(base_url: str, page: Any) -> None:
    tried = await blocked_off_machine(page)
    await page.goto(f"{base_url}/redoc")
    await expect(page.locator("h1").first).to_contain_text("Switchboard")
    await expect(page.get_by_text("/v1/webhooks/{webhook_id}/recover").first).to_be_attached()
    assert tried == []
