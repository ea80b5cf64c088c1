"""Turn each provider's usage object into four disjoint token counts.

Anthropic reports cache reads and writes outside ``input_tokens``; OpenAI,
Gemini and Mistral count cached tokens inside the prompt count. Pricing needs
disjoint dimensions, so uncached input is what remains after the cached parts
are taken out. These functions read the raw usage JSON (as kept on every
model call), so a stored call can be normalised again when the rules change.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from switchboard.models.llm import LlmUsage


def _count(data: Mapping[str, Any] | None, *keys: str) -> int:
    # Providers omit or null absent counts; the first key present wins so both
    # wire (camelCase) and SDK (snake_case) spellings are read.
    if not data:
        return 0
    for key in keys:
        value = data.get(key)
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            return max(0, value)
        if isinstance(value, float) and value.is_integer():
            return max(0, int(value))
    return 0


def _details(data: Mapping[str, Any], *keys: str) -> Mapping[str, Any] | None:
    for key in keys:
        value = data.get(key)
        if isinstance(value, Mapping):
            return value
    return None


def anthropic_usage(raw: Mapping[str, Any]) -> LlmUsage:
    """Anthropic Messages: cache reads and writes are reported beside ``input_tokens``."""
    return LlmUsage(
        input_tokens=_count(raw, "input_tokens"),
        output_tokens=_count(raw, "output_tokens"),
        cache_read_tokens=_count(raw, "cache_read_input_tokens"),
        cache_write_tokens=_count(raw, "cache_creation_input_tokens"),
        raw=dict(raw),
    )


def openai_usage(raw: Mapping[str, Any]) -> LlmUsage:
    """OpenAI Chat Completions: cached and written tokens are subsets of ``prompt_tokens``."""
    details = _details(raw, "prompt_tokens_details")
    prompt = _count(raw, "prompt_tokens")
    cache_read = _count(details, "cached_tokens")
    cache_write = _count(details, "cache_write_tokens")
    return LlmUsage(
        input_tokens=max(0, prompt - cache_read - cache_write),
        output_tokens=_count(raw, "completion_tokens"),
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
        raw=dict(raw),
    )


def google_usage(raw: Mapping[str, Any]) -> LlmUsage:
    """Gemini: cached content is inside the prompt count; thoughts are billed as output."""
    prompt = _count(raw, "promptTokenCount", "prompt_token_count") + _count(
        raw, "toolUsePromptTokenCount", "tool_use_prompt_token_count"
    )
    cache_read = _count(raw, "cachedContentTokenCount", "cached_content_token_count")
    output = _count(raw, "candidatesTokenCount", "candidates_token_count") + _count(
        raw, "thoughtsTokenCount", "thoughts_token_count"
    )
    return LlmUsage(
        input_tokens=max(0, prompt - cache_read),
        output_tokens=output,
        cache_read_tokens=cache_read,
        cache_write_tokens=0,
        raw=dict(raw),
    )


def mistral_usage(raw: Mapping[str, Any]) -> LlmUsage:
    """Mistral: cached tokens (``prompt_tokens_details.cached_tokens``) are inside ``prompt_tokens``."""
    details = _details(raw, "prompt_tokens_details")
    prompt = _count(raw, "prompt_tokens")
    cache_read = _count(details, "cached_tokens")
    return LlmUsage(
        input_tokens=max(0, prompt - cache_read),
        output_tokens=_count(raw, "completion_tokens"),
        cache_read_tokens=cache_read,
        cache_write_tokens=0,
        raw=dict(raw),
    )


USAGE_NORMALIZERS: Mapping[str, Callable[[Mapping[str, Any]], LlmUsage]] = {
    "anthropic": anthropic_usage,
    "openai": openai_usage,
    "google": google_usage,
    "mistral": mistral_usage,
}


def normalize_usage(provider: str, raw: Mapping[str, Any] | None) -> LlmUsage:
    """Four disjoint token counts from a provider's raw usage object (missing usage counts as zero)."""
    try:
        normalizer = USAGE_NORMALIZERS[provider]
    except KeyError:
        raise ValueError(f"no usage rules for provider {provider!r}") from None
    return normalizer(raw or {})
