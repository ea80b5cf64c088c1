"""Template management rules: creation checks, listing with Graph paging, status changes."""

from __future__ import annotations

import asyncio
import base64
import re
from typing import Any

from switchboard.simulator.clock import now_s
from switchboard.simulator.delivery import WebhookPoster
from switchboard.simulator.envelopes import template_status_envelope
from switchboard.simulator.graph_errors import duplicate_template, invalid_parameter, missing_parameter
from switchboard.simulator.ids import numeric_id
from switchboard.simulator.state import SimState, TemplateRecord

CATEGORIES = ("MARKETING", "UTILITY", "AUTHENTICATION")
STATUSES = (
    "APPROVED",
    "PENDING",
    "REJECTED",
    "PAUSED",
    "DISABLED",
    "IN_APPEAL",
    "PENDING_DELETION",
    "DELETED",
    "FLAGGED",
    "REINSTATED",
    "LIMIT_EXCEEDED",
    "ARCHIVED",
    "UNARCHIVED",
    "LOCKED",
)
_NAME = re.compile(r"^[a-z0-9_]{1,512}$")
_KNOWN_FIELDS = {"name", "language", "category", "parameter_format", "components"}
DEFAULT_PAGE_SIZE = 25


def create_template(state: SimState, waba_id: str, body: Any) -> TemplateRecord:
    """Validate a creation body and store the template as PENDING."""
    if not isinstance(body, dict):
        raise invalid_parameter("The request body must be a JSON object.")
    for key in ("name", "language", "category", "components"):
        if not body.get(key):
            raise missing_parameter(key)
    name, language = body["name"], body["language"]
    if not isinstance(name, str) or not _NAME.match(name):
        raise invalid_parameter(
            "name may only contain lowercase letters, digits and underscores (at most 512)."
        )
    category = str(body["category"]).upper()
    if category not in CATEGORIES:
        raise invalid_parameter(f"category must be one of {', '.join(CATEGORIES)}.")
    parameter_format = str(body.get("parameter_format") or "positional").upper()
    if parameter_format not in ("NAMED", "POSITIONAL"):
        raise invalid_parameter("parameter_format must be named or positional.")
    if not isinstance(body["components"], list):
        raise invalid_parameter("components must be an array.")
    if any(
        t.waba_id == waba_id and t.name == name and t.language == language for t in state.templates.values()
    ):
        raise duplicate_template(name, language)
    record = TemplateRecord(
        id=numeric_id(15),
        waba_id=waba_id,
        name=name,
        language=str(language),
        category=category,
        parameter_format=parameter_format,
        components=body["components"],
        extra={key: value for key, value in body.items() if key not in _KNOWN_FIELDS},
    )
    state.templates[record.id] = record
    return record


def _cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(str(offset).encode()).decode().rstrip("=")


def _offset(cursor: str | None) -> int:
    if not cursor:
        return 0
    try:
        return max(0, int(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()))
    except ValueError as exc:
        raise invalid_parameter("The 'after' cursor is not valid.") from exc


def list_templates(
    state: SimState, waba_id: str, params: dict[str, str], *, next_base: str
) -> dict[str, Any]:
    """The ``GET /{waba_id}/message_templates`` answer with filters and cursor paging."""
    matches = [t for t in state.templates.values() if t.waba_id == waba_id]
    for key in ("status", "category", "language"):
        if params.get(key):
            wanted = {value.strip().upper() for value in params[key].split(",")}
            matches = [t for t in matches if str(getattr(t, key)).upper() in wanted]
    if params.get("name"):
        matches = [t for t in matches if params["name"].lower() in t.name.lower()]
    try:
        limit = max(1, min(int(params.get("limit") or DEFAULT_PAGE_SIZE), 1000))
    except ValueError as exc:
        raise invalid_parameter("limit must be an integer.") from exc
    start = _offset(params.get("after"))
    page = matches[start : start + limit]
    answer: dict[str, Any] = {"data": [t.public() for t in page]}
    if page:
        paging: dict[str, Any] = {"cursors": {"before": _cursor(start), "after": _cursor(start + len(page))}}
        if start + len(page) < len(matches):
            paging["next"] = f"{next_base}?limit={limit}&after={_cursor(start + len(page))}"
        answer["paging"] = paging
    else:
        answer["paging"] = {"cursors": {}}
    return answer


async def set_template_status(
    state: SimState, poster: WebhookPoster, template: TemplateRecord, status: str, *, reason: str | None
) -> None:
    """Change a template's status and post the ``message_template_status_update`` webhook."""
    template.status = status
    envelope = template_status_envelope(
        waba_id=template.waba_id,
        template_id=template.id,
        name=template.name,
        language=template.language,
        category=template.category,
        event=status,
        reason=reason,
        now=now_s(),
    )
    await poster.post(envelope, kind="message_template_status_update", status=status)


async def auto_review(
    state: SimState, poster: WebhookPoster, template: TemplateRecord, delay_ms: int
) -> None:
    """Approve a template after a review delay, unless a test changed its status meanwhile."""
    await asyncio.sleep(delay_ms / 1000)
    if template.status == "PENDING" and state.templates.get(template.id) is template:
        await set_template_status(state, poster, template, "APPROVED", reason=None)
