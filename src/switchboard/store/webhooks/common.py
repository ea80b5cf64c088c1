"""Small SQL helpers the webhook store modules share."""

from __future__ import annotations

from typing import Any

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession


def dialect_insert(session: AsyncSession, table: Any) -> Any:
    """An INSERT that supports ON CONFLICT on both PostgreSQL and SQLite."""
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    return insert(table)
