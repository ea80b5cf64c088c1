"""Reserve-and-settle math for the cost circuit breaker, in ``Decimal`` only.

Spend is known only after a model call returns, and concurrent runs of one
tenant would each see the cap as not yet reached. So before a call the run
reserves an upper bound of what the call can cost, the caps are checked
against spent + reserved + this reservation, and after the call the
reservation is replaced by the real cost. A reservation must never be lower
than the real cost, or concurrent runs could overshoot the cap together.

Input tokens are estimated as ``ceil(prompt_chars / 2)``. Tokenizers of the
supported models average about 3.5 to 4.5 characters per token for Spanish and
English prose and about 2.5 to 3 for JSON (tool schemas and results, with their
quotes, braces and short keys); 2 characters per token stays above all of them,
and the output is bounded by ``max_output_tokens``, which the provider
enforces. Amounts are kept at 10 decimal places (the storage precision of
spend, CONTRACTS 7a); a reservation rounds up so the bound stays a bound.

Days and months are the tenant's, in its IANA time zone (CONTRACTS 7a).
"""

from __future__ import annotations

import decimal
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import ROUND_CEILING, ROUND_HALF_UP, Decimal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

USD_PLACES = 10
_QUANTUM = Decimal(1).scaleb(-USD_PLACES)
TOKENS_PER_PRICE_UNIT = 1_000_000
CHARS_PER_TOKEN_LOWER_BOUND = 2

# Enough digits that no product or sum below is rounded before the final quantize.
_WIDE = decimal.Context(prec=60, traps=[decimal.InvalidOperation, decimal.Overflow])


def _quantize(value: Decimal, rounding: str) -> Decimal:
    return value.quantize(_QUANTUM, rounding=rounding, context=_WIDE)


def quantize_usd(value: Decimal) -> Decimal:
    """A USD amount at the 10 decimal places spend is stored with (half-up)."""
    return _quantize(value, ROUND_HALF_UP)


def estimated_input_tokens(prompt_chars: int) -> int:
    """An upper bound on the input tokens of a prompt of ``prompt_chars`` characters."""
    if prompt_chars < 0:
        raise ValueError("prompt_chars must not be negative")
    return -(-prompt_chars // CHARS_PER_TOKEN_LOWER_BOUND)


def reservation_usd(
    *, prompt_chars: int, max_output_tokens: int, input_per_mtok: Decimal, output_per_mtok: Decimal
) -> Decimal:
    """What to reserve before a model call: an upper bound on its cost, rounded up to 10 places."""
    if max_output_tokens < 0:
        raise ValueError("max_output_tokens must not be negative")
    if input_per_mtok < 0 or output_per_mtok < 0:
        raise ValueError("prices must not be negative")
    tokens_in = estimated_input_tokens(prompt_chars)
    total = _WIDE.add(
        _WIDE.multiply(Decimal(tokens_in), input_per_mtok),
        _WIDE.multiply(Decimal(max_output_tokens), output_per_mtok),
    )
    return _quantize(_WIDE.divide(total, Decimal(TOKENS_PER_PRICE_UNIT)), ROUND_CEILING)


@dataclass(frozen=True)
class CapCheck:
    """Whether a reservation fits every cap, and if not, the first scope it trips."""

    allowed: bool
    scope: str | None  # "thread" | "tenant_day" | "tenant_month"


def _trips(reservation: Decimal, spent: Decimal, reserved: Decimal, cap: Decimal) -> bool:
    return spent >= cap or _WIDE.add(_WIDE.add(spent, reserved), reservation) > cap


def check_caps(
    *,
    reservation: Decimal,
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
    """Allowed iff spent + reserved + reservation stays within each cap (thread, then day, then month)."""
    scopes = (
        ("thread", thread_spent, thread_reserved, thread_cap),
        ("tenant_day", day_spent, day_reserved, day_cap),
        ("tenant_month", month_spent, month_reserved, month_cap),
    )
    for scope, spent, reserved, cap in scopes:
        if _trips(reservation, spent, reserved, cap):
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
