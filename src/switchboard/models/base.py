"""Shared persistence building blocks: metadata naming, UTC timestamps, ids.

SQLite stores datetimes without a zone and PostgreSQL with one; ``UTCDateTime``
makes both hand back timezone-aware UTC values so code never compares naive and
aware datetimes. Ids are time-ordered (a millisecond timestamp then randomness)
so that ordering by id follows creation order, which the spec asks of messages.
"""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime, MetaData
from sqlalchemy.types import TypeDecorator
from sqlmodel import SQLModel

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

SQLModel.metadata = MetaData(naming_convention=NAMING_CONVENTION)

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


class UTCDateTime(TypeDecorator[datetime]):
    """A datetime column that always round-trips as aware UTC."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        value = value.astimezone(UTC)
        # SQLite has no zone type: store naive UTC so text comparisons sort correctly.
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def utcnow() -> datetime:
    """Now, aware UTC, at millisecond precision (what the API shows)."""
    now = datetime.now(UTC)
    return now.replace(microsecond=(now.microsecond // 1000) * 1000)


def new_id(prefix: str, *, at: datetime | None = None) -> str:
    """A time-ordered id: ``<prefix>_`` + 10 chars of ms timestamp + 16 random chars."""
    millis = int((at.timestamp() if at else time.time()) * 1000)
    stamp = "".join(_CROCKFORD[(millis >> shift) & 31] for shift in range(45, -1, -5))
    rand = int.from_bytes(os.urandom(10), "big")
    tail = "".join(_CROCKFORD[(rand >> shift) & 31] for shift in range(75, -1, -5))
    return f"{prefix}_{stamp}{tail}"


def iso_millis(value: datetime) -> str:
    """ISO 8601 in UTC with milliseconds and a Z, as the API answers timestamps."""
    return value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
