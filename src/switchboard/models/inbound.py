"""Inbound webhooks: the applied-items ledger and the payloads crossing the Temporal boundary."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel
from pydantic import Field as PydanticField
from sqlmodel import Field, SQLModel

from switchboard.models.base import UTCDateTime, utcnow


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


# Bodies larger than this travel by id: they are stored first and read by the activity, because
# Temporal refuses payloads over 2 MB (and large ones bloat workflow history).
INLINE_BODY_LIMIT = 256 * 1024


class InboundPayload(BaseModel):
    """The ProcessInbound workflow's input: one verified channel webhook body, inline when small.

    ``body`` is None for a large body: it is in the raw-envelope table under ``payload_id``.
    """

    payload_id: str
    body: str | None = None
    received_at: datetime


def inbound_payload(*, payload_id: str, body: str, received_at: datetime) -> InboundPayload:
    """The workflow input for a body: inline if small, by id (the caller stores the body) if not."""
    inline = len(body.encode("utf-8")) <= INLINE_BODY_LIMIT
    return InboundPayload(payload_id=payload_id, body=body if inline else None, received_at=received_at)


class InboundItemsInput(BaseModel):
    """Items (``domain.inbound.item_to_dict`` form) to apply again, e.g. statuses that were deferred."""

    payload_id: str
    items: list[dict[str, Any]]


class InboundSummary(BaseModel):
    """How the items of one payload (or one retry round) were applied."""

    items: int = 0
    applied: int = 0
    unchanged: int = 0
    duplicate: int = 0
    ignored: int = 0
    events: int = 0
    # Statuses whose outbound message is not stored yet, to retry after a short wait.
    deferred: list[dict[str, Any]] = PydanticField(default_factory=list)
    # Statuses still unknown after the last retry; logged and dropped.
    dropped: int = 0


class HousekeepingInput(BaseModel):
    """The moment a housekeeping run acts as of (the workflow's clock)."""

    now: datetime


class SweepResult(BaseModel):
    started: int = 0
    already_done: int = 0
    failed: int = 0


class RetentionResult(BaseModel):
    raw_deleted: int = 0
    raw_unprocessed_deleted: int = 0
    ledger_deleted: int = 0
    retention_days: int = 14


class InboundHousekeepingResult(BaseModel):
    sweep: SweepResult
    retention: RetentionResult


class ReceiptSummary(BaseModel):
    """How a payload's items were applied while the channel waited.

    ``deferred`` counts statuses whose outbound message was not stored yet: a ProcessInbound run retries them.
    """

    items: int
    applied: int
    unchanged: int
    duplicate: int
    ignored: int
    events: int
    deferred: int

    @classmethod
    def of(cls, summary: InboundSummary) -> ReceiptSummary:
        return cls(**summary.model_dump(exclude={"deferred", "dropped"}), deferred=len(summary.deferred))


class WebhookReceipt(BaseModel):
    """The answer to a verified channel webhook POST (the channel reads only its status code)."""

    received: bool = True
    payload_id: str = PydanticField(description="SHA-256 of the raw body")
    duplicate: bool = PydanticField(
        description="true when this exact body had been applied (or accepted) before"
    )
    summary: ReceiptSummary | None = PydanticField(
        default=None,
        description=(
            "what was applied during the request; null when the body was handed to a ProcessInbound run "
            "(a large body, an error during the request, or INBOUND_APPLY_IN_REQUEST off)"
        ),
    )
