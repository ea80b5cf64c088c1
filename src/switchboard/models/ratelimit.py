"""Shared request counters for the per-key rate limits.

One row per (key, window kind, window start). Every API process increments the
same rows, so limits hold across processes without any in-memory state.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from switchboard.models.base import UTCDateTime


class RateLimitCounter(SQLModel, table=True):
    __tablename__ = "rate_limit_counters"

    bucket: str = Field(primary_key=True)
    count: int
    limit_value: int
    expires_at: datetime = Field(sa_type=UTCDateTime, index=True)
