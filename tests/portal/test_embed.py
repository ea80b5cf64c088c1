"""Embedding the inbox: signed links in an iframe on another origin, the session they open, and refusals.

The browser tests use a host page on its own loopback port (another origin,
the same site, as a local setup is); the API tests check the rules of the
link, the session cookie and the inbox API behind it.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from playwright.async_api import expect

from switchboard.api.portal import tokens
from switchboard.settings import Settings
from tests.conftest import ADMIN_KEY
from tests.e2e.agents.support import eventually, say, text_envelope
from tests.fixtures.channel import PHONE_NUMBER_ID, USER_PHONE
from tests.portal.support import api_get, now_stamp, outbound_with_source
from tests.support.fake_channel import FakeChannel
from tests.support.http_server import serve_app
from tests.support.inbound import text_payload
from tests.support.tenants import TenantFixture

ADMIN = {"X-Admin-Key": ADMIN_KEY}


async def _link(client: httpx.AsyncClient, tenant: TenantFixture, **body: Any) -> dict[str, Any]:
    response = await client.post("/v1/inbox-embed/links", json=body, headers=tenant.headers())
    assert response.status_code == 201, response.text
    return dict(response.json())


def _token(url: str) -> str:
    return url.split("#embed=", 1)[1]


@pytest.fixture
async def host() -> AsyncIterator[dict[str, Any]]:
    """A customer's own web page (another origin) that frames whatever URL it is given."""
    frames: dict[str, str] = {}
    app = FastAPI()

    @app.get("/support")
    async def support_page() -> HTMLResponse:
        return HTMLResponse(
            "<!doctype html><title>Acme support</title>"
            "<h1>Acme clinic · support desk</h1>"
            f'<iframe id="inbox" src="{frames["src"]}" width="1200" height="640"></iframe>'
        )

    async with serve_app(app) as url:
        yield {"url": url, "frames": frames}


async def test_a_signed_link_opens_the_inbox_in_an_iframe_and_replies_anonymously(
    app_client: httpx.AsyncClient,
    base_url: str,
    bound_tenant: TenantFixture,
    channel: FakeChannel,
    host: dict[str, Any],
    page: Any,
    browser: Any,
    screenshots: Any,
) -> None:
    await say(app_client, now_stamp(text_envelope("Hola, ¿me confirman el turno del martes?")))
    link = await _link(app_client, bound_tenant)
    assert link["url"].startswith(f"{base_url}/portal/inbox#embed=")
    assert bound_tenant.live_key not in link["url"]
    host["frames"]["src"] = link["url"]

    await page.goto(f"{host['url']}/support")
    inbox = page.frame_locator("#inbox")
    item = inbox.locator(".conv-item").first
    await expect(item.locator(".name")).to_have_text("Test Name")
    # An embedded inbox: no console navigation, and the token is gone from the frame's address.
    await expect(inbox.locator("body.embedded")).to_have_count(1)
    await expect(inbox.locator("#nav")).to_be_hidden()
    [frame] = [f for f in page.frames if f.url.startswith(base_url)]
    assert "embed=" not in frame.url, frame.url
    cookies = await browser.cookies()
    assert [(c["name"], c["httpOnly"], c["path"], c["sameSite"]) for c in cookies] == [
        ("sb_inbox", True, "/portal/inbox", "Lax")
    ]

    await item.click()
    await expect(inbox.locator("#messages .msg.inbound")).to_contain_text("confirman el turno")
    await inbox.locator("#reply-text").fill("Sí, confirmado: martes 10:00.")
    await inbox.locator("#reply-send").click()
    sent = inbox.locator("#messages .msg[data-source=HUMAN_EMBED_ANONYMOUS]")
    await expect(sent.locator(".ticks")).to_have_attribute("data-status", "sent")
    await screenshots(page, "embed")
    [message] = await outbound_with_source(app_client, bound_tenant, "HUMAN_EMBED_ANONYMOUS")
    assert message["sent_by"] is None
    assert channel.sends_to(USER_PHONE)[-1]["text"]["body"] == "Sí, confirmado: martes 10:00."

    # A reload keeps the session (the cookie), though the address no longer has the token.
    await page.reload()
    await expect(page.frame_locator("#inbox").locator(".conv-item .name")).to_have_text("Test Name")


