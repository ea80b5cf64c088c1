"""Estimate-and-settle math for the cost circuit breaker, in ``Decimal`` only.

Spend is known only after a model call returns, and concurrent runs of one
tenant would each see the cap as not yet reached. So before a call the run
reserves an honest estimate of what the call will cost, the caps are checked
against spent + reserved + this estimate, and after the call the reservation
is replaced by the real cost (docs/agents.md, "Cost").

The estimate. Input tokens are the prompt's characters at a calibrated rate
per kind of content (prose: system prompt and message text; JSON: tool
schemas, tool-call arguments and tool results) plus a few tokens per message
and per tool and a tool-use preamble, multiplied by the thread's own
calibration: what the provider reported for the thread's previous call over
what this formula estimated for it (clamped). The rates are a little below
the characters per token that cl100k, o200k and Anthropic's published
tokenizer give for Spanish and English conversations, so an uncalibrated
estimate errs high by 5 to 25 %. Output tokens are the largest output the
thread's recent calls of the same kind produced (``max_tokens`` while there is
none), never more than ``max_tokens``, which the provider enforces.

The rule. A scope trips when its recorded spend has reached its cap, or when
spent + reserved + this estimate would pass the cap by more than
``CAP_MARGIN`` of it. Reserved amounts are held until each call settles, so
at every moment spent + reserved <= cap + margin, and a scope ends at most
``margin`` plus the in-flight calls' excess over their estimates past its
cap; a thread has one call in flight at a time.

Days and months are the tenant's, in its IANA time zone (CONTRACTS 7a).
Amounts are kept at 10 decimal places (the storage precision of spend); an
estimate rounds up.
"""

from __future__ import annotations

import decimal
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Decimal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

USD_PLACES = 10
_QUANTUM = Decimal(1).scaleb(-USD_PLACES)
TOKENS_PER_PRICE_UNIT = 1_000_000

# Characters per token, calibrated on Spanish and English clinic conversations: cl100k gives
# 3.4 (prose) and 2.8 to 3.2 (JSON), o200k 3.9 and 2.9 to 3.2, Anthropic's tokenizer 3.2 and
# 2.7 to 3.0. Slightly below the lowest of them, so the estimate errs high, not low.
PROSE_CHARS_PER_TOKEN = Decimal("3.0")
JSON_CHARS_PER_TOKEN = Decimal("2.5")
TOKENS_PER_MESSAGE = 4  # role markers and separators every chat format adds
TOKENS_PER_TOOL = 8  # the wrapper around each tool's schema
TOOL_USE_PREAMBLE_TOKENS = 350  # Anthropic bills ~346 tokens of tool-use system prompt; others less
# A thread's calibration (reported / estimated prompt tokens of its previous call) is clamped,
# so one odd usage figure cannot make the next estimate absurd in either direction.
CALIBRATION_MIN = Decimal("0.5")
CALIBRATION_MAX = Decimal("2")
# How far past a cap the next call's estimate may reach before the scope trips.
CAP_MARGIN = Decimal("0.02")

# Enough digits that no product or sum below is rounded before the final quantize.
_WIDE = decimal.Context(prec=60, traps=[decimal.InvalidOperation, decimal.Overflow])


def _quantize(value: Decimal, rounding: str) -> Decimal:
    return value.quantize(_QUANTUM, rounding=rounding, context=_WIDE)


def quantize_usd(value: Decimal) -> Decimal:
    """A USD amount at the 10 decimal places spend is stored with (half-up)."""
    return _quantize(value, ROUND_HALF_UP)


@dataclass(frozen=True)
class PromptSize:
    """What a model call sends, measured: characters of prose and of JSON, messages and tools."""

    prose_chars: int
    json_chars: int
    messages: int
    tools: int


def estimated_prompt_tokens(size: PromptSize, *, calibration: Decimal = Decimal(1)) -> int:
    """The prompt tokens a call of ``size`` is expected to bill, times the thread's calibration (rounded up)."""
    if min(size.prose_chars, size.json_chars, size.messages, size.tools) < 0:
        raise ValueError("prompt sizes must not be negative")
    if calibration <= 0:
        raise ValueError("calibration must be positive")
    tokens = _WIDE.add(
        _WIDE.divide(Decimal(size.prose_chars), PROSE_CHARS_PER_TOKEN),
        _WIDE.divide(Decimal(size.json_chars), JSON_CHARS_PER_TOKEN),
    )
    overhead = size.messages * TOKENS_PER_MESSAGE + size.tools * TOKENS_PER_TOOL
    if size.tools:
        overhead += TOOL_USE_PREAMBLE_TOKENS
    total = _WIDE.multiply(_WIDE.add(tokens, Decimal(overhead)), calibration)
    return int(total.to_integral_value(rounding=ROUND_CEILING, context=_WIDE))


