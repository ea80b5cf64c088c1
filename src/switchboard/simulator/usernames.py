"""Business username rules: format, trigger prefixes, portfolio uniqueness and transfer."""

from __future__ import annotations

import re

from switchboard.simulator.graph_errors import GraphError, invalid_parameter
from switchboard.simulator.state import SimState, UsernameRecord
from switchboard.simulator.triggers import (
    INELIGIBLE_USERNAME_PREFIX,
    REVIEW_USERNAME_PREFIX,
    TAKEN_USERNAME_PREFIX,
)

_ALLOWED = re.compile(r"^[a-z0-9._]{3,35}$")
_DOMAIN_SUFFIXES = (".com", ".net", ".org", ".io", ".co", ".app", ".info", ".biz", ".me")
TRANSFER_ACTIONS = ("none", "force_transfer")


def format_problem(username: str) -> str | None:
    """Why a username breaks the documented format, or None."""
    if not _ALLOWED.match(username):
        return "A username has 3 to 35 characters from a-z, 0-9, period and underscore."
    if not re.search(r"[a-z]", username):
        return "A username needs at least one letter."
    if username.startswith(".") or username.endswith(".") or ".." in username:
        return "A username cannot start or end with a period or hold consecutive periods."
    if username.startswith("www"):
        return "A username cannot start with www."
    if username.endswith(_DOMAIN_SUFFIXES):
        return "A username cannot end in a domain suffix."
    return None


def _error(code: int, title: str, details: str) -> GraphError:
    return GraphError(400, code, f"(#{code}) {title}", details=details)


def set_username(
    state: SimState, phone_number_id: str, raw: object, transfer_action: object
) -> UsernameRecord:
    """Apply a username request to a phone number and return its new record."""
    if not isinstance(raw, str) or not raw:
        raise invalid_parameter("The parameter username is required.")
    username = raw.lower()
    problem = format_problem(username)
    if problem is not None:
        raise invalid_parameter(problem)
    action = transfer_action or "none"
    if action not in TRANSFER_ACTIONS:
        raise invalid_parameter(f"transfer_action must be one of {', '.join(TRANSFER_ACTIONS)}.")
    if username.startswith(TAKEN_USERNAME_PREFIX):
        raise _error(
            147001, "Username is unavailable", f"The username {username} is taken by another business."
        )
    if username.startswith(INELIGIBLE_USERNAME_PREFIX):
        raise _error(
            147002,
            "Business is not eligible for a username",
            "This business account is not eligible for a username (insufficient messaging limit tier).",
        )
    holder = next((pid for pid, rec in state.usernames.items() if rec.username == username), None)
    if holder is not None and holder != phone_number_id:
        if action != "force_transfer":
            raise _error(
                147005,
                "Username is in use on another phone number",
                f"The username {username} is used by another phone number of this business. "
                "Retry with transfer_action force_transfer to move it.",
            )
        del state.usernames[holder]
    status = "reserved" if username.startswith(REVIEW_USERNAME_PREFIX) else "approved"
    record = UsernameRecord(username=username, status=status)
    state.usernames[phone_number_id] = record
    return record


def suggestions(state: SimState, phone_number_id: str) -> list[str]:
    """Free usernames close to the phone's current one (or to its display number)."""
    current = state.usernames.get(phone_number_id)
    base = (
        current.username if current else "business" + state.phone(phone_number_id).display_phone_number[-4:]
    )
    taken = {rec.username for rec in state.usernames.values()}
    candidates = [base, f"{base}_co", f"{base}.official", f"{base}_hq", f"the.{base}"]
    return [name for name in candidates if name not in taken and format_problem(name) is None]
