"""The portal's pages: security headers, static files, signing in and out, the overview."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from playwright.async_api import expect

from switchboard.dev_demo import banner
from tests.portal.support import sign_in
from tests.support.tenants import TenantFixture

CONSOLE = ["/portal", "/portal/agents", "/portal/messages", "/portal/webhooks"]


async def test_pages_send_a_strict_csp_and_only_the_inbox_may_be_framed(
    app_client: httpx.AsyncClient,
) -> None:
    inbox = await app_client.get("/portal/inbox")
    assert inbox.status_code == 200 and inbox.headers["content-type"].startswith("text/html")
    csp = inbox.headers["content-security-policy"]
    for directive in ("default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'"):
        assert directive in csp
    assert "frame-ancestors *" in csp and "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert "x-frame-options" not in inbox.headers
    for path in CONSOLE:
        page = await app_client.get(path)
        assert page.status_code == 200, path
        assert "frame-ancestors 'none'" in page.headers["content-security-policy"], path
        assert page.headers["x-frame-options"] == "DENY", path
        assert page.headers["cache-control"] == "no-store"
        assert page.headers["x-content-type-options"] == "nosniff"
    # Pages are static shells: no inline script, no key, no tenant data.
    assert "<script>" not in inbox.text and not re.search(r"gsk_(live|test)_[A-Za-z0-9_-]{20}", inbox.text)


async def test_only_the_portals_own_files_are_served_with_their_type_and_an_etag(
    app_client: httpx.AsyncClient,
) -> None:
    for name, media_type in [
        ("lib.js", "text/javascript"),
        ("portal.css", "text/css"),
        ("inbox.js", "text/javascript"),
    ]:
        response = await app_client.get(f"/portal/static/{name}")
        assert response.status_code == 200 and response.headers["content-type"].startswith(media_type)
        assert response.headers["x-content-type-options"] == "nosniff"
        etag = response.headers["etag"]
        assert (
            await app_client.get(f"/portal/static/{name}", headers={"If-None-Match": etag})
        ).status_code == 304
    for path in [
        "/portal/static/nope.js",
        "/portal/static/..%2Fembed.py",
        "/portal/static/",
        "/portal/pages/inbox.html",
    ]:
        assert (await app_client.get(path)).status_code == 404, path


async def test_sign_in_shows_the_overview_and_creates_an_embed_link(
    app_client: httpx.AsyncClient, base_url: str, tenant: TenantFixture, page: Any, screenshots: Any
) -> None:
    await page.goto(f"{base_url}/portal")
    await page.locator("#signin-key").fill("gsk_live_" + "x" * 43)
    await page.locator("#signin-form button[type=submit]").click()
    await expect(page.locator("#signin-error")).to_contain_text("not valid")
    await expect(page.locator("#main")).to_be_hidden()

    await sign_in(page, base_url, tenant.live_key, "/portal")
    # The key lives in this tab's sessionStorage only, never in the address or a cookie.
    assert tenant.live_key not in page.url
    assert await page.evaluate("sessionStorage.getItem('sb.apiKey')") == tenant.live_key
    assert await page.context.cookies() == []
    await expect(page.locator("#whoami")).to_contain_text(tenant.live_key[:13])
    await expect(page.locator("#whoami")).not_to_contain_text(tenant.live_key)
    for figure in ("conversations", "muted", "failed", "webhooks"):
        await expect(page.locator(f"[data-figure={figure}]")).to_have_text("0")

    await page.locator("#embed-ral").check()
    await page.locator("#embed-form button[type=submit]").click()
    await expect(page.locator("#embed-url")).to_contain_text(f"{base_url}/portal/inbox#embed=")
    await screenshots(page, "home")

    # Another page of the console is signed in too; signing out forgets the key.
    await page.locator("#nav a[href='/portal/agents']").click()
    await expect(page.locator("#threads-empty")).to_be_visible()
    await page.locator("#sign-out").click()
    await expect(page.locator("#signin")).to_be_visible()
    assert await page.evaluate("sessionStorage.getItem('sb.apiKey')") is None


async def test_a_sandbox_key_cannot_issue_embed_links_from_the_console(
    base_url: str, tenant: TenantFixture, page: Any
) -> None:
    await sign_in(page, base_url, tenant.test_key, "/portal")
    await page.locator("#embed-form button[type=submit]").click()
    await expect(page.locator("#embed-error")).to_contain_text("LIVE_KEY_REQUIRED")


def test_the_dev_banner_names_the_portal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SWITCHBOARD_ADMIN_KEY", "adm_banner_test")
    demo = {"tenant_id": "ten_1", "live_key": "gsk_live_k", "test_key": "gsk_test_k", "phone_id": "pn_1"}
    text = banner({**demo, "phone_number_id": "1"}, api="http://127.0.0.1:8000", sim="http://127.0.0.1:8100")
    assert "Portal           http://127.0.0.1:8000/portal" in text
