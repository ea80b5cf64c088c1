"""Rate-card rows and exact cost math for language-model calls.

Prices are USD per million tokens in four dimensions (input, output, cache
read, cache write). Every amount is a ``Decimal`` computed without rounding:
a context with ``Inexact`` trapped proves no digit is lost, so a cost can be
recomputed later to the same value. Rounding happens only for display, in
``quantize_usd`` (half-up to 6 decimals by default). Time and prices come in
as parameters; nothing here reads a clock or a file.
"""

from __future__ import annotations

import decimal
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Protocol

TOKENS_PER_PRICE_UNIT = 1_000_000
DISPLAY_PLACES = 6

# 60 significant digits hold any realistic tokens * price product exactly; the
# Inexact trap turns a silent rounding into an error instead of a wrong bill.
_EXACT = decimal.Context(prec=60, traps=[decimal.Inexact, decimal.InvalidOperation, decimal.Overflow])


class UsageCounts(Protocol):
    """Four disjoint token counts; ``input_tokens`` excludes cached tokens."""

    @property
    def input_tokens(self) -> int: ...
    @property
    def output_tokens(self) -> int: ...
    @property
    def cache_read_tokens(self) -> int: ...
    @property
    def cache_write_tokens(self) -> int: ...


def parse_price(value: Any, *, field: str = "price") -> Decimal:
    """A non-negative USD price from a string, int or Decimal; floats are refused to stay exact."""
    if isinstance(value, bool) or isinstance(value, float):
        raise ValueError(f"{field} must be a decimal string or integer, not {type(value).__name__}")
    if isinstance(value, Decimal):
        price = value
    elif isinstance(value, int | str):
        try:
            price = Decimal(value)
        except decimal.InvalidOperation as exc:
            raise ValueError(f"{field} is not a number: {value!r}") from exc
    else:
        raise ValueError(f"{field} must be a decimal string or integer, not {type(value).__name__}")
    if not price.is_finite() or price < 0:
        raise ValueError(f"{field} must be a finite, non-negative number: {value!r}")
    return price


@dataclass(frozen=True)
class TokenPrices:
    """USD per million tokens in each of the four dimensions."""

    input: Decimal
    output: Decimal
    cache_read: Decimal
    cache_write: Decimal

    def as_dict(self) -> dict[str, str]:
        """Prices as decimal strings, so JSON carries them without float rounding."""
        return {
            "input": str(self.input),
            "output": str(self.output),
            "cache_read": str(self.cache_read),
            "cache_write": str(self.cache_write),
        }


@dataclass(frozen=True)
class LongContextTier:
    """Prices that apply to every token of a call whose prompt exceeds a threshold."""

    above_prompt_tokens: int
    prices: TokenPrices


@dataclass(frozen=True)
class RateCard:
    """One dated, sourced rate-card row of one model."""

    provider: str
    model: str
    effective_from: datetime
    prices: TokenPrices
    source: str
    long_context: LongContextTier | None = None
    note: str | None = None

    @property
    def ref(self) -> str:
        """A stable identifier of this row, to record which row priced a call."""
        return f"{self.provider}/{self.model}@{self.effective_from.isoformat()}"

    def prices_for(self, prompt_tokens: int) -> TokenPrices:
        """The prices that apply to a call whose whole prompt has ``prompt_tokens`` tokens."""
        tier = self.long_context
        if tier is not None and prompt_tokens > tier.above_prompt_tokens:
            return tier.prices
        return self.prices

    def as_dict(self) -> dict[str, Any]:
        """The row as JSON-ready data (prices as decimal strings, time as ISO 8601)."""
        data: dict[str, Any] = {
            "id": self.ref,
            "provider": self.provider,
            "model": self.model,
            "effective_from": self.effective_from.isoformat(),
            "currency": "USD",
            "unit": "per_million_tokens",
            **self.prices.as_dict(),
            "source": self.source,
        }
        if self.long_context is not None:
            data["long_context"] = {
                "above_prompt_tokens": self.long_context.above_prompt_tokens,
                **self.long_context.prices.as_dict(),
            }
        if self.note:
            data["note"] = self.note
        return data


@dataclass(frozen=True)
class CostBreakdown:
    """Exact USD cost of one call per dimension."""

    input: Decimal
    output: Decimal
    cache_read: Decimal
    cache_write: Decimal
    long_context: bool = False

    @property
    def total(self) -> Decimal:
        """Sum of the four dimensions, exact."""
        return _EXACT.add(_EXACT.add(self.input, self.output), _EXACT.add(self.cache_read, self.cache_write))


def _dimension_cost(tokens: int, price: Decimal) -> Decimal:
    if tokens < 0:
        raise ValueError(f"token counts cannot be negative: {tokens}")
    return _EXACT.divide(_EXACT.multiply(Decimal(tokens), price), Decimal(TOKENS_PER_PRICE_UNIT))


def cost_breakdown(usage: UsageCounts, card: RateCard) -> CostBreakdown:
    """Exact per-dimension cost of a normalised usage under one rate-card row."""
    prompt_tokens = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
    prices = card.prices_for(prompt_tokens)
    return CostBreakdown(
        input=_dimension_cost(usage.input_tokens, prices.input),
        output=_dimension_cost(usage.output_tokens, prices.output),
        cache_read=_dimension_cost(usage.cache_read_tokens, prices.cache_read),
        cache_write=_dimension_cost(usage.cache_write_tokens, prices.cache_write),
        long_context=prices is not card.prices,
    )


def cost_usd(usage: UsageCounts, card: RateCard) -> Decimal:
    """Exact USD cost of a normalised usage under one rate-card row, unrounded."""
    return cost_breakdown(usage, card).total


def quantize_usd(amount: Decimal, places: int = DISPLAY_PLACES) -> Decimal:
    """Round an exact amount half-up to ``places`` decimals, for display and API bodies only."""
    return amount.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def card_in_effect(cards: Sequence[RateCard], at: datetime) -> RateCard:
    """The row in effect at ``at``: the latest one that started at or before it.

    Before a model's first row, that first row applies: it is the oldest price
    we have a source for, and a call must always be priceable.
    """
    if at.tzinfo is None:
        raise ValueError("rate-card lookups need a timezone-aware time")
    if not cards:
        raise ValueError("no rate-card rows to choose from")
    ordered = sorted(cards, key=lambda card: card.effective_from)
    chosen = ordered[0]
    for card in ordered:
        if card.effective_from <= at:
            chosen = card
    return chosen
