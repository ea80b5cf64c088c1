"""Helpers of the portal's browser tests: signing in, customer messages with a current timestamp."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx

from tests.e2e.agents.support import eventually
from tests.fixtures.channel import load
from tests.support.tenants import TenantFixture


async def sign_in(page: Any, base_url: str, key: str, path: str = "/portal/inbox") -> None:
    """Open a portal page and type the API key into its sign-in form, as a person would."""
    await page.goto(base_url + path)
    await page.locator("#signin-key").fill(key)
    await page.locator("#signin-form button[type=submit]").click()
    await page.locator("#main").wait_for(state="visible")


def now_stamp(body: bytes) -> bytes:
    """The channel payload with its messages timestamped now (so the 24 h window is open)."""
    envelope = json.loads(body)
    for entry in envelope["entry"]:
        for change in entry["changes"]:
            for message in change["value"].get("messages", []):
                message["timestamp"] = str(int(time.time()))
    return json.dumps(envelope).encode()


def fixture_message(name: str, wamid: str) -> bytes:
    """A channel fixture (image, interactive_button_reply, ...) with a fresh id and timestamp."""
    envelope = load(name)
    envelope["entry"][0]["changes"][0]["value"]["messages"][0]["id"] = wamid
    return now_stamp(json.dumps(envelope).encode())


async def api_get(client: httpx.AsyncClient, tenant: TenantFixture, path: str, **params: Any) -> Any:
    response = await client.get(path, params=params, headers=tenant.headers())
    assert response.status_code == 200, response.text
    return response.json()


async def only_thread(client: httpx.AsyncClient, tenant: TenantFixture) -> dict[str, Any]:
    [thread] = (await api_get(client, tenant, "/v1/agent-threads"))["data"]
    return dict(thread)


async def outbound_with_source(
    client: httpx.AsyncClient, tenant: TenantFixture, source: str
) -> list[dict[str, Any]]:
    """Wait for the tenant's outbound messages sent with ``source``."""

    async def found() -> list[dict[str, Any]] | None:
        data = (await api_get(client, tenant, "/v1/messages", direction="outbound", per_page=100))["data"]
        return [m for m in data if m["source"] == source] or None

    return list(await eventually(found))
