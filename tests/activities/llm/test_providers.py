"""The provider registry builds adapters from explicit configuration only."""

from __future__ import annotations

import pytest

from switchboard.activities.llm.anthropic_adapter import AnthropicAdapter
from switchboard.activities.llm.errors import ProviderNotConfigured
from switchboard.activities.llm.google_adapter import GoogleAdapter
from switchboard.activities.llm.mistral_adapter import MistralAdapter
from switchboard.activities.llm.openai_adapter import OpenAIAdapter
from switchboard.activities.llm.providers import (
    BUILTIN_PROVIDERS,
    ProviderEndpoint,
    ProviderRegistry,
    ProvidersConfig,
)
from switchboard.models.llm import LlmRequest, UserMessage
from tests.fakes import openai_server
from tests.fakes.scripting import FakeProvider, TextReply
from tests.support.http_server import serve_app

ALL_KEYS = ProvidersConfig(
    anthropic=ProviderEndpoint("a-key"),
    openai=ProviderEndpoint("o-key"),
    google=ProviderEndpoint("g-key"),
    mistral=ProviderEndpoint("m-key"),
)


@pytest.mark.parametrize(
    ("provider", "adapter_class"),
    [
        ("anthropic", AnthropicAdapter),
        ("openai", OpenAIAdapter),
        ("google", GoogleAdapter),
        ("mistral", MistralAdapter),
    ],
)
async def test_each_builtin_is_built_once_and_reused(provider: str, adapter_class: type) -> None:
    registry = ProviderRegistry(ALL_KEYS)
    try:
        adapter = registry.adapter(provider)
        assert isinstance(adapter, adapter_class)
        assert adapter.name == provider
        assert registry.adapter(provider) is adapter
    finally:
        await registry.aclose()


def test_the_four_builtins_are_registered_in_order() -> None:
    registry = ProviderRegistry(ProvidersConfig())
    assert registry.names == BUILTIN_PROVIDERS == ("anthropic", "openai", "google", "mistral")


def test_a_provider_without_a_key_is_not_configured() -> None:
    registry = ProviderRegistry(ProvidersConfig(openai=ProviderEndpoint("o-key")))
    assert registry.is_configured("openai") is True
    assert registry.is_configured("anthropic") is False
    with pytest.raises(ProviderNotConfigured) as caught:
        registry.adapter("anthropic")
    assert caught.value.retryable is False


def test_an_unknown_provider_is_refused() -> None:
    registry = ProviderRegistry(ALL_KEYS)
    with pytest.raises(KeyError, match="cohere"):
        registry.adapter("cohere")


def test_keys_are_not_shown_in_the_config_repr() -> None:
    assert "o-key" not in repr(ALL_KEYS)


async def test_the_configured_base_url_is_used() -> None:
    fake = FakeProvider()
    fake.script(TextReply("from the fake"))
    async with serve_app(openai_server.build_app(fake)) as url:
        registry = ProviderRegistry(
            ProvidersConfig(openai=ProviderEndpoint("o-key", f"{url}/v1"), timeout_seconds=5)
        )
        try:
            response = await registry.adapter("openai").complete(
                LlmRequest(model="gpt-4.1-mini", messages=[UserMessage(text="hi")])
            )
        finally:
            await registry.aclose()
    assert response.text == "from the fake"
    assert fake.requests[0].headers["authorization"] == "Bearer o-key"
