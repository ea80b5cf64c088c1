"""Estimate-and-settle math of the cost circuit breaker: estimates, calibration, the trip rule, tenant day and month."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from switchboard.domain.agents.cost import (
    CapCheck,
    PromptSize,
    admission_limit,
    calibration,
    call_estimate_usd,
    check_caps,
    cost_day,
    cost_month,
    estimated_prompt_tokens,
    expected_output_tokens,
    quantize_usd,
    trips,
)

D = Decimal

# (prose chars, json chars, messages, tools, calibration, tokens)
PROMPT_ROWS: list[tuple[int, int, int, int, str, int]] = [
    (0, 0, 0, 0, "1", 0),
    (3, 0, 0, 0, "1", 1),  # 3 prose characters a token
    (4, 0, 0, 0, "1", 2),  # rounded up
    (0, 5, 0, 0, "1", 2),  # 2.5 JSON characters a token
    (0, 0, 3, 0, "1", 12),  # 4 tokens a message
    (0, 0, 0, 1, "1", 358),  # 8 a tool, plus the 350-token tool-use preamble once
    (0, 0, 0, 3, "1", 374),
    (3_000, 2_500, 10, 2, "1", 2_406),  # 1,000 + 1,000 + 40 + 16 + 350
    (3_000, 2_500, 10, 2, "0.5", 1_203),  # the thread's provider reports half of what we estimate
    (3_000, 2_500, 10, 2, "1.25", 3_008),  # 3,007.5 rounded up
]


@pytest.mark.parametrize(("prose", "json_chars", "messages", "tools", "ratio", "tokens"), PROMPT_ROWS)
def test_estimated_prompt_tokens(
    prose: int, json_chars: int, messages: int, tools: int, ratio: str, tokens: int
) -> None:
    size = PromptSize(prose_chars=prose, json_chars=json_chars, messages=messages, tools=tools)
    assert estimated_prompt_tokens(size, calibration=D(ratio)) == tokens


def test_estimated_prompt_tokens_refuses_nonsense() -> None:
    with pytest.raises(ValueError):
        estimated_prompt_tokens(PromptSize(prose_chars=-1, json_chars=0, messages=0, tools=0))
    with pytest.raises(ValueError):
        estimated_prompt_tokens(
            PromptSize(prose_chars=1, json_chars=0, messages=0, tools=0), calibration=D(0)
        )


# (reported, estimated, calibration)
CALIBRATION_ROWS: list[tuple[int, int, str]] = [
    (1_000, 1_000, "1"),
    (900, 1_000, "0.9"),
    (1_100, 1_000, "1.1"),
    (2_000, 3_000, "0.6667"),  # rounded up at 4 places...
    (100, 1_000, "0.5"),  # ...and clamped: one odd figure cannot make the next estimate absurd
    (5_000, 1_000, "2"),
    (0, 1_000, "0.5"),
    (1_000, 0, "1"),  # nothing estimated: no calibration
]


@pytest.mark.parametrize(("reported", "estimated", "expected"), CALIBRATION_ROWS)
def test_calibration(reported: int, estimated: int, expected: str) -> None:
    assert calibration(reported_prompt_tokens=reported, estimated_prompt_tokens=estimated) == D(expected)


# (max_tokens, observed outputs, expected)
OUTPUT_ROWS: list[tuple[int, list[int], int]] = [
    (1_024, [], 1_024),  # nothing observed yet: the provider-enforced bound
    (1_024, [80], 80),
    (1_024, [80, 300, 45], 300),  # the largest recent output
    (256, [80, 300], 256),  # never above max_tokens
    (1_024, [0], 0),
]


@pytest.mark.parametrize(("max_tokens", "observed", "expected"), OUTPUT_ROWS)
def test_expected_output_tokens(max_tokens: int, observed: list[int], expected: int) -> None:
    assert expected_output_tokens(max_tokens=max_tokens, observed=observed) == expected


# (prompt tokens, output tokens, input $/Mtok, output $/Mtok, estimate)
ESTIMATE_ROWS: list[tuple[int, int, str, str, str]] = [
    (0, 0, "3", "15", "0.0000000000"),
    (1_000_000, 0, "3", "15", "3.0000000000"),
    (0, 1_000_000, "3", "15", "15.0000000000"),
    (4_000, 300, "3", "15", "0.0165000000"),
    (1, 1, "0.000001", "0.000001", "0.0000000001"),  # 2e-12 rounds up, never down to zero
    (5_001, 333, "0.123456789", "1.23456789", "0.0010285186"),  # 0.001028518509159 rounded up
]


@pytest.mark.parametrize(("prompt", "output", "price_in", "price_out", "expected"), ESTIMATE_ROWS)
def test_call_estimate_usd(prompt: int, output: int, price_in: str, price_out: str, expected: str) -> None:
    value = call_estimate_usd(
        prompt_tokens=prompt, output_tokens=output, input_per_mtok=D(price_in), output_per_mtok=D(price_out)
    )
    assert f"{value:f}" == expected


@pytest.mark.parametrize(
    "kwargs",
    [
        {"prompt_tokens": -1, "output_tokens": 1, "input_per_mtok": D(1), "output_per_mtok": D(1)},
        {"prompt_tokens": 1, "output_tokens": -1, "input_per_mtok": D(1), "output_per_mtok": D(1)},
        {"prompt_tokens": 1, "output_tokens": 1, "input_per_mtok": D(-1), "output_per_mtok": D(1)},
    ],
)
def test_call_estimate_refuses_negative_inputs(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        call_estimate_usd(**kwargs)


@pytest.mark.parametrize(
    ("cap", "limit"),
    [("1", "1.02"), ("50", "51"), ("0", "0"), ("0.0001", "0.000102"), ("0.00000001", "0.0000000102")],
)
def test_admission_limit_is_the_cap_plus_two_percent(cap: str, limit: str) -> None:
    assert admission_limit(D(cap)) == D(limit)


# (label, estimate, spent, reserved, tripped) against a 1 USD cap (admission limit 1.02)
TRIP_ROWS: list[tuple[str, str, str, str, bool]] = [
    ("fresh", "0.01", "0", "0", False),
    ("the estimate lands exactly on the cap", "0.03", "0.97", "0", False),
    ("passing the cap within the margin", "0.05", "0.97", "0", False),
    ("exactly the cap plus margin", "0.05", "0.96", "0.01", False),
    ("one unit past the cap plus margin", "0.0500000001", "0.96", "0.01", True),
    ("recorded spend reached the cap: trips whatever the estimate", "0", "1", "0", True),
    ("recorded spend just below the cap, tiny call", "0.0001", "0.9999", "0", False),
    ("reservations of calls in flight count", "0.05", "0.5", "0.48", True),
]


@pytest.mark.parametrize(("label", "estimate", "spent", "reserved", "tripped"), TRIP_ROWS)
def test_trips(label: str, estimate: str, spent: str, reserved: str, tripped: bool) -> None:
    assert trips(estimate=D(estimate), spent=D(spent), reserved=D(reserved), cap=D(1)) is tripped, label


CAPS = {"thread_cap": D("1"), "day_cap": D("50"), "month_cap": D("500")}
ZERO = {
    "thread_spent": D(0),
    "thread_reserved": D(0),
    "day_spent": D(0),
    "day_reserved": D(0),
    "month_spent": D(0),
    "month_reserved": D(0),
}

# (label, estimate, overrides, expected)
CAP_ROWS: list[tuple[str, str, dict[str, Decimal], CapCheck]] = [
    ("fresh tenant", "0.01", {}, CapCheck(True, None)),
    (
        "up to the thread cap plus 2 % is allowed",
        "0.42",
        {"thread_spent": D("0.5"), "thread_reserved": D("0.1")},
        CapCheck(True, None),
    ),
    (
        "one unit over the thread cap plus margin",
        "0.4200000001",
        {"thread_spent": D("0.5"), "thread_reserved": D("0.1")},
        CapCheck(False, "thread"),
    ),
    ("reserved by a call in flight counts", "0.2", {"thread_reserved": D("0.9")}, CapCheck(False, "thread")),
    ("thread cap reached trips with no estimate", "0", {"thread_spent": D("1")}, CapCheck(False, "thread")),
    ("thread overspent", "0", {"thread_spent": D("1.01")}, CapCheck(False, "thread")),
    (
        "day cap plus margin passed",
        "1.5001",
        {"day_spent": D("49.5"), "thread_cap": D(5)},
        CapCheck(False, "tenant_day"),
    ),
    (
        "day cap passed within the margin",
        "1.5",
        {"day_spent": D("49.5"), "thread_cap": D(5)},
        CapCheck(True, None),
    ),
    ("day cap already reached", "0", {"day_spent": D("50")}, CapCheck(False, "tenant_day")),
    (
        "other threads' honest reservations with room left",
        "0.02",
        {"day_spent": D("49"), "day_reserved": D("0.5")},
        CapCheck(True, None),
    ),
    (
        "other threads' reservations that truly pass the day cap",
        "0.02",
        {"day_spent": D("49"), "day_reserved": D("1.99")},
        CapCheck(False, "tenant_day"),
    ),
    ("month cap", "10.5", {"month_spent": D("499.9"), "thread_cap": D(50)}, CapCheck(False, "tenant_month")),
    ("month cap already reached", "0", {"month_spent": D("500")}, CapCheck(False, "tenant_month")),
    ("month reached exactly by the estimate", "0.1", {"month_spent": D("499.9")}, CapCheck(True, None)),
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


@pytest.mark.parametrize(("label", "estimate", "overrides", "expected"), CAP_ROWS)
def test_check_caps(label: str, estimate: str, overrides: dict[str, Decimal], expected: CapCheck) -> None:
    args = {**ZERO, **CAPS, **overrides}
    assert check_caps(estimate=D(estimate), **args) == expected, label


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
