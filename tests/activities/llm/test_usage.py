"""Usage normalisation per provider, from raw usage JSON (as stored for recomputation)."""

from __future__ import annotations

from typing import Any

import pytest

from switchboard.activities.llm.usage import normalize_usage


@pytest.mark.parametrize(
    ("provider", "raw", "expected"),
    [
        pytest.param(
            "anthropic",
            {
                "input_tokens": 50,
                "output_tokens": 10,
                "cache_read_input_tokens": 900,
                "cache_creation_input_tokens": 40,
            },
            (50, 10, 900, 40),
            id="anthropic-cache-outside-input",
        ),
        pytest.param(
            "anthropic",
            {"input_tokens": 50, "output_tokens": 10, "cache_read_input_tokens": None},
            (50, 10, 0, 0),
            id="anthropic-null-cache-fields",
        ),
        pytest.param(
            "openai",
            {
                "prompt_tokens": 1000,
                "completion_tokens": 20,
                "prompt_tokens_details": {"cached_tokens": 600, "cache_write_tokens": 100},
            },
            (300, 20, 600, 100),
            id="openai-cache-inside-prompt",
        ),
        pytest.param(
            "openai",
            {"prompt_tokens": 80, "completion_tokens": 5, "prompt_tokens_details": None},
            (80, 5, 0, 0),
            id="openai-no-details",
        ),
        pytest.param(
            "openai",
            {"prompt_tokens": 10, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 50}},
            (0, 5, 50, 0),
            id="openai-inconsistent-counts-never-negative",
        ),
        pytest.param(
            "google",
            {
                "promptTokenCount": 1200,
                "toolUsePromptTokenCount": 100,
                "cachedContentTokenCount": 1000,
                "candidatesTokenCount": 30,
                "thoughtsTokenCount": 70,
            },
            (300, 100, 1000, 0),
            id="google-camel-case-wire",
        ),
        pytest.param(
            "google",
            {"prompt_token_count": 500, "cached_content_token_count": 200, "candidates_token_count": 9},
            (300, 9, 200, 0),
            id="google-snake-case-sdk",
        ),
        pytest.param(
            "mistral",
            {"prompt_tokens": 700, "completion_tokens": 12, "prompt_tokens_details": {"cached_tokens": 512}},
            (188, 12, 512, 0),
            id="mistral-cache-inside-prompt",
        ),
        pytest.param("mistral", {}, (0, 0, 0, 0), id="mistral-missing-usage"),
    ],
)
def test_usage_is_normalised_to_disjoint_dimensions(
    provider: str, raw: dict[str, Any], expected: tuple[int, int, int, int]
) -> None:
    usage = normalize_usage(provider, raw)
    assert (
        usage.input_tokens,
        usage.output_tokens,
        usage.cache_read_tokens,
        usage.cache_write_tokens,
    ) == expected
    assert usage.raw == raw


def test_missing_usage_counts_as_zero() -> None:
    usage = normalize_usage("anthropic", None)
    assert (usage.prompt_tokens, usage.output_tokens, usage.raw) == (0, 0, {})


def test_unknown_provider_has_no_rules() -> None:
    with pytest.raises(ValueError, match="cohere"):
        normalize_usage("cohere", {})
