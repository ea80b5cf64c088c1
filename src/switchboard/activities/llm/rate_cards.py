"""Rate cards: the built-in data file, an operator's override file, and lookups.

``rate_cards.json`` beside this module is the versioned built-in card. An
operator file (``RATE_CARD_PATH``, passed in by the caller) with the same shape
adds models, or replaces every row of a model it lists. JSON numbers are read
as ``Decimal`` and prices may also be strings, so no price passes through float.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from switchboard.domain.errors import Unprocessable
from switchboard.domain.pricing import LongContextTier, RateCard, TokenPrices, card_in_effect, parse_price

BUILTIN_RATE_CARD_PATH = Path(__file__).with_name("rate_cards.json")

_PRICE_KEYS = ("input", "output", "cache_read", "cache_write")
_ROW_KEYS = {"effective_from", *_PRICE_KEYS, "source", "note", "long_context"}
_TIER_KEYS = {"above_prompt_tokens", *_PRICE_KEYS}


class RateCardFileInvalid(ValueError):
    """A rate-card file does not have the documented shape."""


class UnknownProvider(Unprocessable):
    """422: the provider is not one of the built-in ones."""

    default_code = "UNKNOWN_PROVIDER"

    def __init__(self, provider: str, known_providers: Sequence[str]) -> None:
        super().__init__(
            f"unknown provider {provider!r}; known providers: {', '.join(known_providers)}",
            details={"field": "provider", "provider": provider, "known_providers": list(known_providers)},
        )


class UnknownModel(Unprocessable):
    """422: the model is absent from the provider's rate card."""

    default_code = "UNKNOWN_MODEL"

    def __init__(self, provider: str, model: str, known_models: Sequence[str]) -> None:
        super().__init__(
            f"model {model!r} is not on the {provider} rate card",
            details={
                "field": "model",
                "provider": provider,
                "model": model,
                "known_models": list(known_models),
            },
        )


def _prices(data: Mapping[str, Any], where: str) -> TokenPrices:
    missing = [key for key in _PRICE_KEYS if key not in data]
    if missing:
        raise RateCardFileInvalid(f"{where}: missing {', '.join(missing)}")
    try:
        values = {key: parse_price(data[key], field=key) for key in _PRICE_KEYS}
    except ValueError as exc:
        raise RateCardFileInvalid(f"{where}: {exc}") from exc
    return TokenPrices(**values)


def _effective_from(value: Any, where: str) -> datetime:
    if not isinstance(value, str):
        raise RateCardFileInvalid(f"{where}: effective_from must be an ISO 8601 date or datetime string")
    try:
        if len(value) == 10:
            return datetime.combine(date.fromisoformat(value), datetime.min.time(), tzinfo=UTC)
        moment = datetime.fromisoformat(value)
    except ValueError as exc:
        raise RateCardFileInvalid(f"{where}: effective_from {value!r} is not ISO 8601") from exc
    if moment.tzinfo is None:
        raise RateCardFileInvalid(f"{where}: effective_from {value!r} needs a UTC offset")
    return moment.astimezone(UTC)


def _long_context(data: Any, where: str) -> LongContextTier | None:
    if data is None:
        return None
    if not isinstance(data, Mapping):
        raise RateCardFileInvalid(f"{where}: long_context must be an object")
    unknown = set(data) - _TIER_KEYS
    if unknown:
        raise RateCardFileInvalid(f"{where}: unknown long_context keys {sorted(unknown)}")
    threshold = data.get("above_prompt_tokens")
    if isinstance(threshold, Decimal) and threshold == threshold.to_integral_value():
        threshold = int(threshold)
    if not isinstance(threshold, int) or isinstance(threshold, bool) or threshold <= 0:
        raise RateCardFileInvalid(f"{where}: long_context.above_prompt_tokens must be a positive integer")
    return LongContextTier(above_prompt_tokens=threshold, prices=_prices(data, f"{where}.long_context"))


def _row(provider: str, model: str, data: Any, where: str) -> RateCard:
    if not isinstance(data, Mapping):
        raise RateCardFileInvalid(f"{where}: a row must be an object")
    unknown = set(data) - _ROW_KEYS
    if unknown:
        raise RateCardFileInvalid(f"{where}: unknown keys {sorted(unknown)}")
    source = data.get("source")
    if not isinstance(source, str) or not source.strip():
        raise RateCardFileInvalid(f"{where}: every row needs a source (URL or note)")
    note = data.get("note")
    if note is not None and not isinstance(note, str):
        raise RateCardFileInvalid(f"{where}: note must be a string")
    return RateCard(
        provider=provider,
        model=model,
        effective_from=_effective_from(data.get("effective_from"), where),
        prices=_prices(data, where),
        source=source,
        long_context=_long_context(data.get("long_context"), where),
        note=note,
    )


