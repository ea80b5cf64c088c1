"""Small SQL helpers the webhook store modules share."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import literal
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from switchboard.models.base import UTCDateTime


def dialect_insert(session: AsyncSession, table: Any) -> Any:
    """An INSERT that supports ON CONFLICT on both PostgreSQL and SQLite."""
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    return insert(table)


def utc_literal(value: datetime) -> Any:
    """A bound datetime typed as a UTC column (so SQLite stores it the way the columns do)."""
    return literal(value, UTCDateTime())
