"""The built-in rate card, operator overrides, dated lookups, the 422 errors and the catalogue."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from genai_prices import data_snapshot

from switchboard.activities.llm.catalog import provider_catalog
from switchboard.activities.llm.rate_cards import (
    RateCardFileInvalid,
    UnknownModel,
    UnknownProvider,
    load_rate_cards,
)
from switchboard.domain.errors import Unprocessable

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def _write(tmp_path: Path, providers: dict[str, Any]) -> str:
    path = tmp_path / "rate_cards.json"
    path.write_text(json.dumps({"providers": providers}), encoding="utf-8")
    return str(path)


def _row(effective_from: str, price: Any = "1.00", **extra: Any) -> dict[str, Any]:
    return {
        "effective_from": effective_from,
        "input": price,
        "output": price,
        "cache_read": price,
        "cache_write": price,
        "source": "test",
        **extra,
    }


def test_builtin_card_lists_models_for_each_of_the_four_providers() -> None:
    book = load_rate_cards(None)
    assert book.providers == ("anthropic", "openai", "google", "mistral")
    for provider in book.providers:
        models = book.models_for(provider)
        assert models, provider
        for model in models:
            rows = book.rows_for(provider, model)
            assert all(row.source and row.effective_from.tzinfo is not None for row in rows)


@pytest.mark.parametrize(
    ("provider", "model", "at", "expected_input"),
    [
        ("google", "gemini-4-argon", datetime(2026, 11, 30, 23, 59, 59, tzinfo=UTC), Decimal("2.00")),
        ("google", "gemini-4-argon", datetime(2026, 12, 1, 0, 0, tzinfo=UTC), Decimal("4.00")),
        ("google", "gemini-3.8-flash", datetime(2027, 1, 1, 0, 0, tzinfo=UTC), Decimal("1.50")),
        ("mistral", "mistral-large-4", datetime(2026, 10, 25, tzinfo=UTC), Decimal("1.36")),
        ("mistral", "mistral-large-4", datetime(2026, 10, 29, tzinfo=UTC), Decimal("0.70")),
        # Before the first row, the first row applies.
        ("mistral", "mistral-large-4", datetime(2026, 1, 1, tzinfo=UTC), Decimal("1.36")),
        ("anthropic", "claude-haiku-4-5", NOW, Decimal("1.00")),
        ("openai", "gpt-4.1-mini", NOW, Decimal("0.40")),
    ],
)
def test_card_for_returns_the_row_in_effect(
    provider: str, model: str, at: datetime, expected_input: Decimal
) -> None:
    assert load_rate_cards(None).card_for(provider, model, at).prices.input == expected_input


def test_an_unknown_model_is_a_422_listing_the_known_models() -> None:
    book = load_rate_cards(None)
    with pytest.raises(UnknownModel) as caught:
        book.require_model("openai", "gpt-99")
    error = caught.value
    assert isinstance(error, Unprocessable)
    assert error.status_code == 422
    assert error.details is not None
    assert error.details["field"] == "model"
    assert error.details["known_models"] == book.models_for("openai")
    assert "gpt-4.1" in error.details["known_models"]


def test_an_unknown_provider_is_a_422_listing_the_known_providers() -> None:
    with pytest.raises(UnknownProvider) as caught:
        load_rate_cards(None).card_for("cohere", "command", NOW)
    assert caught.value.status_code == 422
    assert caught.value.details == {
        "field": "provider",
        "provider": "cohere",
        "known_providers": ["anthropic", "openai", "google", "mistral"],
    }


def test_an_override_file_adds_models_and_replaces_a_models_rows(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        {
            "openai": {
                "models": {
                    "gpt-4.1-mini": [_row("2026-12-01", "9.00")],
                    "ft:gpt-4.1:acme": [_row("2026-01-01")],
                }
            },
            "mistral": {
                "models": {
                    "mistral-small-latest": [_row("2026-01-01", 0.1), _row("2026-12-01T12:00:00+01:00", 2)]
                }
            },
        },
    )
    book = load_rate_cards(path)
    assert "ft:gpt-4.1:acme" in book.models_for("openai")
    assert "gpt-4.1" in book.models_for("openai")
    # Replaced rows: the built-in 0.40 row is gone, so the operator's only row applies at any time.
    assert [row.prices.input for row in book.rows_for("openai", "gpt-4.1-mini")] == [Decimal("9.00")]
    assert book.card_for("openai", "gpt-4.1-mini", NOW).prices.input == Decimal("9.00")
    # JSON numbers are read as exact decimals; offsets are converted to UTC.
    rows = book.rows_for("mistral", "mistral-small-latest")
    assert rows[0].prices.input == Decimal("0.1")
    assert rows[1].effective_from == datetime(2026, 12, 1, 11, 0, tzinfo=UTC)
    assert (
        book.card_for(
            "mistral", "mistral-small-latest", datetime(2026, 12, 1, 11, 0, tzinfo=UTC)
        ).prices.input
        == 2
    )


@pytest.mark.parametrize(
    ("providers", "message"),
    [
        ({"cohere": {"models": {"command": [_row("2026-01-01")]}}}, "unknown provider"),
        ({"openai": {"models": {"m": []}}}, "non-empty list"),
        ({"openai": {"models": {"m": [{**_row("2026-01-01"), "source": ""}]}}}, "source"),
        ({"openai": {"models": {"m": [{**_row("2026-01-01"), "cache_reads": "1"}]}}}, "unknown keys"),
        ({"openai": {"models": {"m": [_row("2026-01-01T00:00:00")]}}}, "UTC offset"),
        ({"openai": {"models": {"m": [_row("yesterday")]}}}, "ISO 8601"),
        ({"openai": {"models": {"m": [_row("2026-01-01"), _row("2026-01-01")]}}}, "same effective_from"),
        ({"openai": {"models": {"m": [_row("2026-01-01", "-1")]}}}, "non-negative"),
        ({"openai": {"models": {"m": [_row("2026-01-01", True)]}}}, "decimal string"),
        (
            {"openai": {"models": {"m": [_row("2026-01-01", long_context={"above_prompt_tokens": 0})]}}},
            "positive integer",
        ),
        (
            {"openai": {"models": {"m": [{k: v for k, v in _row("2026-01-01").items() if k != "output"}]}}},
            "output",
        ),
    ],
)
def test_invalid_override_files_are_refused(tmp_path: Path, providers: dict[str, Any], message: str) -> None:
    with pytest.raises(RateCardFileInvalid, match=message):
        load_rate_cards(_write(tmp_path, providers))


def test_a_missing_override_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RateCardFileInvalid, match="cannot be read"):
        load_rate_cards(str(tmp_path / "absent.json"))


def test_catalog_lists_providers_models_current_cards_and_scheduled_rows() -> None:
    catalog = provider_catalog(load_rate_cards(None), at=NOW, configured={"openai"})
    assert [entry["name"] for entry in catalog] == ["anthropic", "openai", "google", "mistral"]
    assert [entry["configured"] for entry in catalog] == [False, True, False, False]
    google = {model["model"]: model for model in catalog[2]["models"]}
    argon = google["gemini-4-argon"]
    assert argon["rate_card"]["input"] == "2.00"
    assert [row["effective_from"] for row in argon["scheduled"]] == ["2026-12-01T00:00:00+00:00"]
    assert google["gemini-2.5-pro"]["rate_card"]["long_context"]["above_prompt_tokens"] == 200000
    json.dumps(catalog)


# Deliberate differences from genai-prices, each explained in the row's note.
_GENAI_PRICES_DEVIATIONS = {("mistral", "mistral-large-latest")}


def test_builtin_prices_match_genai_prices_where_it_prices_a_dimension() -> None:
    book = load_rate_cards(None)
    snapshot = {provider.id: provider for provider in data_snapshot.get_snapshot().providers}
    mismatches = []
    compared = 0
    for provider in book.providers:
        for model in book.models_for(provider):
            if (provider, model) in _GENAI_PRICES_DEVIATIONS:
                continue
            info = snapshot[provider].find_model(model)
            assert info is not None, model
            for row in book.rows_for(provider, model):
                theirs = info.get_prices(row.effective_from)
                for dimension in ("input", "output", "cache_read", "cache_write"):
                    price = getattr(theirs, f"{dimension}_mtok", None)
                    base = getattr(price, "base", price)
                    if base is None:
                        continue
                    compared += 1
                    if Decimal(base) != getattr(row.prices, dimension):
                        mismatches.append(
                            (provider, model, dimension, str(base), str(getattr(row.prices, dimension)))
                        )
                    tiers = getattr(price, "tiers", None)
                    if tiers:
                        tier = row.long_context
                        ours = (
                            None
                            if tier is None
                            else (tier.above_prompt_tokens, getattr(tier.prices, dimension))
                        )
                        if ours != (tiers[0].start, Decimal(tiers[0].price)):
                            mismatches.append(
                                (provider, model, f"long {dimension}", str(tiers[0]), str(ours))
                            )
    assert mismatches == []
    assert compared > 80
