"""Which AgentBinding answers a message on a phone number.

A tenant may deploy several bindings that all cover one phone number: one for
the whole tenant, one for the customer that owns the number, one for the number
itself. The spec fixes the precedence (phone_number over customer over tenant);
what it leaves open is a tie inside one scope, which happens while a tenant
rolls a new binding out next to an old one. The newest binding (most recent
``created_at``) wins, so creating a binding is how a tenant takes over a scope;
equal ``created_at`` values fall back to the greater ``id`` so the choice never
depends on the order the database returned the rows in.

Only enabled bindings match (CONTRACTS 7), and a customer-scope binding matches
the customer the phone number belongs to (CONTRACTS 7a), so a number with no
customer is reached only by phone-number and tenant bindings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

SCOPE_RANK = {"phone_number": 3, "customer": 2, "tenant": 1}


@dataclass(frozen=True)
class BindingCandidate:
    """The fields of an AgentBinding that decide whether and how strongly it matches."""

    id: str
    scope: str  # "tenant" | "customer" | "phone_number"
    enabled: bool
    phone_number_id: str | None
    customer_id: str | None
    created_at: datetime


def _instant(value: datetime) -> datetime:
    # SQLite hands back naive timestamps; they are stored as UTC, and mixing them with aware ones must not raise.
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


def binding_matches(candidate: BindingCandidate, *, phone_number_id: str, customer_id: str | None) -> bool:
    """Whether an enabled binding covers a message on this phone number (of this customer)."""
    if not candidate.enabled:
        return False
    if candidate.scope == "phone_number":
        return candidate.phone_number_id is not None and candidate.phone_number_id == phone_number_id
    if candidate.scope == "customer":
        return customer_id is not None and candidate.customer_id == customer_id
    return candidate.scope == "tenant"


def choose_binding(
    candidates: Sequence[BindingCandidate], *, phone_number_id: str, customer_id: str | None
) -> BindingCandidate | None:
    """The binding that answers: narrowest scope first, then newest ``created_at``, then greatest ``id``."""
    matching = [
        c for c in candidates if binding_matches(c, phone_number_id=phone_number_id, customer_id=customer_id)
    ]
    if not matching:
        return None
    return max(matching, key=lambda c: (SCOPE_RANK[c.scope], _instant(c.created_at), c.id))
