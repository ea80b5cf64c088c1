"""Reading one answer: coercion of the typed text (choices, numbers, booleans, dates, times, email),
then validation against the field's subschema, with a short Spanish reason on failure.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from jsonschema.exceptions import ValidationError, best_match

from switchboard.domain.agents.wizard.fields import Schema, SchemaField, value_title
from switchboard.domain.agents.wizard.models import (
    BOOLEAN_REASON,
    BUTTON_TITLE_MAX,
    DATE_FORMAT_REASON,
    EMAIL_REASON,
    EMPTY_REASON,
    INVALID_REASON,
    MAX_BUTTONS,
    MAX_LIST_ROWS,
    ROW_TITLE_MAX,
    TIME_FORMAT_REASON,
)
from switchboard.domain.agents.wizard.text import fit_titles, fmt_number, normalize

_YES_WORDS = frozenset({"si", "s", "yes", "y", "true", "verdadero"})
_NO_WORDS = frozenset({"no", "n", "false", "falso"})

_INT_RE = re.compile(r"^[+-]?\d+$")
_NUMBER_RE = re.compile(r"^[+-]?\d+(?:[.,]\d+)?$")
ISO_DATE_RE = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})$")
_DMY_RE = re.compile(r"^(\d{1,2})[/.-](\d{1,2})[/.-](\d{2}|\d{4})$")
_DM_RE = re.compile(r"^(\d{1,2})[/.-](\d{1,2})$")
_TIME_RE = re.compile(
    r"^(\d{1,2})(?:\s*[:.h]\s*(\d{2})(?::(\d{2}))?)?\s*(?:(am|pm|a\.m\.?|p\.m\.?)|hs?|hrs?|horas?)?\.?$"
)
_EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]+$")


class InvalidAnswer(Exception):
    """An answer that could not be coerced; the message is the reason shown to the customer."""


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _range_text(prop: dict[str, Any]) -> str:
    low = prop.get("minimum")
    low_ex = prop.get("exclusiveMinimum")
    high = prop.get("maximum")
    high_ex = prop.get("exclusiveMaximum")
    if _is_number(low) and _is_number(high):
        return f" entre {fmt_number(low)} y {fmt_number(high)}"
    parts: list[str] = []
    if _is_number(low):
        parts.append(f"mayor o igual a {fmt_number(low)}")
    elif _is_number(low_ex):
        parts.append(f"mayor a {fmt_number(low_ex)}")
    if _is_number(high):
        parts.append(f"menor o igual a {fmt_number(high)}")
    elif _is_number(high_ex):
        parts.append(f"menor a {fmt_number(high_ex)}")
    return (" " + " y ".join(parts)) if parts else ""


def _number_reason(field: SchemaField, *, whole: bool = False) -> str:
    noun = "un número entero" if whole else "un número"
    return f"Tiene que ser {noun}{_range_text(field.prop)}"


def _choice_reason(field: SchemaField) -> str:
    if len(field.choices) > MAX_LIST_ROWS:
        return "La respuesta debe ser una de las opciones listadas"
    return "La respuesta debe ser una de: " + ", ".join(c.title for c in field.choices)


def _match_choice(field: SchemaField, text: str, *, allow_number: bool) -> Any:
    wanted = normalize(text)
    if not wanted:
        raise InvalidAnswer(_choice_reason(field))
    limit = BUTTON_TITLE_MAX if len(field.choices) <= MAX_BUTTONS else ROW_TITLE_MAX
    shown = fit_titles([c.title for c in field.choices], limit)
    for choice, short in zip(field.choices, shown, strict=True):
        if wanted in {normalize(choice.id), normalize(choice.title), normalize(short)}:
            return choice.value
    if allow_number and wanted.isdigit():
        index = int(wanted)
        if 1 <= index <= len(field.choices):
            return field.choices[index - 1].value
    raise InvalidAnswer(_choice_reason(field))


def _parse_integer(field: SchemaField, text: str) -> int:
    compact = text.replace(" ", "")
    if _INT_RE.match(compact):
        return int(compact)
    raise InvalidAnswer(_number_reason(field, whole=bool(_NUMBER_RE.match(compact))))


def _parse_number(field: SchemaField, text: str) -> int | float:
    compact = text.replace(" ", "")
    if _INT_RE.match(compact):
        return int(compact)
    if _NUMBER_RE.match(compact):
        return float(compact.replace(",", "."))
    raise InvalidAnswer(_number_reason(field))


def _parse_boolean(text: str) -> bool:
    word = normalize(text)
    if word in _YES_WORDS:
        return True
    if word in _NO_WORDS:
        return False
    raise InvalidAnswer(BOOLEAN_REASON)


def _make_date(year: int, month: int, day: int) -> str:
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        raise InvalidAnswer(f"Esa fecha no existe. {DATE_FORMAT_REASON}") from None


def _parse_date(text: str) -> str:
    compact = text.replace(" ", "")
    match = ISO_DATE_RE.match(compact)
    if match:
        year, month, day = (int(part) for part in match.groups())
        return _make_date(year, month, day)
    match = _DMY_RE.match(compact)
    if match:
        day_text, month_text, year_text = match.groups()
        year = int(year_text) + (2000 if len(year_text) == 2 else 0)
        return _make_date(year, int(month_text), int(day_text))
    if _DM_RE.match(compact):
        raise InvalidAnswer(f"Falta el año. {DATE_FORMAT_REASON}")
    raise InvalidAnswer(DATE_FORMAT_REASON)


def _parse_time(text: str) -> str:
    match = _TIME_RE.match(normalize(text))
    if not match:
        raise InvalidAnswer(TIME_FORMAT_REASON)
    hour_text, minute_text, second_text, meridiem = match.groups()
    hour = int(hour_text)
    minute = int(minute_text) if minute_text else 0
    second = int(second_text) if second_text else 0
    if meridiem:
        if not 1 <= hour <= 12:
            raise InvalidAnswer(TIME_FORMAT_REASON)
        if meridiem.startswith("p") and hour != 12:
            hour += 12
        elif meridiem.startswith("a") and hour == 12:
            hour = 0
    if hour > 23 or minute > 59 or second > 59:
        raise InvalidAnswer(TIME_FORMAT_REASON)
    return f"{hour:02d}:{minute:02d}" + (f":{second:02d}" if second else "")


def _parse_email(text: str) -> str:
    value = text.strip()
    if not _EMAIL_RE.match(value):
        raise InvalidAnswer(EMAIL_REASON)
    return value


def _coerce_text(field: SchemaField, text: str, *, allow_number: bool = True) -> Any:
    """Turn a typed answer into the value the schema expects, or raise :class:`InvalidAnswer`."""
    value = text.strip()
    if not value:
        raise InvalidAnswer(EMPTY_REASON)
    if field.kind == "choice":
        return _match_choice(field, value, allow_number=allow_number)
    if field.kind == "boolean":
        return _parse_boolean(value)
    if field.kind == "integer":
        return _parse_integer(field, value)
    if field.kind == "number":
        return _parse_number(field, value)
    if field.kind == "date":
        return _parse_date(value)
    if field.kind == "time":
        return _parse_time(value)
    if field.kind == "email":
        return _parse_email(value)
    return value


def validation_reason(field: SchemaField, error: ValidationError) -> str:
    for key in ("x-errorMessage", "errorMessage"):
        custom = field.prop.get(key)
        if isinstance(custom, str) and custom.strip():
            return custom.strip()
    keyword = error.validator
    limit = error.validator_value
    if field.kind in ("integer", "number") and keyword in (
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "type",
    ):
        return _number_reason(field)
    if field.kind == "choice" or keyword in ("enum", "const"):
        if field.choices:
            return _choice_reason(field)
        if keyword == "enum" and isinstance(limit, list):
            return "La respuesta debe ser una de: " + ", ".join(value_title(v) for v in limit)
    if keyword == "multipleOf":
        return f"Tiene que ser múltiplo de {fmt_number(limit)}"
    if keyword == "minLength":
        return (
            "La respuesta no puede estar vacía"
            if limit == 1
            else f"Tiene que tener al menos {limit} caracteres"
        )
    if keyword == "maxLength":
        return f"Tiene que tener como máximo {limit} caracteres"
    if keyword == "pattern":
        return "El formato de la respuesta no es válido"
    if keyword == "format":
        return {"date": DATE_FORMAT_REASON, "time": TIME_FORMAT_REASON, "email": EMAIL_REASON}.get(
            str(limit), INVALID_REASON
        )
    return INVALID_REASON


def _check_value(schema: Schema, field: SchemaField, value: Any) -> str | None:
    """Validate a coerced value against the field's subschema; return the reason or None."""
    error = best_match(schema.field_validator(field).iter_errors(value))
    return None if error is None else validation_reason(field, error)


def read_answer(schema: Schema, field: SchemaField, text: str | None, reply_id: str | None) -> Any:
    """The validated value of one customer message for ``field``, or raise :class:`InvalidAnswer`."""
    value: Any
    if reply_id is not None and field.kind == "boolean" and reply_id in ("true", "false"):
        value = reply_id == "true"
    elif reply_id is not None and any(c.id == reply_id for c in field.choices):
        value = next(c.value for c in field.choices if c.id == reply_id)
    elif text is None:
        raise InvalidAnswer(EMPTY_REASON)
    else:
        value = _coerce_text(field, text)
    reason = _check_value(schema, field, value)
    if reason is not None:
        raise InvalidAnswer(reason)
    return value


def prefill(schema: Schema, known: dict[str, Any] | None) -> dict[str, Any]:
    answers: dict[str, Any] = {}
    for name, raw in (known or {}).items():
        field = schema.fields.get(name)
        if field is None:
            continue
        try:
            value = _coerce_text(field, raw, allow_number=False) if isinstance(raw, str) else raw
        except InvalidAnswer:
            continue
        if _check_value(schema, field, value) is None:
            answers[name] = value
    return schema.ordered(answers)
