"""Per-key request limits and their fixed windows (spec: Limits).

Sandbox keys always get the sandbox limits; live keys get their tenant plan's,
and enterprise tenants may carry custom figures.
"""

from __future__ import annotations

from dataclasses import dataclass

DAY_SECONDS = 86_400

_PLAN_LIMITS: dict[str, tuple[int, int]] = {
    "sandbox": (10, 1_000),
    "standard": (100, 100_000),
    "high_volume": (500, 1_000_000),
    # Enterprise without custom figures starts at high-volume limits.
    "enterprise": (500, 1_000_000),
}


@dataclass(frozen=True)
class Limits:
    per_second: int
    per_day: int


def limits_for(
    *, mode: str, plan: str, custom_per_second: int | None = None, custom_per_day: int | None = None
) -> Limits:
    """The limits that apply to one key."""
    if mode == "test":
        return Limits(*_PLAN_LIMITS["sandbox"])
    per_second, per_day = _PLAN_LIMITS.get(plan, _PLAN_LIMITS["standard"])
    if plan == "enterprise":
        per_second = custom_per_second or per_second
        per_day = custom_per_day or per_day
    return Limits(per_second, per_day)


@dataclass(frozen=True)
class Windows:
    second_bucket: str
    second_reset: int
    day_bucket: str
    day_reset: int


def windows_at(key_id: str, epoch_seconds: float) -> Windows:
    """The 1 s and 1 day (UTC) window buckets a request at this instant falls in."""
    second = int(epoch_seconds)
    day = second // DAY_SECONDS
    return Windows(
        second_bucket=f"{key_id}:s:{second}",
        second_reset=second + 1,
        day_bucket=f"{key_id}:d:{day}",
        day_reset=(day + 1) * DAY_SECONDS,
    )


def newest_window(bucket: str, other: str) -> str:
    """The later of two buckets of one key and kind (``windows_at`` ends each in its window's number)."""
    if not other:
        return bucket
    return bucket if int(bucket.rsplit(":", 1)[1]) >= int(other.rsplit(":", 1)[1]) else other
