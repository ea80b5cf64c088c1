"""Template approval states, and which upstream fact about a template is the newer one.

The stored status of a template comes from three sources: our create call
(PENDING), a full read of the WABA's templates (``/sync`` and the periodic
sync), and ``message_template_status_update`` webhooks. Webhooks arrive late,
twice and out of order, and approval states are not monotonic (APPROVED ->
PAUSED -> APPROVED), so the only safe order is time: ``Template.updated_at``
holds the as-of time of the status we hold, and a fact older than that never
overwrites it.

Webhook times are the envelope's whole seconds. A webhook change is taken to
have happened by the end of its second (its as-of time is the second's last
microsecond), and is compared with the state at whole seconds:

- webhook vs webhook: the later second wins; in the same second, the later arrival;
- webhook vs our create or read in the same second: the webhook wins (it reports
  a change, which a read that started within that second may have missed);
- read vs webhook: a read applies only if it started after the webhook's second;
- read vs read or create: the later start wins.
"""

from __future__ import annotations

from datetime import datetime

APPROVED = "APPROVED"
PENDING = "PENDING"
# Statuses the upstream reports for a template (list and webhook); only APPROVED sends.
TEMPLATE_STATUSES = frozenset(
    {
        APPROVED,
        PENDING,
        "REJECTED",
        "PAUSED",
        "DISABLED",
        "FLAGGED",
        "IN_APPEAL",
        "PENDING_DELETION",
        "DELETED",
        "LIMIT_EXCEEDED",
        "ARCHIVED",
        "LOCKED",
    }
)
# Events that name a transition rather than the state it leads to.
_EVENT_STATUS = {"REINSTATED": APPROVED}


def status_after_event(event: str | None) -> str | None:
    """The status a template status event leaves, or None when the event does not say.

    UNARCHIVED (back to whatever it was) and events this service does not know
    leave the status alone; the periodic sync reads the real one.
    """
    if not event:
        return None
    normalized = event.strip().upper()
    if normalized in _EVENT_STATUS:
        return _EVENT_STATUS[normalized]
    return normalized if normalized in TEMPLATE_STATUSES else None


def event_as_of(event_at: datetime) -> datetime:
    """The as-of time a webhook change gives the state: the end of its whole second."""
    return event_at.replace(microsecond=999_999)


def event_is_current(event_at: datetime, state_at: datetime | None) -> bool:
    """Whether a webhook change at ``event_at`` (whole seconds) may replace a state held as of ``state_at``."""
    return state_at is None or event_at.replace(microsecond=0) >= state_at.replace(microsecond=0)


def read_is_current(read_at: datetime, state_at: datetime | None) -> bool:
    """Whether a full read that started at ``read_at`` may replace a state held as of ``state_at``."""
    return state_at is None or read_at >= state_at


def later(first: datetime, second: datetime | None) -> datetime:
    """The later of two as-of times (a state's as-of time never moves back)."""
    return first if second is None or first >= second else second
