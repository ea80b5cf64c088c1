"""Reserve-and-settle math of the cost circuit breaker: reservations, cap checks, tenant day and month."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from switchboard.domain.agents.cost import (
    CapCheck,
    check_caps,
    cost_day,
    cost_month,
    estimated_input_tokens,
    quantize_usd,
    reservation_usd,
)

D = Decimal

TOKEN_ROWS = [(0, 0), (1, 1), (2, 1), (3, 2), (4, 2), (9_999, 5_000), (10_000, 5_000)]


@pytest.mark.parametrize(("chars", "tokens"), TOKEN_ROWS)
def test_estimated_input_tokens_is_ceil_of_half(chars: int, tokens: int) -> None:
    assert estimated_input_tokens(chars) == tokens


# (prompt_chars, max_output_tokens, input $/Mtok, output $/Mtok, reservation)
RESERVATION_ROWS: list[tuple[int, int, str, str, str]] = [
    (0, 0, "3", "15", "0.0000000000"),
    (2_000_000, 0, "3", "15", "3.0000000000"),
    (0, 1_000_000, "3", "15", "15.0000000000"),
    (8_000, 1_024, "3", "15", "0.0273600000"),  # 4,000 x 3 + 1,024 x 15 = 27,360 micro-dollars
    (7_999, 1_024, "3", "15", "0.0273600000"),  # ceil(7,999 / 2) = 4,000
    (1, 0, "0.15", "0.6", "0.0000001500"),
    (1, 1, "0.000001", "0.000001", "0.0000000001"),  # 2e-12 rounds up, never down to zero
    (3, 0, "0.0000033", "0", "0.0000000001"),
    (10_001, 333, "0.123456789", "1.23456789", "0.0010285186"),  # 0.001028518509159 rounded up
]


@pytest.mark.parametrize(("chars", "max_out", "price_in", "price_out", "expected"), RESERVATION_ROWS)
def test_reservation_usd(chars: int, max_out: int, price_in: str, price_out: str, expected: str) -> None:
    value = reservation_usd(
        prompt_chars=chars,
        max_output_tokens=max_out,
        input_per_mtok=D(price_in),
        output_per_mtok=D(price_out),
    )
    assert f"{value:f}" == expected


def test_reservation_is_an_upper_bound_of_real_cost() -> None:
    # A 4-chars-per-token prompt of 4,000 chars really costs 1,000 input tokens; the reservation assumes 2,000.
    real = (D(1_000) * D("3") + D(500) * D("15")) / D(1_000_000)
    reserved = reservation_usd(
        prompt_chars=4_000, max_output_tokens=1_024, input_per_mtok=D(3), output_per_mtok=D(15)
    )
    assert reserved >= real


@pytest.mark.parametrize(
    "kwargs",
    [
        {"prompt_chars": -1, "max_output_tokens": 1, "input_per_mtok": D(1), "output_per_mtok": D(1)},
        {"prompt_chars": 1, "max_output_tokens": -1, "input_per_mtok": D(1), "output_per_mtok": D(1)},
        {"prompt_chars": 1, "max_output_tokens": 1, "input_per_mtok": D(-1), "output_per_mtok": D(1)},
    ],
)
def test_reservation_refuses_negative_inputs(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        reservation_usd(**kwargs)


CAPS = {"thread_cap": D("1"), "day_cap": D("50"), "month_cap": D("500")}
ZERO = {
    "thread_spent": D(0),
    "thread_reserved": D(0),
    "day_spent": D(0),
    "day_reserved": D(0),
    "month_spent": D(0),
    "month_reserved": D(0),
}

# (label, reservation, overrides, expected)
CAP_ROWS: list[tuple[str, str, dict[str, Decimal], CapCheck]] = [
    ("fresh tenant", "0.01", {}, CapCheck(True, None)),
    (
        "exactly reaching the thread cap is allowed",
        "0.4",
        {"thread_spent": D("0.5"), "thread_reserved": D("0.1")},
        CapCheck(True, None),
    ),
    (
        "one unit over the thread cap",
        "0.4000000001",
        {"thread_spent": D("0.5"), "thread_reserved": D("0.1")},
        CapCheck(False, "thread"),
    ),
    ("reserved by concurrent runs counts", "0.2", {"thread_reserved": D("0.9")}, CapCheck(False, "thread")),
    (
        "thread cap already reached trips with no reservation",
        "0",
        {"thread_spent": D("1")},
        CapCheck(False, "thread"),
    ),
    ("thread overspent", "0", {"thread_spent": D("1.2")}, CapCheck(False, "thread")),
    ("day cap", "1", {"day_spent": D("49.5")}, CapCheck(False, "tenant_day")),
    ("day cap already reached", "0", {"day_spent": D("50")}, CapCheck(False, "tenant_day")),
    ("day reserved", "0.5", {"day_reserved": D("49.6")}, CapCheck(False, "tenant_day")),
    ("month cap", "0.5", {"month_spent": D("499.9")}, CapCheck(False, "tenant_month")),
    ("month cap already reached", "0", {"month_spent": D("500")}, CapCheck(False, "tenant_month")),
    ("month exactly reached by the reservation", "0.1", {"month_spent": D("499.9")}, CapCheck(True, None)),
    (
        "thread checked before day and month",
        "5",
        {"day_spent": D("50"), "month_spent": D("500")},
        CapCheck(False, "thread"),
    ),
    (
        "day checked before month",
        "0",
        {"day_spent": D("60"), "month_spent": D("600")},
        CapCheck(False, "tenant_day"),
    ),
    ("zero cap always trips", "0", {"thread_cap": D(0)}, CapCheck(False, "thread")),
]


@pytest.mark.parametrize(("label", "reservation", "overrides", "expected"), CAP_ROWS)
def test_check_caps(label: str, reservation: str, overrides: dict[str, Decimal], expected: CapCheck) -> None:
    args = {**ZERO, **CAPS, **overrides}
    assert check_caps(reservation=D(reservation), **args) == expected, label


BA, MADRID = "America/Argentina/Buenos_Aires", "Europe/Madrid"

# (now, tz, cost day, cost month)
CALENDAR_ROWS: list[tuple[datetime, str, date, date]] = [
    (datetime(2025, 6, 15, 12, tzinfo=UTC), "UTC", date(2025, 6, 15), date(2025, 6, 1)),
    (datetime(2025, 6, 15, 2, tzinfo=UTC), BA, date(2025, 6, 14), date(2025, 6, 1)),
    (datetime(2025, 6, 15, 3, tzinfo=UTC), BA, date(2025, 6, 15), date(2025, 6, 1)),
    (datetime(2026, 1, 1, 2, 59, tzinfo=UTC), BA, date(2025, 12, 31), date(2025, 12, 1)),
    (datetime(2026, 1, 1, 3, tzinfo=UTC), BA, date(2026, 1, 1), date(2026, 1, 1)),
    (datetime(2025, 12, 31, 22, 59, tzinfo=UTC), MADRID, date(2025, 12, 31), date(2025, 12, 1)),
    (datetime(2025, 12, 31, 23, tzinfo=UTC), MADRID, date(2026, 1, 1), date(2026, 1, 1)),
    (datetime(2025, 7, 31, 21, 59, tzinfo=UTC), MADRID, date(2025, 7, 31), date(2025, 7, 1)),  # CEST, UTC+2
    (datetime(2025, 7, 31, 22, tzinfo=UTC), MADRID, date(2025, 8, 1), date(2025, 8, 1)),
    (datetime(2025, 6, 15, 23, 30), MADRID, date(2025, 6, 16), date(2025, 6, 1)),  # naive is UTC
]


@pytest.mark.parametrize(("now", "tz", "day", "month"), CALENDAR_ROWS)
def test_cost_day_and_month(now: datetime, tz: str, day: date, month: date) -> None:
    assert cost_day(now, tz) == day
    assert cost_month(now, tz) == month


def test_unknown_zone_is_refused() -> None:
    with pytest.raises(ValueError):
        cost_day(datetime(2025, 1, 1, tzinfo=UTC), "Not/AZone")


QUANTIZE_ROWS = [
    ("1", "1.0000000000"),
    ("0.00000000004", "0E-10"),
    ("0.00000000005", "1E-10"),
    ("0.123456789049", "0.1234567890"),
    ("0.12345678905", "0.1234567891"),
    ("123456789.123456789012345", "123456789.1234567890"),
]


@pytest.mark.parametrize(("value", "expected"), QUANTIZE_ROWS)
def test_quantize_usd(value: str, expected: str) -> None:
    result = quantize_usd(D(value))
    assert result == D(expected)
    assert result.as_tuple().exponent == -10
