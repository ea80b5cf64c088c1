"""The ledger of inbound items already applied (deduplication across redeliveries and retries)."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from models.base import UTCDateTime, utcnow


class InboundItemRecord(SQLModel, table=True):
    """One channel webhook item that has been applied; written in the item's own transaction.

    ``key`` is the business number (or WABA) plus the item's ``dedup_key()``, so a
    redelivered payload, a retried activity or the second of two upstream signals
    for the same fact finds its key and changes nothing. Pruned with the raw
    envelopes once the upstream has stopped redelivering (it gives up after 7 days).
    """

    __tablename__ = "inbound_items"

    key: str = Field(primary_key=True)
    payload_id: str | None = None
    applied_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, index=True)
