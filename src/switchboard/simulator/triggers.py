"""Recipient numbers, template names and usernames that make the simulator fail.

Sends (``to``, matched on its digits, so ``+1 (202) 555-0130`` works too):

| to | outcome |
|---|---|
| +1 202 555 0130 | HTTP 400, code 131030 recipient not in allowed list |
| +1 202 555 0147 | HTTP 400, code 131047 re-engagement (outside the 24 h window) |
| +1 202 555 0148 | 200 accepted, then a ``failed`` status with 131047 |
| +1 202 555 0126 | 200 accepted, then a ``failed`` status with 131026 (undeliverable) |
| +1 202 555 0149 | 200 accepted, then a ``failed`` status with 131049 (ecosystem engagement) |
| +1 202 555 0150 | HTTP 500, code 131000, on every attempt |
| +1 202 555 0153 | HTTP 503, code 131016, ``flaky_failures`` times (default 2), then one success; repeats |
| +1 202 555 0104 | HTTP 429, code 4 (application request limit) |
| +1 202 555 0129 | HTTP 429, code 130429 (throughput exceeded) |
| +54 9 11 5550 0130 | HTTP 400, code 131030; +54 11 5550 0130 (without the 9) is accepted |
| +52 1 55 5550 0130 | HTTP 400, code 131030; +52 55 5550 0130 (without the 1) is accepted |
| +55 11 9 8765 0130 | HTTP 400, code 131030; +55 11 8765 0130 (without the ninth digit) is accepted |

The Brazilian pair rejects the form the service sends first (its canonical form
keeps the ninth digit), so it exercises the service's alternate-form retry.

Templates: a name starting with ``missing_`` answers HTTP 400 code 132001, and so
does a template created in the simulator that is not APPROVED (PAUSED gives
132015, DISABLED 132016). Templates the simulator never saw are accepted.

Usernames: one starting with ``taken`` answers 147001, one starting with
``ineligible`` answers 147002, one held by another phone number answers 147005
unless ``transfer_action`` is ``force_transfer``, and one starting with
``review`` is answered ``reserved`` instead of ``approved``.

Tokens: no bearer token answers 401 code 190; the token ``sim-expired-token``
answers 401 code 190 subcode 463.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from switchboard.simulator.graph_errors import GraphError

TriggerKind = Literal["reject", "fail_async", "flaky"]

EXPIRED_TOKEN = "sim-expired-token"
MISSING_TEMPLATE_PREFIX = "missing_"
TAKEN_USERNAME_PREFIX = "taken"
INELIGIBLE_USERNAME_PREFIX = "ineligible"
REVIEW_USERNAME_PREFIX = "review"


@dataclass(frozen=True)
class Trigger:
    """What a trigger number does to a send."""

    kind: TriggerKind
    http_status: int
    code: int
    title: str
    details: str
    error_type: str = "OAuthException"
    is_transient: bool | None = None

    def graph_error(self) -> GraphError:
        """The synchronous error this trigger answers with."""
        return GraphError(
            self.http_status,
            self.code,
            f"(#{self.code}) {self.title}",
            details=self.details,
            error_type=self.error_type,
            is_transient=self.is_transient,
        )


_NOT_ALLOWED = Trigger(
    "reject",
    400,
    131030,
    "Recipient phone number not in allowed list",
    "Recipient phone number not in allowed list: Add recipient phone number to recipient list and try again.",
)
_REENGAGEMENT_DETAILS = (
    "Message failed to send because more than 24 hours have passed "
    "since the customer last replied to this number."
)
REENGAGEMENT = Trigger("fail_async", 400, 131047, "Re-engagement message", _REENGAGEMENT_DETAILS)

TRIGGERS: dict[str, Trigger] = {
    "12025550130": _NOT_ALLOWED,
    "12025550147": Trigger("reject", 400, 131047, "Re-engagement message", _REENGAGEMENT_DETAILS),
    "12025550148": REENGAGEMENT,
    "12025550126": Trigger("fail_async", 400, 131026, "Message undeliverable", "Message Undeliverable."),
    "12025550149": Trigger(
        "fail_async",
        400,
        131049,
        "This message was not delivered to maintain healthy ecosystem engagement.",
        "In order to maintain a healthy ecosystem engagement, the message failed to be delivered.",
    ),
    "12025550150": Trigger(
        "reject", 500, 131000, "Something went wrong", "Something went wrong.", is_transient=True
    ),
    "12025550153": Trigger(
        "flaky",
        503,
        131016,
        "Service unavailable",
        "A service is temporarily unavailable. Please try again later.",
        is_transient=True,
    ),
    "12025550104": Trigger(
        "reject",
        429,
        4,
        "Application request limit reached",
        "Too many calls from this application. Retry later.",
        is_transient=True,
    ),
    "12025550129": Trigger(
        "reject",
        429,
        130429,
        "Rate limit hit",
        "Cloud API message throughput has been reached.",
        is_transient=True,
    ),
    "5491155500130": _NOT_ALLOWED,
    "5215555500130": _NOT_ALLOWED,
    "5511987650130": _NOT_ALLOWED,
}


def trigger_for(to: str) -> Trigger | None:
    """The trigger for a recipient's digits, if any."""
    return TRIGGERS.get(to)
