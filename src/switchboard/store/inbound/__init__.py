"""Persistence of the channel's inbound webhooks: raw envelopes, the applied-items ledger, item handlers."""

from __future__ import annotations

from switchboard.store.inbound.apply import apply_item, ledger_key
from switchboard.store.inbound.outcome import (
    APPLIED,
    DEFERRED,
    DUPLICATE,
    IGNORED,
    OUTCOMES,
    UNCHANGED,
    ItemOutcome,
)
from switchboard.store.inbound.raw import (
    advance_watermark,
    claim_item,
    mark_raw_inbound_processed,
    prune_inbound_ledger,
    prune_raw_inbound,
    raw_inbound_body,
    raw_inbound_processed,
    record_processed_raw_inbound,
    store_raw_inbound,
    unprocessed_raw_inbound,
)

__all__ = [
    "APPLIED",
    "DEFERRED",
    "DUPLICATE",
    "IGNORED",
    "OUTCOMES",
    "UNCHANGED",
    "ItemOutcome",
    "advance_watermark",
    "apply_item",
    "claim_item",
    "ledger_key",
    "mark_raw_inbound_processed",
    "prune_inbound_ledger",
    "prune_raw_inbound",
    "raw_inbound_body",
    "raw_inbound_processed",
    "record_processed_raw_inbound",
    "store_raw_inbound",
    "unprocessed_raw_inbound",
]