async def test_an_agent_login_link_makes_every_reply_human_portal(
    app_client: httpx.AsyncClient,
    base_url: str,
    bound_tenant: TenantFixture,
    page: Any,
) -> None:
    await say(app_client, now_stamp(text_envelope("¿Tienen turno hoy?")))
    link = await _link(app_client, bound_tenant, requireAgentLogin=True, phone_number_id=PHONE_NUMBER_ID)
    assert (link["requireAgentLogin"], link["phone_number_id"]) == (True, PHONE_NUMBER_ID)

    await page.goto(link["url"])
    await page.locator(".conv-item").first.click()
    await expect(page.locator("#agent-login")).to_be_visible()
    await page.locator("#agent-name").fill("marta")
    await page.locator("#agent-save").click()
    await page.locator("#reply-text").fill("Hoy a las 17, ¿te sirve?")
    await page.locator("#reply-send").click()
    await expect(page.locator("#messages .msg[data-source=HUMAN_PORTAL] .ticks")).to_have_attribute(
        "data-status", "sent"
    )
    [message] = await outbound_with_source(app_client, bound_tenant, "HUMAN_PORTAL")
    assert message["sent_by"] == "marta"

    # The page cannot lift the link's requirement: a reply without an agent is refused.
    csrf = await page.evaluate("JSON.parse(sessionStorage.getItem('sb.embed')).csrf")
    refused = await page.evaluate(
        """async ([id, csrf]) => {
            const r = await fetch(`/portal/inbox/api/conversations/${id}/messages`, {
                method: "POST",
                headers: {"Content-Type": "application/json", "X-Portal-CSRF": csrf},
                body: JSON.stringify({text: "sneaky", requireAgentLogin: false}),
            });
            return [r.status, (await r.json()).code];
        }""",
        [message["conversation_id"], csrf],
    )
    assert refused == [400, "MISSING_REQUIRED_FIELD"]


async def test_expired_and_forged_links_are_refused(
    app_client: httpx.AsyncClient,
    base_url: str,
    settings: Settings,
    bound_tenant: TenantFixture,
    new_page: Any,
    browser: Any,
) -> None:
    genuine = _token((await _link(app_client, bound_tenant))["url"])
    body, signature = genuine.split(".")
    forged = f"{body}.{'A' if signature[0] != 'A' else 'B'}{signature[1:]}"
    claims = tokens.verify(settings.secrets_key_bytes, genuine, typ=tokens.LINK, now=int(time.time()))
    expired, _ = tokens.issue(
        settings.secrets_key_bytes,
        typ=tokens.LINK,
        tenant_id=claims.tid,
        key_id=claims.kid,
        require_agent_login=False,
        phone_number_id=None,
        now=int(time.time()) - 1000,
        ttl_seconds=900,
    )
    other_secret, _ = tokens.issue(
        b"\x02" * 32,
        typ=tokens.LINK,
        tenant_id=claims.tid,
        key_id=claims.kid,
        require_agent_login=False,
        phone_number_id=None,
        now=int(time.time()),
        ttl_seconds=900,
    )
    for token, shown, code in [
        (forged, "not valid", "INVALID_EMBED_TOKEN"),
        (other_secret, "not valid", "INVALID_EMBED_TOKEN"),
        (expired, "expired", "EXPIRED_EMBED_TOKEN"),
    ]:
        page = await new_page()
        await page.goto(f"{base_url}/portal/inbox#embed={token}")
        await expect(page.locator("#fatal")).to_contain_text(shown)
        await expect(page.locator("#main")).to_be_hidden()
        response = await app_client.post("/portal/inbox/session", json={"token": token})
        assert (response.status_code, response.json()["code"]) == (401, code)
        await page.close()
    assert await browser.cookies() == []


async def test_links_need_a_live_owner_or_admin_key(
    app_client: httpx.AsyncClient, bound_tenant: TenantFixture, other_tenant: TenantFixture
) -> None:
    for key, status, code in [
        (bound_tenant.test_key, 403, "LIVE_KEY_REQUIRED"),
        (bound_tenant.member_key, 403, "ROLE_FORBIDDEN"),
        (None, 401, "INVALID_API_KEY"),
    ]:
        headers = {"X-API-Key": key} if key else {}
        response = await app_client.post("/v1/inbox-embed/links", json={}, headers=headers)
        assert (response.status_code, response.json().get("code")) == (status, code), response.text
    for body, status in [
        ({"ttl_seconds": 3601}, 400),
        ({"ttl_seconds": 59}, 400),
        ({"phone_number_id": other_tenant.phone_number_id}, 403),
        ({"url": "https://evil.example"}, 400),
    ]:
        response = await app_client.post("/v1/inbox-embed/links", json=body, headers=bound_tenant.headers())
        assert response.status_code == status, (body, response.text)


