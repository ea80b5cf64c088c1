"""What applying one inbound item did."""

from __future__ import annotations

from dataclasses import dataclass, field

APPLIED = "applied"
# A valid item that changes nothing now (e.g. a late ``delivered`` after ``read``).
UNCHANGED = "unchanged"
DUPLICATE = "duplicate"
# Not for a number provisioned here, or a kind the service only logs.
IGNORED = "ignored"
# A status, edit, revoke or history asset for a message not stored yet; the workflow retries it shortly.
DEFERRED = "deferred"

OUTCOMES = (APPLIED, UNCHANGED, DUPLICATE, IGNORED, DEFERRED)


@dataclass
class ItemOutcome:
    """The result of one item and the ids of the events it wrote (to dispatch after commit)."""

    result: str
    event_ids: list[str] = field(default_factory=list)
    # Agent turns recorded with the item, (tenant_id, thread_id, message_id), to signal after commit.
    turns: list[tuple[str, str, str]] = field(default_factory=list)
    # Threads whose timers must re-read their due time (a human message muted them), (tenant_id, thread_id).
    woken: list[tuple[str, str]] = field(default_factory=list)