def calibration(*, reported_prompt_tokens: int, estimated_prompt_tokens: int) -> Decimal:
    """Reported over estimated prompt tokens of a thread's previous call, clamped to [0.5, 2]."""
    if reported_prompt_tokens < 0 or estimated_prompt_tokens <= 0:
        return Decimal(1)
    ratio = _WIDE.divide(Decimal(reported_prompt_tokens), Decimal(estimated_prompt_tokens))
    return min(
        CALIBRATION_MAX, max(CALIBRATION_MIN, ratio.quantize(Decimal("0.0001"), rounding=ROUND_CEILING))
    )


def expected_output_tokens(*, max_tokens: int, observed: Sequence[int]) -> int:
    """The largest recently observed output, never above ``max_tokens``; ``max_tokens`` with none observed."""
    if max_tokens < 0 or any(tokens < 0 for tokens in observed):
        raise ValueError("token counts must not be negative")
    return min(max_tokens, max(observed)) if observed else max_tokens


def call_estimate_usd(
    *, prompt_tokens: int, output_tokens: int, input_per_mtok: Decimal, output_per_mtok: Decimal
) -> Decimal:
    """What to reserve before a model call: its estimated tokens at the rate card, rounded up to 10 places."""
    if prompt_tokens < 0 or output_tokens < 0:
        raise ValueError("token counts must not be negative")
    if input_per_mtok < 0 or output_per_mtok < 0:
        raise ValueError("prices must not be negative")
    total = _WIDE.add(
        _WIDE.multiply(Decimal(prompt_tokens), input_per_mtok),
        _WIDE.multiply(Decimal(output_tokens), output_per_mtok),
    )
    return _quantize(_WIDE.divide(total, Decimal(TOKENS_PER_PRICE_UNIT)), ROUND_CEILING)


def admission_limit(cap: Decimal) -> Decimal:
    """The most spent + reserved may reach with a new call admitted: the cap plus ``CAP_MARGIN`` of it."""
    if cap < 0:
        raise ValueError("caps must not be negative")
    return _quantize(_WIDE.add(cap, _WIDE.multiply(cap, CAP_MARGIN)), ROUND_FLOOR)


@dataclass(frozen=True)
class CapCheck:
    """Whether a reservation fits every cap, and if not, the first scope it trips."""

    allowed: bool
    scope: str | None  # "thread" | "tenant_day" | "tenant_month"


def trips(*, estimate: Decimal, spent: Decimal, reserved: Decimal, cap: Decimal) -> bool:
    """A scope trips when its spend reached the cap or spent + reserved + estimate passes the cap plus margin."""
    return spent >= cap or _WIDE.add(_WIDE.add(spent, reserved), estimate) > admission_limit(cap)


def check_caps(
    *,
    estimate: Decimal,
    thread_spent: Decimal,
    thread_reserved: Decimal,
    thread_cap: Decimal,
    day_spent: Decimal,
    day_reserved: Decimal,
    day_cap: Decimal,
    month_spent: Decimal,
    month_reserved: Decimal,
    month_cap: Decimal,
) -> CapCheck:
    """The breaker's decision for one call (thread, then day, then month); the store applies the same rule in SQL."""
    scopes = (
        ("thread", thread_spent, thread_reserved, thread_cap),
        ("tenant_day", day_spent, day_reserved, day_cap),
        ("tenant_month", month_spent, month_reserved, month_cap),
    )
    for scope, spent, reserved, cap in scopes:
        if trips(estimate=estimate, spent=spent, reserved=reserved, cap=cap):
            return CapCheck(allowed=False, scope=scope)
    return CapCheck(allowed=True, scope=None)


def _local(now: datetime, tz: str) -> datetime:
    try:
        zone = ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(f"unknown time zone: {tz!r}") from exc
    aware = now.replace(tzinfo=UTC) if now.tzinfo is None else now
    return aware.astimezone(zone)


def cost_day(now: datetime, tz: str) -> date:
    """The tenant's cost day at ``now``: the calendar date in its time zone (naive ``now`` is UTC)."""
    return _local(now, tz).date()


def cost_month(now: datetime, tz: str) -> date:
    """The tenant's cost month at ``now``, as the first day of that month in its time zone."""
    return _local(now, tz).date().replace(day=1)
