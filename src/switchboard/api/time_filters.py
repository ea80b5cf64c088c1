"""Time filters of list endpoints: an ISO date or datetime, read the same way everywhere."""

from __future__ import annotations

from datetime import UTC, date, datetime, time

from switchboard.domain.errors import ValidationFailed


def time_bound(value: str | None, *, field: str, end_of_day: bool) -> datetime | None:
    """An ISO date or datetime filter; a bare date ``until`` includes that whole day (UTC)."""
    if value is None:
        return None
    try:
        if len(value) == 10:
            day = date.fromisoformat(value)
            moment = datetime.combine(day, time.max if end_of_day else time.min, tzinfo=UTC)
        else:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValidationFailed(
            f"{field} must be an ISO 8601 date or datetime",
            code="VALIDATION_FAILED",
            details={"field": field, "value": value},
        ) from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment
