"""Exact rate-card cost math, long-context tiers, display rounding and dated row selection."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

import pytest

from switchboard.domain.pricing import (
    LongContextTier,
    RateCard,
    TokenPrices,
    card_in_effect,
    cost_breakdown,
    cost_usd,
    parse_price,
    quantize_usd,
)


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


def _prices(input: str, output: str, cache_read: str, cache_write: str) -> TokenPrices:
    return TokenPrices(Decimal(input), Decimal(output), Decimal(cache_read), Decimal(cache_write))


def _card(
    prices: TokenPrices, *, at: datetime | None = None, tier: LongContextTier | None = None
) -> RateCard:
    return RateCard(
        provider="anthropic",
        model="m",
        effective_from=at or datetime(2026, 1, 1, tzinfo=UTC),
        prices=prices,
        source="test",
        long_context=tier,
    )


HAIKU = _card(_prices("1.00", "5.00", "0.10", "1.25"))
CHEAP = _card(
    _prices("0.10", "0.50", "0.01", "0.125"),
    tier=LongContextTier(100_000, _prices("0.50", "2.50", "0.05", "0.625")),
)


@pytest.mark.parametrize(
    ("usage", "card", "expected"),
    [
        (Usage(), HAIKU, Decimal("0")),
        (Usage(input_tokens=1_000_000), HAIKU, Decimal("1.00")),
        (Usage(output_tokens=1), HAIKU, Decimal("0.000005")),
        (Usage(cache_read_tokens=1), HAIKU, Decimal("0.0000001")),
        # 40*1 + 12*5 + 2000*0.10 + 300*1.25 = 40 + 60 + 200 + 375 = 675 per million
        (Usage(40, 12, 2000, 300), HAIKU, Decimal("0.000675")),
        (
            Usage(input_tokens=3, output_tokens=7),
            _card(_prices("0.333", "0.777", "0", "0")),
            Decimal("0.000006438"),
        ),
        # Exactly at the threshold the base prices apply; one token more prices every token at the tier.
        (Usage(input_tokens=60_000, cache_read_tokens=40_000), CHEAP, Decimal("0.0064")),
        (Usage(input_tokens=60_001, cache_read_tokens=40_000), CHEAP, Decimal("0.032000500")),
        (Usage(input_tokens=10**12, output_tokens=10**12), HAIKU, Decimal("6000000")),
    ],
)
def test_cost_is_exact(usage: Usage, card: RateCard, expected: Decimal) -> None:
    assert cost_usd(usage, card) == expected


def test_breakdown_reports_each_dimension_and_the_tier() -> None:
    breakdown = cost_breakdown(Usage(60_001, 1_000, 40_000, 0), CHEAP)
    assert breakdown.long_context is True
    assert (breakdown.input, breakdown.output, breakdown.cache_read, breakdown.cache_write) == (
        Decimal("0.030000500"),
        Decimal("0.002500"),
        Decimal("0.002000"),
        Decimal("0"),
    )
    assert breakdown.total == Decimal("0.034500500")
    assert cost_breakdown(Usage(input_tokens=10), CHEAP).long_context is False


def test_negative_token_counts_are_refused() -> None:
    with pytest.raises(ValueError):
        cost_usd(Usage(input_tokens=-1), HAIKU)


@pytest.mark.parametrize(
    ("amount", "places", "expected"),
    [
        (Decimal("0.0000005"), 6, Decimal("0.000001")),
        (Decimal("0.00000049"), 6, Decimal("0.000000")),
        (Decimal("0.000675"), 6, Decimal("0.000675")),
        (Decimal("1.005"), 2, Decimal("1.01")),
        (Decimal("0"), 6, Decimal("0.000000")),
    ],
)
def test_quantize_rounds_half_up_for_display(amount: Decimal, places: int, expected: Decimal) -> None:
    rounded = quantize_usd(amount, places)
    assert rounded == expected
    assert rounded.as_tuple().exponent == -places


@pytest.mark.parametrize(
    ("value", "expected"),
    [("1.25", Decimal("1.25")), (3, Decimal("3")), (Decimal("0.1"), Decimal("0.1")), ("0", Decimal("0"))],
)
def test_prices_parse_exactly(value: object, expected: Decimal) -> None:
    assert parse_price(value) == expected


@pytest.mark.parametrize("value", [0.1, True, "-1", "abc", "NaN", "Infinity", None, [1]])
def test_floats_and_invalid_prices_are_refused(value: object) -> None:
    with pytest.raises(ValueError):
        parse_price(value)


JAN = datetime(2026, 1, 1, tzinfo=UTC)
JUN = datetime(2026, 6, 1, tzinfo=UTC)
ROWS = [_card(_prices("2", "2", "2", "2"), at=JUN), _card(_prices("1", "1", "1", "1"), at=JAN)]


@pytest.mark.parametrize(
    ("at", "expected_input"),
    [
        (JAN - timedelta(days=30), Decimal("1")),
        (JAN, Decimal("1")),
        (JUN - timedelta(microseconds=1), Decimal("1")),
        (JUN, Decimal("2")),
        (datetime(2026, 6, 1, 1, 59, tzinfo=timezone(timedelta(hours=2))), Decimal("1")),
        (datetime(2030, 1, 1, tzinfo=UTC), Decimal("2")),
    ],
)
def test_the_row_in_effect_is_the_latest_started(at: datetime, expected_input: Decimal) -> None:
    assert card_in_effect(ROWS, at).prices.input == expected_input


def test_lookups_need_an_aware_time_and_rows() -> None:
    with pytest.raises(ValueError, match="timezone"):
        card_in_effect(ROWS, datetime(2026, 1, 1))
    with pytest.raises(ValueError):
        card_in_effect([], JAN)


def test_card_as_dict_keeps_prices_as_decimal_strings() -> None:
    data = CHEAP.as_dict()
    assert data["input"] == "0.10"
    assert data["long_context"] == {
        "above_prompt_tokens": 100_000,
        "input": "0.50",
        "output": "2.50",
        "cache_read": "0.05",
        "cache_write": "0.625",
    }
    assert data["effective_from"] == "2026-01-01T00:00:00+00:00"
    assert data["id"] == CHEAP.ref == "anthropic/m@2026-01-01T00:00:00+00:00"
