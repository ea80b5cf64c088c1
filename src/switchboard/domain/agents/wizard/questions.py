"""The questions shown to the customer: one per field (text, buttons or list) and the confirmation."""

from __future__ import annotations

import json
from typing import Any, Literal

from switchboard.domain.agents.wizard.answers import ISO_DATE_RE
from switchboard.domain.agents.wizard.fields import Schema, SchemaField
from switchboard.domain.agents.wizard.models import (
    BUTTON_TITLE_MAX,
    CANCEL_ID,
    CANCEL_TITLE,
    CONFIRM_ID,
    CONFIRM_TITLE,
    MAX_BUTTONS,
    MAX_LIST_ROWS,
    ROW_TITLE_MAX,
    WizardOption,
    WizardQuestion,
)
from switchboard.domain.agents.wizard.text import fit_titles, fmt_number, humanize


def _field_label(field: SchemaField) -> str:
    title = field.prop.get("title")
    if isinstance(title, str) and title.strip():
        return title.strip()
    human = humanize(field.name)
    return human[:1].upper() + human[1:]


def _display(field: SchemaField, value: Any) -> str:
    if field.kind == "choice":
        for choice in field.choices:
            if choice.value == value and type(choice.value) is type(value):
                return choice.title
    if isinstance(value, bool):
        return "Sí" if value else "No"
    if field.kind == "date" and isinstance(value, str):
        match = ISO_DATE_RE.match(value)
        if match:
            year, month, day = match.groups()
            return f"{int(day):02d}/{int(month):02d}/{year}"
    if isinstance(value, int | float):
        return fmt_number(value)
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


# --------------------------------------------------------------------------- questions


def _as_question(label: str) -> str:
    """``"Fecha"`` → ``"¿Cuál es tu fecha?"``; a label already phrased as a question is kept."""
    if label.endswith(("?", ":")):
        return label
    if len(label) > 1 and label[0].isupper() and not label[1].isupper():
        label = label[0].lower() + label[1:]
    return f"¿Cuál es tu {label}?"


def _base_text(field: SchemaField) -> str:
    description = field.prop.get("description")
    title = field.prop.get("title")
    if isinstance(description, str) and description.strip():
        text = description.strip()
    elif isinstance(title, str) and title.strip():
        text = _as_question(title.strip())
    else:
        text = _as_question(humanize(field.name))
    lowered = text.casefold()
    if field.kind == "date" and "dd/mm" not in lowered:
        text += " (DD/MM/AAAA)"
    elif field.kind == "time" and "hh:mm" not in lowered:
        text += " (HH:MM)"
    return text


def field_question(field: SchemaField, error: str | None) -> WizardQuestion:
    text = _base_text(field)
    kind: Literal["text", "buttons", "list"] = "text"
    options: list[WizardOption] = []
    if field.kind == "boolean":
        kind = "buttons"
        options = [WizardOption(id="true", title="Sí"), WizardOption(id="false", title="No")]
    elif field.kind == "choice":
        count = len(field.choices)
        if count <= MAX_LIST_ROWS:
            kind = "buttons" if count <= MAX_BUTTONS else "list"
            limit = BUTTON_TITLE_MAX if kind == "buttons" else ROW_TITLE_MAX
            titles = fit_titles([c.title for c in field.choices], limit)
            options = [WizardOption(id=c.id, title=t) for c, t in zip(field.choices, titles, strict=True)]
        else:
            text += "\nOpciones: " + ", ".join(c.title for c in field.choices)
    if error:
        text = f"{error}\n{text}"
    return WizardQuestion(text=text, kind=kind, options=options)


def confirm_question(schema: Schema, answers: dict[str, Any], error: str | None) -> WizardQuestion:
    lines = ["¿Confirmás la reserva?"]
    for name, value in schema.ordered(answers).items():
        field = schema.fields[name]
        lines.append(f"{_field_label(field)}: {_display(field, value)}")
    text = "\n".join(lines)
    if error:
        text = f"{error}\n{text}"
    return WizardQuestion(
        text=text,
        kind="buttons",
        options=[
            WizardOption(id=CONFIRM_ID, title=CONFIRM_TITLE),
            WizardOption(id=CANCEL_ID, title=CANCEL_TITLE),
        ],
    )
