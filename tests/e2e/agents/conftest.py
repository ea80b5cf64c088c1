"""Fixtures of the agent end-to-end tests: every external party on loopback, a real worker."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from typing import Any

import httpx
import pytest

from tests.e2e.agents.support import API_KEY, PROVIDERS, SETTINGS_KEYS, ToolServer
from tests.fakes.scripting import FakeProvider
from tests.support.fake_channel import FakeChannel
from tests.support.http_server import serve_app
from tests.support.inbound import provision_fixture_number
from tests.support.tenants import TenantFixture


@pytest.fixture
async def externals() -> AsyncIterator[dict[str, Any]]:
    """The fake providers, channel and tool server, each on its own loopback port."""
    async with AsyncExitStack() as stack:
        fakes: dict[str, FakeProvider] = {}
        urls: dict[str, str] = {}
        for provider, (build, _model, suffix) in PROVIDERS.items():
            fakes[provider] = FakeProvider()
            urls[provider] = await stack.enter_async_context(serve_app(build(fakes[provider]))) + suffix
        channel = FakeChannel()
        channel_url = await stack.enter_async_context(serve_app(channel.app()))
        tools = ToolServer()
        tools_url = await stack.enter_async_context(serve_app(tools.app()))
        yield {
            "fakes": fakes,
            "urls": urls,
            "channel": channel,
            "channel_url": channel_url,
            "tools": tools,
            "tools_url": tools_url,
        }


@pytest.fixture
def settings(settings, externals):  # type: ignore[no-untyped-def]
    """This test's settings, pointed at the fakes, with a short debounce."""
    update: dict[str, Any] = {
        "channel_api_base_url": externals["channel_url"],
        "agent_debounce_seconds": 0.3,
        "agent_turn_sweep_after_seconds": 1.0,
    }
    for provider, (key_field, url_field) in SETTINGS_KEYS.items():
        update[key_field] = API_KEY
        update[url_field] = externals["urls"][provider]
    return settings.model_copy(update=update)


@pytest.fixture
def fakes(externals: dict[str, Any]) -> dict[str, FakeProvider]:
    return dict(externals["fakes"])


@pytest.fixture
def channel(externals: dict[str, Any]) -> FakeChannel:
    return externals["channel"]  # type: ignore[no-any-return]


@pytest.fixture
def tools(externals: dict[str, Any]) -> ToolServer:
    return externals["tools"]  # type: ignore[no-any-return]


@pytest.fixture
def tools_url(externals: dict[str, Any]) -> str:
    return str(externals["tools_url"])


@pytest.fixture
async def bound_tenant(app_client: httpx.AsyncClient, tenant: TenantFixture, worker: Any) -> TenantFixture:
    """A tenant with the channel fixtures' business number and a running worker."""
    await provision_fixture_number(app_client, tenant)
    return tenant
