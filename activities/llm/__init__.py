"""Model providers: adapters over the official SDKs, the provider registry and rate cards."""

from __future__ import annotations

from activities.llm.base import ProviderAdapter
from activities.llm.catalog import provider_catalog
from activities.llm.errors import (
    ProviderAuthError,
    ProviderBadRequest,
    ProviderBadResponse,
    ProviderError,
    ProviderNotConfigured,
    ProviderOverloaded,
    ProviderRateLimited,
    ProviderTimeout,
    ProviderUnavailable,
    as_application_error,
)
from activities.llm.rate_cards import (
    RateCardBook,
    RateCardFileInvalid,
    UnknownModel,
    UnknownProvider,
    load_rate_cards,
)
from activities.llm.registry import BUILTIN_PROVIDERS, ProviderEndpoint, ProviderRegistry, ProvidersConfig
from activities.llm.usage import normalize_usage

__all__ = [
    "BUILTIN_PROVIDERS",
    "ProviderAdapter",
    "ProviderAuthError",
    "ProviderBadRequest",
    "ProviderBadResponse",
    "ProviderEndpoint",
    "ProviderError",
    "ProviderNotConfigured",
    "ProviderOverloaded",
    "ProviderRateLimited",
    "ProviderRegistry",
    "ProviderTimeout",
    "ProviderUnavailable",
    "ProvidersConfig",
    "RateCardBook",
    "RateCardFileInvalid",
    "UnknownModel",
    "UnknownProvider",
    "as_application_error",
    "load_rate_cards",
    "normalize_usage",
    "provider_catalog",
]
