"""The fields every normalized inbound item shares, and its deduplication contract."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar


@dataclass(frozen=True, kw_only=True)
class ItemBase:
    """Where an item came from (business number, WABA) and when it happened upstream."""

    kind: ClassVar[str]
    phone_number_id: str | None
    display_phone_number: str | None = None
    waba_id: str | None = None
    occurred_at: datetime

    def dedup_key(self) -> str:
        """A key that is the same whenever the upstream redelivers this item."""
        raise NotImplementedError
