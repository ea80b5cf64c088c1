"""The portal in a real browser: the service on a real uvicorn port, a real worker, fakes on loopback.

Debian's headless Chromium (``/usr/bin/chromium``, installed by ``make test``)
is driven by Playwright's Python package pointed at that binary; nothing is
downloaded at run time. Each test gets a fresh browser profile, and fails on
any uncaught page error or Content-Security-Policy violation.

Set ``PORTAL_SCREENSHOTS=docs/img`` to write the documentation's screenshots.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from switchboard.api.app import create_app
from switchboard.settings import Settings
from tests.e2e.agents.support import API_KEY, PROVIDERS, ToolServer
from tests.fakes.scripting import FakeProvider
from tests.support.fake_channel import FakeChannel
from tests.support.http_server import bound_socket
from tests.support.inbound import provision_fixture_number
from tests.support.tenants import TenantFixture

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Generous for a loaded 2-core CI machine; every wait is on a condition, never a fixed sleep.
TIMEOUT_MS = 20_000


def _require_chromium() -> None:
    if not Path(CHROMIUM).exists():
        message = f"{CHROMIUM} is missing: `make test` installs Debian's chromium (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture(scope="session")
async def playwright() -> AsyncIterator[Any]:
    _require_chromium()
    from playwright.async_api import async_playwright, expect

    expect.set_options(timeout=TIMEOUT_MS)
    manager = await async_playwright().start()
    yield manager
    await manager.stop()


@pytest.fixture
async def browser(playwright: Any) -> AsyncIterator[Any]:
    """A Chromium with a fresh profile (its own user-data-dir) for this test."""
    profile = tempfile.mkdtemp(prefix="portal-chromium-")
    context = await playwright.chromium.launch_persistent_context(
        profile,
        executable_path=CHROMIUM,
        headless=True,
        args=CHROMIUM_ARGS,
        viewport={"width": 1280, "height": 800},
        locale="en-US",
        timezone_id="UTC",
    )
    context.set_default_timeout(TIMEOUT_MS)
    try:
        yield context
    finally:
        await context.close()
        shutil.rmtree(profile, ignore_errors=True)


class PageErrors(list[str]):
    """Uncaught errors and CSP violations seen by the test's pages."""


@pytest.fixture
async def page_errors() -> PageErrors:
    return PageErrors()


@pytest.fixture
async def new_page(browser: Any, page_errors: PageErrors) -> AsyncIterator[Any]:
    """A factory of pages that record uncaught errors; the test fails if any happened."""

    async def make() -> Any:
        page = await browser.new_page()
        page.on("pageerror", lambda error: page_errors.append(f"pageerror: {error}"))

        def on_console(message: Any) -> None:
            text = message.text
            if message.type == "error" and ("Content Security Policy" in text or "Trusted" in text):
                page_errors.append(f"console: {text}")

        page.on("console", on_console)
        return page

    yield make
    assert not page_errors, page_errors


@pytest.fixture
async def page(new_page: Any) -> Any:
    return await new_page()


@asynccontextmanager
async def serving(apps: dict[str, tuple[Any, socket.socket]]) -> AsyncIterator[dict[str, str]]:
    """Serve several ASGI apps on their bound loopback sockets at once; stop them all at once."""
    servers: list[uvicorn.Server] = []
    tasks: list[asyncio.Task[None]] = []
    try:
        for app, sock in apps.values():
            port = sock.getsockname()[1]
            config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
            server = uvicorn.Server(config)
            # The test process owns signals; uvicorn must not install its own handlers.
            server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
            servers.append(server)
            tasks.append(asyncio.create_task(server.serve(sockets=[sock])))
        deadline = asyncio.get_running_loop().time() + 10
        while not all(server.started for server in servers):
            for task in tasks:
                if task.done():
                    task.result()
                    raise RuntimeError("a server of the portal stack exited while starting")
            if asyncio.get_running_loop().time() > deadline:
                raise RuntimeError("the portal stack did not start within 10 s")
            await asyncio.sleep(0.01)
        yield {name: f"http://127.0.0.1:{sock.getsockname()[1]}" for name, (_, sock) in apps.items()}
    finally:
        for server in servers:
            server.should_exit = True
        await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), timeout=10)


