"""The send body fragment for a question, within the messaging API's limits."""

from __future__ import annotations

from typing import Any

from switchboard.domain.agents.wizard.models import (
    BODY_MAX,
    BUTTON_TITLE_MAX,
    LIST_BUTTON_LABEL,
    LIST_BUTTON_MAX,
    LIST_SECTION_TITLE,
    MAX_BUTTONS,
    MAX_LIST_ROWS,
    OPTION_ID_MAX,
    ROW_TITLE_MAX,
    SECTION_TITLE_MAX,
    WizardQuestion,
)
from switchboard.domain.agents.wizard.text import fit_titles, truncate


def to_send_payload(question: WizardQuestion) -> dict[str, Any]:
    """The send body fragment (no ``phone_number_id``/``to``) for a question, within the limits."""
    body = truncate(question.text, BODY_MAX)
    options = question.options
    kind = question.kind
    if kind == "buttons" and len(options) > MAX_BUTTONS:
        kind = "list"
    if kind in ("buttons", "list") and not 0 < len(options) <= MAX_LIST_ROWS:
        kind = "text"
        if options:
            body = truncate(f"{question.text}\nOpciones: " + ", ".join(o.title for o in options), BODY_MAX)
    if kind == "text":
        return {"type": "text", "text": {"body": body}}
    ids = [truncate(o.id, OPTION_ID_MAX) for o in options]
    if kind == "buttons":
        titles = fit_titles([o.title for o in options], BUTTON_TITLE_MAX)
        return {
            "type": "interactive",
            "interactive": {
                "type": "button",
                "body": {"text": body},
                "action": {
                    "buttons": [
                        {"type": "reply", "reply": {"id": i, "title": t}}
                        for i, t in zip(ids, titles, strict=True)
                    ]
                },
            },
        }
    titles = fit_titles([o.title for o in options], ROW_TITLE_MAX)
    return {
        "type": "interactive",
        "interactive": {
            "type": "list",
            "body": {"text": body},
            "action": {
                "button": truncate(LIST_BUTTON_LABEL, LIST_BUTTON_MAX),
                "sections": [
                    {
                        "title": truncate(LIST_SECTION_TITLE, SECTION_TITLE_MAX),
                        "rows": [{"id": i, "title": t} for i, t in zip(ids, titles, strict=True)],
                    }
                ],
            },
        },
    }
