"""The portal's pages and static files, served by the API itself (no front-end build step).

Pages are static HTML shells; plain ES modules under /portal/static fill them
from the JSON API. Nothing tenant-specific (let alone a key) is ever rendered
into a page. Every page answers with a strict Content-Security-Policy (scripts,
styles and connections from this origin only, no inline code); the inbox may
be framed by any site (``frame-ancestors *``), the console pages by none.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from switchboard.domain.errors import NotFound

STATIC_DIR = Path(__file__).parent / "static"
PAGES_DIR = Path(__file__).parent / "pages"
_STATIC_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*\.(js|css|svg)$")
_TYPES = {
    "js": "text/javascript; charset=utf-8",
    "css": "text/css; charset=utf-8",
    "svg": "image/svg+xml",
}

router = APIRouter(prefix="/portal", include_in_schema=False)


def content_security_policy(*, framable: bool) -> str:
    """The CSP of a portal page: same-origin everything, no inline code; framing only where allowed."""
    return "; ".join(
        [
            "default-src 'none'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data: blob:",
            "connect-src 'self'",
            "font-src 'self'",
            "form-action 'none'",
            "base-uri 'none'",
            "require-trusted-types-for 'script'",
            "trusted-types 'none'",
            "frame-ancestors *" if framable else "frame-ancestors 'none'",
        ]
    )


def security_headers(*, framable: bool) -> dict[str, str]:
    """Headers of every portal page."""
    headers = {
        "Content-Security-Policy": content_security_policy(framable=framable),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store",
        "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
    }
    if not framable:
        headers["X-Frame-Options"] = "DENY"
        headers["Cross-Origin-Opener-Policy"] = "same-origin"
    return headers


@dataclass(frozen=True)
class Asset:
    body: bytes
    media_type: str
    etag: str


def _load_assets() -> dict[str, Asset]:
    assets = {}
    for path in sorted(STATIC_DIR.iterdir()):
        match = _STATIC_NAME.match(path.name)
        if match and path.is_file():
            body = path.read_bytes()
            etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
            assets[path.name] = Asset(body, _TYPES[match.group(1)], etag)
    return assets


# Read once at import: the files ship with the package and never change while it runs.
_ASSETS = _load_assets()

# page -> (title, may be framed by other sites); each has pages/<page>.html and static/<page>.js.
_PAGES = {
    "inbox": ("Inbox", True),
    "agents": ("Agents", False),
    "messages": ("Failed messages", False),
    "webhooks": ("Webhooks", False),
    "home": ("Overview", False),
}
_NAV = [("inbox", "Inbox"), ("agents", "Agents"), ("messages", "Messages"), ("webhooks", "Webhooks")]


def render_page(name: str) -> str:
    """The full HTML of one page: head, console navigation, the page's body and its module."""
    title, _ = _PAGES[name]
    body = (PAGES_DIR / f"{name}.html").read_text()
    links = "".join(
        f'<a href="/portal/{slug}"{" aria-current=page" if slug == name else ""}>{label}</a>'
        for slug, label in _NAV
    )
    css = _ASSETS["portal.css"].etag.strip('"')
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>{title} · Switchboard</title>
<link rel="stylesheet" href="/portal/static/portal.css?v={css}">
<script type="module" src="/portal/static/{name}.js?v={_ASSETS[name + ".js"].etag.strip('"')}"></script>
</head>
<body data-page="{name}">
<header class="topbar" id="topbar">
  <a class="brand" href="/portal">Switchboard</a>
  <nav class="nav" id="nav">{links}</nav>
  <span class="whoami" id="whoami"></span>
  <button type="button" class="link" id="sign-out" hidden>Sign out</button>
</header>
<section class="panel signin" id="signin" hidden>
  <h1>Sign in with an API key</h1>
  <p>Paste one of your tenant's API keys. It stays in this browser tab only (sessionStorage) and is sent
  to the API in the <code>X-API-Key</code> header, never in a URL.</p>
  <form id="signin-form" autocomplete="off">
    <label for="signin-key">API key</label>
    <input id="signin-key" name="key" type="password" spellcheck="false" placeholder="gsk_live_..." required>
    <button type="submit" class="primary">Sign in</button>
    <p class="error" id="signin-error" role="alert"></p>
  </form>
</section>
<main id="main" hidden>
{body}
</main>
<div class="toast" id="toast" role="status" aria-live="polite" hidden></div>
</body>
</html>
"""


# Rendered once at import, like the assets: the pages are the same for everyone.
_HTML = {name: render_page(name) for name in _PAGES}


def _page(name: str) -> Response:
    _, framable = _PAGES[name]
    return Response(_HTML[name], media_type="text/html", headers=security_headers(framable=framable))


@router.get("")
async def portal_root() -> Response:
    """The console's front door: sign in, then pick a page."""
    return _page("home")


@router.get("/")
async def portal_root_slash() -> RedirectResponse:
    return RedirectResponse("/portal", status_code=308)


@router.get("/inbox")
async def inbox_page() -> Response:
    """The inbox: conversations, threads and replies. May be framed by any site."""
    return _page("inbox")


@router.get("/agents")
async def agents_page() -> Response:
    """Agent threads (mute state, reactivate, reset) and runs with their steps."""
    return _page("agents")


@router.get("/messages")
async def messages_page() -> Response:
    """Failed messages and their bulk retry."""
    return _page("messages")


@router.get("/webhooks")
async def webhooks_page() -> Response:
    """Webhook endpoints: health, test event, reactivation."""
    return _page("webhooks")


@router.get("/static/{name}")
async def static_file(name: str, request: Request) -> Response:
    """One of the portal's own files (a fixed set, read at start-up)."""
    asset = _ASSETS.get(name)
    if asset is None:
        raise NotFound("file", name)
    headers = {
        "ETag": asset.etag,
        "Cache-Control": "no-cache",
        "X-Content-Type-Options": "nosniff",
        "Cross-Origin-Resource-Policy": "same-origin",
    }
    if request.headers.get("if-none-match") == asset.etag:
        return Response(status_code=304, headers=headers)
    return Response(asset.body, media_type=asset.media_type, headers=headers)