def parse_rate_card_document(
    document: Any, *, origin: str = "rate card"
) -> dict[str, dict[str, list[RateCard]]]:
    """Rows by provider and model from a decoded rate-card document, validated."""
    if not isinstance(document, Mapping) or not isinstance(document.get("providers"), Mapping):
        raise RateCardFileInvalid(f"{origin}: expected an object with a 'providers' object")
    if (
        document.get("currency", "USD") != "USD"
        or document.get("unit", "per_million_tokens") != "per_million_tokens"
    ):
        raise RateCardFileInvalid(f"{origin}: prices must be USD per_million_tokens")
    parsed: dict[str, dict[str, list[RateCard]]] = {}
    for provider, provider_data in document["providers"].items():
        models = provider_data.get("models") if isinstance(provider_data, Mapping) else None
        if not isinstance(models, Mapping):
            raise RateCardFileInvalid(f"{origin}: providers.{provider} needs a 'models' object")
        parsed[provider] = {}
        for model, rows in models.items():
            where = f"{origin}: {provider}/{model}"
            if not isinstance(rows, list) or not rows:
                raise RateCardFileInvalid(f"{where}: expected a non-empty list of rows")
            cards = [_row(provider, model, row, f"{where}[{index}]") for index, row in enumerate(rows)]
            starts = [card.effective_from for card in cards]
            if len(set(starts)) != len(starts):
                raise RateCardFileInvalid(f"{where}: two rows start at the same effective_from")
            parsed[provider][model] = sorted(cards, key=lambda card: card.effective_from)
    return parsed


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"), parse_float=Decimal)
    except OSError as exc:
        raise RateCardFileInvalid(f"{path}: cannot be read: {exc}") from exc
    except ValueError as exc:
        raise RateCardFileInvalid(f"{path}: not valid JSON: {exc}") from exc


class RateCardBook:
    """Every known model's dated rate-card rows, by provider."""

    def __init__(self, cards: Mapping[str, Mapping[str, Sequence[RateCard]]]) -> None:
        self._cards = {
            provider: {model: tuple(rows) for model, rows in models.items()}
            for provider, models in cards.items()
        }

    @property
    def providers(self) -> tuple[str, ...]:
        """Provider names, in the built-in card's order."""
        return tuple(self._cards)

    def models_for(self, provider: str) -> list[str]:
        """Model ids on ``provider``'s rate card; raises UnknownProvider."""
        return list(self._models(provider))

    def rows_for(self, provider: str, model: str) -> tuple[RateCard, ...]:
        """All dated rows of one model, oldest first; raises UnknownProvider or UnknownModel."""
        models = self._models(provider)
        if model not in models:
            raise UnknownModel(provider, model, list(models))
        return models[model]

    def card_for(self, provider: str, model: str, at: datetime) -> RateCard:
        """The row of ``model`` in effect at ``at`` (timezone-aware)."""
        return card_in_effect(self.rows_for(provider, model), at)

    def require_model(self, provider: str, model: str) -> None:
        """Raise the 422 the API answers when an agent names an unknown provider or model."""
        self.rows_for(provider, model)

    def _models(self, provider: str) -> Mapping[str, tuple[RateCard, ...]]:
        try:
            return self._cards[provider]
        except KeyError:
            raise UnknownProvider(provider, self.providers) from None


def load_rate_cards(
    override_path: str | None, *, builtin_path: Path = BUILTIN_RATE_CARD_PATH
) -> RateCardBook:
    """The built-in rate cards, with an operator file's models added or replacing the built-in rows."""
    cards = parse_rate_card_document(_read(builtin_path), origin=str(builtin_path))
    if override_path:
        path = Path(override_path)
        overrides = parse_rate_card_document(_read(path), origin=str(path))
        for provider, models in overrides.items():
            if provider not in cards:
                raise RateCardFileInvalid(
                    f"{path}: unknown provider {provider!r}; known providers: {', '.join(cards)}"
                )
            cards[provider].update(models)
    return RateCardBook(cards)
