"""Message status rules: monotonic outbound progress, conversation reopening, the 24 h window.

Upstream statuses arrive late, twice, out of order, and ``read`` may come
without ``delivered``. The stored status only moves forward on
``sent < delivered < read``; ``failed`` ends the message unless it was already
read (the user saw it, so a later failure is noise). ``failed_transient`` (our
own send attempt gave up on a retryable error) ranks below ``sent``, so any
upstream progress supersedes it. Rows that are not live outbound messages
(``received``, ``historical``, ``sent_sandbox``) never change. Upstream values
the service does not model (``played``, ``deleted``, ``warning`` ...) change
nothing. Applying the same update twice changes nothing the second time, so an
update is applied as ``next_status(current, update)`` without remembering what
was seen before.

``channel.message.sent`` is emitted when the upstream accepts the send (the row
is created as ``sent``); an upstream ``sent`` status for that row then changes
nothing. A message first learned of through a status (``current`` None) takes
the update's status and emits its event.

A live send is stored ``queued`` until its workflow records what the upstream
answered (``send_outcome_status``): ``sent``, ``failed`` for a refusal, or
``failed_transient`` when the upstream stayed unavailable for the whole retry
window. Upstream statuses never move a ``queued`` row (the send's own outcome
does).

Retries: only ``failed`` and ``failed_transient`` messages may be retried, at
most one request per ``RETRY_GUARD`` (5 minutes); a refused request is told the
time actually left, rounded up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

QUEUED = "queued"
SENT = "sent"
DELIVERED = "delivered"
READ = "read"
FAILED = "failed"
FAILED_TRANSIENT = "failed_transient"
SENT_SANDBOX = "sent_sandbox"
RECEIVED = "received"
HISTORICAL = "historical"
# Every status a stored message can have (the spec's Message status table): what a list may filter on.
MessageStatus = Literal[
    "queued",
    "sent",
    "delivered",
    "read",
    "failed",
    "failed_transient",
    "sent_sandbox",
    "received",
    "historical",
]

# Statuses a message rests in (``queued`` is transient: the send workflow always settles it).
MESSAGE_STATUSES = (SENT, DELIVERED, READ, FAILED, FAILED_TRANSIENT, SENT_SANDBOX, RECEIVED, HISTORICAL)
UPSTREAM_STATUSES = (SENT, DELIVERED, READ, FAILED)
RETRYABLE_STATUSES = frozenset({FAILED, FAILED_TRANSIENT})

_RANK = {FAILED_TRANSIENT: 0, SENT: 1, DELIVERED: 2, READ: 3}
_FROZEN = frozenset({FAILED, SENT_SANDBOX, RECEIVED, HISTORICAL})

STATUS_EVENTS = {
    SENT: "channel.message.sent",
    DELIVERED: "channel.message.delivered",
    READ: "channel.message.read",
    FAILED: "channel.message.failed",
}

CONVERSATION_ACTIVE = "active"
CONVERSATION_ARCHIVED = "archived"
CUSTOMER_SERVICE_WINDOW = timedelta(hours=24)
# POST /v1/messages/{id}/retry: one retry request per original within this time (spec: Limits).
RETRY_GUARD = timedelta(minutes=5)


def status_rank(status: str) -> int | None:
    """Position of a status on the forward path (failed_transient 0, sent 1, delivered 2, read 3)."""
    return _RANK.get(status)


def next_status(current: str | None, update: str) -> str | None:
    """The status to store after an upstream status update, or None when nothing changes."""
    if update not in UPSTREAM_STATUSES:
        return None
    if current is None:
        return update
    if current in _FROZEN or current not in _RANK:
        return None
    if update == FAILED:
        return FAILED if current != READ else None
    return update if _RANK[update] > _RANK[current] else None


@dataclass(frozen=True)
class StatusTransition:
    """A stored-status change and the tenant event it raises."""

    status: str
    event: str


def apply_status_update(current: str | None, update: str) -> StatusTransition | None:
    """The status change and its event for an upstream update, or None when it changes nothing."""
    new = next_status(current, update)
    if new is None:
        return None
    return StatusTransition(status=new, event=STATUS_EVENTS[new])


def send_outcome_status(*, failed: bool, transient: bool) -> str:
    """The status a queued send settles in once its workflow knows the upstream's answer."""
    if not failed:
        return SENT
    return FAILED_TRANSIENT if transient else FAILED


def can_retry(status: str) -> bool:
    """Whether POST /v1/messages/{id}/retry is allowed for a message in this status."""
    return status in RETRYABLE_STATUSES


def retry_wait_seconds(
    last_requested_at: datetime | None, *, now: datetime, guard: timedelta = RETRY_GUARD
) -> int:
    """Seconds until the retry guard lets another retry request of a message through (0: now).

    Rounded up, so a client that waits exactly this long is never refused again.
    """
    if last_requested_at is None:
        return 0
    left = (last_requested_at + guard - now).total_seconds()
    return max(0, math.ceil(left))


def reopens_conversation(current: str | None) -> bool:
    """Whether a new inbound message changes the conversation's status (archived to active)."""
    return current == CONVERSATION_ARCHIVED


def conversation_status_after_inbound(current: str | None) -> str:
    """The conversation status once an inbound message is stored: always active (archived reopens)."""
    if current not in (None, CONVERSATION_ACTIVE, CONVERSATION_ARCHIVED):
        raise ValueError(f"unknown conversation status {current!r}")
    return CONVERSATION_ACTIVE


def window_expires_at(last_inbound_at: datetime | None) -> datetime | None:
    """When the 24 h customer-service window opened by the last user message closes (None: never opened)."""
    if last_inbound_at is None:
        return None
    return last_inbound_at + CUSTOMER_SERVICE_WINDOW


def window_open(last_inbound_at: datetime | None, *, now: datetime) -> bool:
    """Whether free-form messages may be sent at ``now``; business messages never extend the window."""
    expires = window_expires_at(last_inbound_at)
    return expires is not None and now < expires


def latest_inbound_at(previous: datetime | None, occurred_at: datetime) -> datetime:
    """The window anchor after a user message; a late-arriving older message never moves it back."""
    return occurred_at if previous is None or occurred_at > previous else previous
