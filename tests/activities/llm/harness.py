"""Each provider's adapter wired to its fake server on a loopback port."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from switchboard.activities.llm.anthropic_adapter import AnthropicAdapter
from switchboard.activities.llm.base import ProviderAdapter
from switchboard.activities.llm.google_adapter import GoogleAdapter
from switchboard.activities.llm.mistral_adapter import MistralAdapter
from switchboard.activities.llm.openai_adapter import OpenAIAdapter
from tests.fakes import anthropic_server, gemini_server, mistral_server, openai_server
from tests.fakes.scripting import FakeProvider
from tests.support.http_server import serve_app

API_KEY = "sk-test-key"


@dataclass(frozen=True)
class ProviderSetup:
    build_app: Callable[[FakeProvider], Any]
    adapter: Callable[..., ProviderAdapter]
    base_url: Callable[[str], str]
    model: str


SETUPS: dict[str, ProviderSetup] = {
    "anthropic": ProviderSetup(
        anthropic_server.build_app, AnthropicAdapter, lambda url: url, "claude-haiku-4-5"
    ),
    # The OpenAI SDK appends /chat/completions to a base URL that already ends in /v1.
    "openai": ProviderSetup(openai_server.build_app, OpenAIAdapter, lambda url: f"{url}/v1", "gpt-4.1-mini"),
    "google": ProviderSetup(gemini_server.build_app, GoogleAdapter, lambda url: url, "gemini-2.5-flash"),
    "mistral": ProviderSetup(
        mistral_server.build_app, MistralAdapter, lambda url: url, "mistral-small-latest"
    ),
}


@dataclass
class Harness:
    provider: str
    fake: FakeProvider
    adapter: ProviderAdapter
    model: str


@asynccontextmanager
async def open_harness(provider: str, *, timeout_seconds: float = 10.0) -> AsyncIterator[Harness]:
    """Serve ``provider``'s fake and yield an adapter pointed at it through the official SDK."""
    setup = SETUPS[provider]
    fake = FakeProvider()
    async with serve_app(setup.build_app(fake)) as url:
        adapter = setup.adapter(API_KEY, setup.base_url(url), timeout_seconds=timeout_seconds)
        try:
            yield Harness(provider=provider, fake=fake, adapter=adapter, model=setup.model)
        finally:
            await adapter.aclose()
