"""Per-phone throughput tiers (spec: Limits).

Sends over a phone's tier are queued, not refused; only a queue deeper than the
limit is refused (429). Rates come in as parameters so a deployment (or a test)
can set them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TierRates:
    standard: int = 80
    medium: int = 200
    high: int = 1_000


def per_second(tier: str, rates: TierRates) -> int | None:
    """Messages per second allowed for ``tier``; None means unlimited."""
    if tier == "unlimited":
        return None
    return {"standard": rates.standard, "medium": rates.medium, "high": rates.high}.get(tier, rates.standard)


def slot_bucket(phone_number_id: str, epoch_second: int) -> str:
    """The shared counter bucket for one phone and one second."""
    return f"phone:{phone_number_id}:s:{epoch_second}"
