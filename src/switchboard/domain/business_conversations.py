"""Business-initiated conversation tiers (spec: Limits): which sends open one, and each WABA's cap.

A business-initiated conversation with a contact opens when a template goes
to them while no customer-service window is open (no message from them in the
last 24 h) and none is already open with them: a contact who received such a
template in the last 24 h is already counted, and further templates to them
open nothing new. Templates inside the window and free-form replies are
user-initiated and never count. Each WABA may have this many open in any
rolling 24 h, by its messaging tier; the service refuses the next one itself,
before the upstream would, and says when a slot frees up.

A contact stays counted until 24 h after the last template that went to them
outside the window: for senders who write to the same contact day after day
that is the same figure as the upstream's "unique users reached by templates
outside a customer-service window in a moving 24 h", and it never counts fewer
conversations than the upstream does.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from switchboard.domain.errors import RateLimited

BUSINESS_CONVERSATION_WINDOW = timedelta(hours=24)
LIMIT_CODE = "BUSINESS_INITIATED_LIMIT_REACHED"
# None: unlimited.
TIER_LIMITS: dict[str, int | None] = {
    "tier_1": 1_000,
    "tier_2": 10_000,
    "tier_3": 100_000,
    "tier_4": None,
}


def tier_limit(tier: str) -> int | None:
    """Business-initiated conversations a WABA of this tier may open per rolling 24 h (None: no cap).

    An unknown tier gets the smallest cap: refusing early is cheaper than the upstream's penalties.
    """
    return TIER_LIMITS.get(tier, TIER_LIMITS["tier_1"])


def may_open_business_conversation(message_type: str) -> bool:
    """Whether a send of this type can open a business-initiated conversation at all (templates only)."""
    return message_type == "template"


def opens_business_conversation(message_type: str, *, window_open: bool, already_counted: bool) -> bool:
    """Whether this send opens a new business-initiated conversation with its contact."""
    return may_open_business_conversation(message_type) and not window_open and not already_counted


def check_business_limit(
    *, tier: str, open_count: int, frees_at: datetime | None, now: datetime, waba_id: str
) -> None:
    """Refuse (429) a send that would open one conversation more than the tier allows.

    ``open_count`` is how many the WABA has open now; ``frees_at`` when the
    first of them stops counting, which is when the caller may try again.
    """
    limit = tier_limit(tier)
    if limit is None or open_count < limit:
        return
    wait = (frees_at - now).total_seconds() if frees_at is not None else 0.0
    if wait <= 0:
        wait = BUSINESS_CONVERSATION_WINDOW.total_seconds()
    raise RateLimited(
        f"WABA {waba_id} has {open_count} business-initiated conversations open in the last 24 h, "
        f"the {tier} limit is {limit}; templates to contacts already reached or inside their "
        "customer-service window are still accepted",
        retry_after_seconds=math.ceil(wait),
        code=LIMIT_CODE,
        details={"waba_id": waba_id, "messaging_tier": tier, "limit": limit, "open": open_count},
    )