@pytest.fixture
def sockets() -> Iterator[dict[str, socket.socket]]:
    """Loopback sockets of the service and the fakes, bound up front so settings can name their ports.

    Held bound until the servers listen on them: a port only picked here and bound later could be
    taken in between (CI runs two suites side by side), which failed every test of the session.
    """
    bound = {name: bound_socket() for name in ("app", "anthropic", "channel", "tools")}
    try:
        yield bound
    finally:
        for sock in bound.values():
            sock.close()


@pytest.fixture
def ports(sockets: dict[str, socket.socket]) -> dict[str, int]:
    """The loopback ports of the service and the fakes."""
    return {name: int(sock.getsockname()[1]) for name, sock in sockets.items()}


@pytest.fixture
def fakes() -> dict[str, Any]:
    """The fake Anthropic API, the fake upstream channel and the tenant's tool server."""
    return {"anthropic": FakeProvider(), "channel": FakeChannel(), "tools": ToolServer()}


@pytest.fixture
def settings(settings: Settings, ports: dict[str, int]) -> Settings:
    """This test's settings: the fakes, the served URL as the public base URL, a short debounce."""
    loopback = {name: f"http://127.0.0.1:{port}" for name, port in ports.items()}
    return settings.model_copy(
        update={
            "channel_api_base_url": loopback["channel"],
            "anthropic_api_key": API_KEY,
            "anthropic_base_url": loopback["anthropic"] + PROVIDERS["anthropic"][2],
            "openai_api_key": None,
            "gemini_api_key": None,
            "mistral_api_key": None,
            "public_base_url": loopback["app"],
            "agent_debounce_seconds": 0.3,
            "agent_turn_sweep_after_seconds": 1.0,
            "send_wait_seconds": 10.0,
        }
    )


@pytest.fixture
async def base_url(
    settings: Settings, sockets: dict[str, socket.socket], fakes: dict[str, Any]
) -> AsyncIterator[str]:
    """The API on a real uvicorn on 127.0.0.1 (the browser's server), with the fakes beside it."""
    build_provider = PROVIDERS["anthropic"][0]
    apps = {
        "app": (create_app(settings), sockets["app"]),
        "anthropic": (build_provider(fakes["anthropic"]), sockets["anthropic"]),
        "channel": (fakes["channel"].app(), sockets["channel"]),
        "tools": (fakes["tools"].app(), sockets["tools"]),
    }
    async with serving(apps) as urls:
        yield urls["app"]


@pytest.fixture
async def app_client(base_url: str) -> AsyncIterator[httpx.AsyncClient]:
    """The tests' own client talks to the same real server as the browser."""
    async with httpx.AsyncClient(base_url=base_url, timeout=30.0) as client:
        yield client


@pytest.fixture
def channel(fakes: dict[str, Any]) -> FakeChannel:
    return fakes["channel"]  # type: ignore[no-any-return]


@pytest.fixture
def anthropic(fakes: dict[str, Any]) -> FakeProvider:
    return fakes["anthropic"]  # type: ignore[no-any-return]


@pytest.fixture
def tools_url(ports: dict[str, int], base_url: str) -> str:
    return f"http://127.0.0.1:{ports['tools']}"


@pytest.fixture
async def bound_tenant(app_client: httpx.AsyncClient, tenant: TenantFixture, worker: Any) -> TenantFixture:
    """A tenant owning the channel fixtures' business number, with a running worker."""
    await provision_fixture_number(app_client, tenant)
    return tenant


@pytest.fixture
def screenshots() -> Any:
    """Save a page's screenshot into PORTAL_SCREENSHOTS (the docs' images) when that is set."""
    target = os.environ.get("PORTAL_SCREENSHOTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)

    async def shoot(page: Any, name: str, *, full_page: bool = False) -> None:
        if not target:
            return
        # The toast is a passing notice; keep it out of the documentation's pictures.
        await page.evaluate(
            "document.getElementById('toast') && (document.getElementById('toast').hidden = true)"
        )
        await page.screenshot(path=str(Path(target) / f"portal-{name}.png"), full_page=full_page)

    return shoot