async def test_the_session_is_scoped_to_its_tenant_number_and_key(
    app_client: httpx.AsyncClient,
    base_url: str,
    bound_tenant: TenantFixture,
    other_tenant: TenantFixture,
) -> None:
    # One conversation on each of the tenant's two numbers, one on another tenant's.
    await say(app_client, now_stamp(text_envelope("on the clinic's number")))
    own = json.loads(text_payload("wamid.portal.own1", phone_number_id=bound_tenant.phone_number_id))
    own["entry"][0]["id"] = bound_tenant.waba_id
    await say(app_client, json.dumps(own).encode())
    key = await app_client.post(
        f"/v1/admin/tenants/{bound_tenant.id}/api-keys", json={"mode": "live", "role": "admin"}, headers=ADMIN
    )
    assert key.status_code == 201, key.text

    async def conversations(tenant: TenantFixture) -> list[dict[str, Any]]:
        return list((await api_get(app_client, tenant, "/v1/inbox-embed/conversations"))["data"])

    both = await eventually(lambda: _at_least(conversations(bound_tenant), 2))
    by_phone = {c["phone_number_id"]: c for c in both}
    admin = TenantFixture(**{**bound_tenant.__dict__, "live_key": key.json()["key"]})
    link = await _link(app_client, admin, phone_number_id=PHONE_NUMBER_ID)

    async with httpx.AsyncClient(base_url=base_url) as browser_like:
        opened = await browser_like.post("/portal/inbox/session", json={"token": _token(link["url"])})
        assert opened.status_code == 200, opened.text
        cookie = opened.headers["set-cookie"].lower()
        assert "httponly" in cookie and "path=/portal/inbox" in cookie and "samesite=lax" in cookie
        assert "secure" not in cookie  # plain http on loopback; https adds Secure, SameSite=None, Partitioned
        csrf = {"X-Portal-CSRF": opened.json()["csrf"]}

        listed = await browser_like.get("/portal/inbox/api/conversations", headers=csrf)
        assert [c["id"] for c in listed.json()["data"]] == [by_phone[PHONE_NUMBER_ID]["id"]]
        other_number = by_phone[bound_tenant.phone_number_id]["id"]
        for path in (f"/conversations/{other_number}", f"/conversations/{other_number}/messages"):
            assert (await browser_like.get("/portal/inbox/api" + path, headers=csrf)).status_code == 404
        archive = await browser_like.post(
            f"/portal/inbox/api/conversations/{other_number}/archive", headers=csrf
        )
        assert archive.status_code == 404

        # Without the anti-forgery header, or without the cookie, nothing is answered.
        no_csrf = await browser_like.get("/portal/inbox/api/conversations")
        assert (no_csrf.status_code, no_csrf.json()["code"]) == (403, "CSRF_CHECK_FAILED")
        async with httpx.AsyncClient(base_url=base_url) as stranger:
            no_cookie = await stranger.get("/portal/inbox/api/conversations", headers=csrf)
            assert (no_cookie.status_code, no_cookie.json()["code"]) == (401, "EMBED_SESSION_REQUIRED")

        # Another tenant's link opens another tenant's inbox only.
        theirs = await _link(app_client, other_tenant)
        async with httpx.AsyncClient(base_url=base_url) as other_browser:
            other = await other_browser.post("/portal/inbox/session", json={"token": _token(theirs["url"])})
            other_csrf = {"X-Portal-CSRF": other.json()["csrf"]}
            assert (await other_browser.get("/portal/inbox/api/conversations", headers=other_csrf)).json()[
                "data"
            ] == []
            mine = by_phone[PHONE_NUMBER_ID]["id"]
            peek = await other_browser.get(f"/portal/inbox/api/conversations/{mine}", headers=other_csrf)
            assert peek.status_code == 404
            # A session's CSRF value is bound to that session.
            crossed = await other_browser.get("/portal/inbox/api/conversations", headers=csrf)
            assert crossed.status_code == 403

        # Behind a TLS-terminating proxy (uvicorn trusts X-Forwarded-Proto from loopback) it is a
        # cross-site cookie, partitioned per embedding site.
        async with httpx.AsyncClient(base_url=base_url, headers={"X-Forwarded-Proto": "https"}) as tls:
            secure = await tls.post("/portal/inbox/session", json={"token": _token(link["url"])})
            attributes = secure.headers["set-cookie"].lower()
            assert "secure" in attributes and "samesite=none" in attributes and "partitioned" in attributes

        # Revoking the key that issued the link ends its sessions.
        revoked = await app_client.delete(f"/v1/admin/api-keys/{key.json()['id']}", headers=ADMIN)
        assert revoked.status_code == 200, revoked.text
        after = await browser_like.get("/portal/inbox/api/conversations", headers=csrf)
        assert (after.status_code, after.json()["code"]) == (401, "EMBED_KEY_REVOKED")
        again = await browser_like.post("/portal/inbox/session", json={"token": _token(link["url"])})
        assert (again.status_code, again.json()["code"]) == (401, "EMBED_KEY_REVOKED")

        # Signing out forgets the cookie.
        closed = await browser_like.delete("/portal/inbox/session")
        assert closed.status_code == 200 and "max-age=0" in closed.headers["set-cookie"].lower()
        assert not browser_like.cookies.get("sb_inbox")


async def _at_least(pending: Any, count: int) -> Any:
    rows = await pending
    return rows if len(rows) >= count else None
