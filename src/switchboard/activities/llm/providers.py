"""The four built-in model providers, keyed by name, built from explicit configuration."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from switchboard.activities.llm.anthropic_adapter import AnthropicAdapter
from switchboard.activities.llm.base import DEFAULT_TIMEOUT_SECONDS, ProviderAdapter
from switchboard.activities.llm.errors import ProviderNotConfigured
from switchboard.activities.llm.google_adapter import GoogleAdapter
from switchboard.activities.llm.mistral_adapter import MistralAdapter
from switchboard.activities.llm.openai_adapter import OpenAIAdapter

BUILTIN_PROVIDERS: tuple[str, ...] = ("anthropic", "openai", "google", "mistral")

# Public endpoints used when no base URL is configured. Passing them explicitly
# keeps the SDKs from consulting environment variables or profile files.
DEFAULT_BASE_URLS: Mapping[str, str] = {
    "anthropic": "https://api.anthropic.com",
    "openai": "https://api.openai.com/v1",
    "google": "https://generativelanguage.googleapis.com",
    "mistral": "https://api.mistral.ai",
}

AdapterFactory = Callable[..., ProviderAdapter]

BUILTIN_FACTORIES: Mapping[str, AdapterFactory] = {
    "anthropic": AnthropicAdapter,
    "openai": OpenAIAdapter,
    "google": GoogleAdapter,
    "mistral": MistralAdapter,
}


@dataclass(frozen=True)
class ProviderEndpoint:
    """Key and base URL of one provider; a ``None`` base URL means the public endpoint."""

    api_key: str | None = field(default=None, repr=False)
    base_url: str | None = None


@dataclass(frozen=True)
class ProvidersConfig:
    """Keys and base URLs of the four providers, filled from settings by the composition root."""

    anthropic: ProviderEndpoint = ProviderEndpoint()
    openai: ProviderEndpoint = ProviderEndpoint()
    google: ProviderEndpoint = ProviderEndpoint()
    mistral: ProviderEndpoint = ProviderEndpoint()
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS

    def endpoint(self, provider: str) -> ProviderEndpoint:
        """The endpoint configured for ``provider``."""
        if provider not in BUILTIN_PROVIDERS:
            raise KeyError(provider)
        endpoint: ProviderEndpoint = getattr(self, provider)
        return endpoint


class ProviderRegistry:
    """Builds each provider's adapter on first use and keeps it for connection reuse."""

    def __init__(
        self, config: ProvidersConfig, *, factories: Mapping[str, AdapterFactory] | None = None
    ) -> None:
        self._config = config
        self._factories = dict(BUILTIN_FACTORIES if factories is None else factories)
        unknown = set(self._factories) - set(BUILTIN_PROVIDERS)
        if unknown:
            raise ValueError(f"only the built-in providers can be registered, not {sorted(unknown)}")
        self._adapters: dict[str, ProviderAdapter] = {}

    @property
    def names(self) -> tuple[str, ...]:
        """Registered provider names, built-ins first in their canonical order."""
        return tuple(self._factories)

    @property
    def secrets(self) -> tuple[str, ...]:
        """Every configured provider key: what must never leave an activity in an error's text."""
        keys = (self._config.endpoint(name).api_key for name in BUILTIN_PROVIDERS)
        return tuple(key for key in keys if key)

    def is_configured(self, provider: str) -> bool:
        """Whether an API key is configured for ``provider``."""
        return provider in self._factories and bool(self._config.endpoint(provider).api_key)

    def adapter(self, provider: str) -> ProviderAdapter:
        """The adapter of ``provider``; raises KeyError for an unknown name, ProviderNotConfigured without a key."""
        if provider not in self._factories:
            raise KeyError(f"unknown provider {provider!r}; known: {', '.join(self._factories)}")
        if provider not in self._adapters:
            endpoint = self._config.endpoint(provider)
            if not endpoint.api_key:
                raise ProviderNotConfigured("no API key is configured", provider=provider)
            self._adapters[provider] = self._factories[provider](
                endpoint.api_key,
                endpoint.base_url or DEFAULT_BASE_URLS[provider],
                timeout_seconds=self._config.timeout_seconds,
            )
        return self._adapters[provider]

    async def aclose(self) -> None:
        """Close every adapter built so far."""
        adapters, self._adapters = list(self._adapters.values()), {}
        for adapter in adapters:
            await adapter.aclose()


def providers_config(settings: Any) -> ProvidersConfig:
    """The four providers' keys and base URLs from the deployment's settings (CONTRACTS 2)."""
    return ProvidersConfig(
        anthropic=ProviderEndpoint(settings.anthropic_api_key, settings.anthropic_base_url),
        openai=ProviderEndpoint(settings.openai_api_key, settings.openai_base_url),
        google=ProviderEndpoint(settings.gemini_api_key, settings.google_gemini_base_url),
        mistral=ProviderEndpoint(settings.mistral_api_key, settings.mistral_base_url),
    )
