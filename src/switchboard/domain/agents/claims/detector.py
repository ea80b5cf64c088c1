"""The entry point: the first completed-action claim in a reply, in text order."""

from __future__ import annotations

from dataclasses import dataclass

from switchboard.domain.agents.claims.checks import check
from switchboard.domain.agents.claims.normalize import normalize
from switchboard.domain.agents.claims.rules import RULES
from switchboard.domain.agents.claims.statements import statements

ACTIONS = ("booked", "cancelled", "changed", "paid", "sent", "registered", "confirmed")


@dataclass(frozen=True)
class ActionClaim:
    action: str  # one of ACTIONS
    matched: str  # the normalized snippet that matched


def detect_action_claim(reply: str | None) -> ActionClaim | None:
    """The first completed-action claim in an agent's reply, or None."""
    if not reply or not reply.strip():
        return None
    for s in statements(normalize(reply)):
        candidates = [
            (m.start(), i, rule, m) for i, rule in enumerate(RULES) for m in rule.pattern.finditer(s)
        ]
        for _, _, rule, m in sorted(candidates, key=lambda c: (c[0], c[1])):
            action = check(rule, m, s)
            if action:
                return ActionClaim(action=action, matched=m.group().strip(" ,:"))
    return None
