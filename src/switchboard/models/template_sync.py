"""Payloads of the periodic template sync (workflows/template_sync.py): WABA ids and counts, never rows."""

from __future__ import annotations

from pydantic import BaseModel, Field


class WabaPageInput(BaseModel):
    """One page of provisioned WABAs, by channel id, after ``after``."""

    after: str | None = None
    limit: int


class WabaPage(BaseModel):
    waba_ids: list[str]
    # Set when more WABAs follow (the next run continues after it).
    next_after: str | None = None


class SyncWabaInput(BaseModel):
    waba_id: str


class SyncWabaResult(BaseModel):
    waba_id: str
    # Templates read from the upstream and stored.
    synced: int = 0
    # Of those, the ones new here or whose stored status changed (what the webhooks did not bring).
    changed: int = 0


class TemplateSyncTotals(BaseModel):
    wabas: int = 0
    failed: int = 0
    templates: int = 0
    changed: int = 0


class TemplateSyncInput(BaseModel):
    """Where a sync run continues (continue-as-new keeps each run's history bounded)."""

    after: str | None = None
    # WABAs synced per run before it continues as new.
    per_run: int = Field(default=50, ge=1, le=500)
    totals: TemplateSyncTotals = TemplateSyncTotals()
