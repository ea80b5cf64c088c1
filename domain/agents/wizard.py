"""The deterministic booking wizard: one question per required field, no model involved.

With ``wizardEnabled``, the intent ``pedir_turno`` is served by this wizard instead of the model.
The runtime keeps a :class:`WizardState` (persisted as JSON between turns, so it survives worker
restarts) and calls three pure functions:

* :func:`start_wizard` builds the first step from the reservation tool's ``input_schema``
  (JSON Schema draft-07), optionally pre-filled with ``known`` answers.
* :func:`advance_wizard` feeds one customer message (its text and/or interactive reply id)
  and returns the next step.
* :func:`retry_after_business_error` is called when the reservation tool answered a ``negocio``
  (business) error: the hint is shown and a field is asked again.

Every step has an ``action``:

``ask``
    ``question`` asks the pending field; after a wrong answer ``error`` holds the reason, which
    also opens ``question.text``.
``confirm``
    every field is answered; ``question`` lists the answers and offers the buttons
    ``wizard_confirm`` ("Confirmar") / ``wizard_cancel`` ("Cancelar").
``reserve``
    the customer confirmed; ``arguments`` is the tool input, validated against the whole schema.
    ``state`` still holds the answers, for :func:`retry_after_business_error`.
``cancelled``
    the customer left (``cancelar``, ``cancel`` or ``salir`` alone as a message, at any step, or
    the ``wizard_cancel`` reply, or "no" at the confirmation); ``state`` is ``None``.

:func:`to_send_payload` turns a question into the send body fragment (text, reply buttons or list).

Decisions:

* Asked fields are the schema's ``required`` ones, in the declaration order of ``properties``;
  required names missing from ``properties`` follow in ``required`` order and are asked as free
  text. Optional fields are never asked, but a valid ``known`` value for a declared property is kept
  and sent. ``known`` values failing validation are ignored (the field is asked).
* Question text: the property's ``description`` as written, else its ``title``, else the humanized
  field name, the last two as "¿Cuál es tu <título>?" (a title already ending in "?" or ":" is kept
  as is). Date and time fields get the expected format appended ("(DD/MM/AAAA)", "(HH:MM)").
  The confirmation summary labels answers with ``title``, else the humanized field name.
* Choices: ``enum`` (titles from ``enumNames`` / ``x-enumNames`` when they have the same length),
  or a ``oneOf``/``anyOf`` made only of ``const`` entries (titles from their ``title``). Up to 3
  values are reply buttons, 4 to 10 a list, more than 10 a text question listing the choices
  ("Opciones: a, b, c"). Option ids are the value as a string (JSON for non-strings), or
  ``opcion_<n>`` when that is longer than 200 characters or repeated. Titles are cut to 20
  (buttons) or 24 (list rows) characters with "…" and kept unique with a " (n)" suffix.
  Booleans are buttons "Sí" (id ``true``) / "No" (id ``false``).
* Answers: a reply id matching an option wins; otherwise the text is trimmed and parsed. Choices
  match value or title ignoring case and accents, then a 1-based number ("2"). Integers and numbers
  accept "3", "-2", "3,5" / "3.5" (numbers only; written without a fraction they stay integers).
  Booleans accept sí/si/s/yes/y/true and no/n/false. ``format: date`` accepts "2026-12-01",
  "01/12/2026", "1-12-2026", "1.12.26" (day first; a two-digit year means 20YY) and is stored as
  ISO ``YYYY-MM-DD``; a date without a year ("1/12") is rejected, since the wizard has no clock.
  ``format: time`` accepts "10:30", "10", "10hs", "10.30", "10h30", "3pm" and is stored as
  ``HH:MM`` (``HH:MM:SS`` only when non-zero seconds are given). ``format: email`` is checked with a simple pattern. Other strings are kept as typed.
* The coerced value is then validated against the property's subschema with the draft-07
  validator (``$ref`` resolved against the whole schema). Formats are checked by the parsers above,
  never by jsonschema's optional format checkers, so results do not depend on installed extras.
  A failure asks the same field again with a short Spanish reason (a property's ``x-errorMessage``
  or ``errorMessage`` string replaces the generated one) and increments ``attempts``, which resets
  when a field is accepted. What to do after many attempts is the caller's decision.
* On confirmation the answers are validated as a whole against ``input_schema``; a failure clears
  the first failing required field (in asking order) and asks it again. Failing optional ``known``
  values are dropped. If the failure cannot be tied to a field, all answers are cleared and the
  wizard starts over.
* A stale ``wizard_confirm`` reply while a field is being asked is not taken as its answer; the
  field is simply asked again.
* A business error clears the *last required field in asking order* (schemas put the slot, such as
  the time, last) and asks it again with the hint opening the question. Keeping it this simple is
  deliberate: the wizard cannot know which field the business rule refers to.
* The schema is read again on every call and answers for fields it no longer declares are dropped,
  so a tool edited mid-conversation does not break a persisted state.
* Pure: no clock, no randomness, no I/O; the same inputs always give the same step.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

from jsonschema import Draft7Validator  # type: ignore[import-untyped]
from jsonschema.exceptions import ValidationError, best_match  # type: ignore[import-untyped]
from pydantic import BaseModel, Field

CONFIRM_ID = "wizard_confirm"
CANCEL_ID = "wizard_cancel"
CONFIRM_TITLE = "Confirmar"
CANCEL_TITLE = "Cancelar"
LIST_BUTTON_LABEL = "Elegir"
LIST_SECTION_TITLE = "Opciones"

MAX_BUTTONS = 3
MAX_LIST_ROWS = 10
BODY_MAX = 1024
BUTTON_TITLE_MAX = 20
ROW_TITLE_MAX = 24
SECTION_TITLE_MAX = 24
LIST_BUTTON_MAX = 20
OPTION_ID_MAX = 200

DATE_FORMAT_REASON = "Formato de fecha: DD/MM/AAAA"
TIME_FORMAT_REASON = "Formato de hora: HH:MM (por ejemplo 10:30)"
EMAIL_REASON = "Escribí un email válido, por ejemplo nombre@dominio.com"
BOOLEAN_REASON = "Respondé Sí o No"
EMPTY_REASON = "Necesito que respondas con un mensaje de texto"
CONFIRM_REASON = "Respondé Confirmar o Cancelar"
INVALID_REASON = "La respuesta no es válida"
RESTART_REASON = "Hay datos que no son válidos; empecemos de nuevo"
DEFAULT_HINT = "No se pudo completar la reserva"

_CANCEL_WORDS = frozenset({"cancelar", "cancel", "salir"})
_YES_WORDS = frozenset({"si", "s", "yes", "y", "true", "verdadero"})
_NO_WORDS = frozenset({"no", "n", "false", "falso"})
_CONFIRM_WORDS = frozenset(
    {
        "si",
        "s",
        "yes",
        "y",
        "confirmar",
        "confirmo",
        "confirmado",
        "ok",
        "okay",
        "dale",
        "listo",
        "de acuerdo",
    }
)
_REFUSE_WORDS = frozenset({"no", "n"})
_EDGE_PUNCTUATION = " .,;:!¡?¿\"'"

_INT_RE = re.compile(r"^[+-]?\d+$")
_NUMBER_RE = re.compile(r"^[+-]?\d+(?:[.,]\d+)?$")
_ISO_DATE_RE = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})$")
_DMY_RE = re.compile(r"^(\d{1,2})[/.-](\d{1,2})[/.-](\d{2}|\d{4})$")
_DM_RE = re.compile(r"^(\d{1,2})[/.-](\d{1,2})$")
_TIME_RE = re.compile(
    r"^(\d{1,2})(?:\s*[:.h]\s*(\d{2})(?::(\d{2}))?)?\s*(?:(am|pm|a\.m\.?|p\.m\.?)|hs?|hrs?|horas?)?\.?$"
)
_EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]+$")
_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")

FieldKind = Literal["choice", "boolean", "integer", "number", "date", "time", "email", "string"]


# --------------------------------------------------------------------------- public models


class WizardState(BaseModel):
    """What the caller persists (as JSON) between turns."""

    tool_slug: str
    answers: dict[str, Any] = Field(default_factory=dict)
    pending_field: str | None = None
    awaiting_confirmation: bool = False
    attempts: int = 0


class WizardOption(BaseModel):
    """One reply button or list row: ``id`` comes back as the reply id, ``title`` is shown."""

    id: str
    title: str


class WizardQuestion(BaseModel):
    """A question for the customer; ``options`` only for ``buttons`` and ``list``."""

    text: str
    kind: Literal["text", "buttons", "list"]
    options: list[WizardOption] = Field(default_factory=list)


class WizardStep(BaseModel):
    """The wizard's answer to one call; see the module docstring for each action."""

    action: Literal["ask", "confirm", "reserve", "cancelled"]
    state: WizardState | None = None
    question: WizardQuestion | None = None
    arguments: dict[str, Any] | None = None
    error: str | None = None


# --------------------------------------------------------------------------- schema reading


@dataclass(frozen=True)
class _Choice:
    value: Any
    id: str
    title: str


@dataclass(frozen=True)
class _Field:
    name: str
    raw: Any  # the property as declared (may hold a $ref), used for validation
    prop: dict[str, Any]  # the property with its top-level $ref followed, used for reading
    kind: FieldKind
    choices: tuple[_Choice, ...] = ()


class _Schema:
    """The reservation tool's input_schema, read once per call."""

    def __init__(self, input_schema: dict[str, Any]) -> None:
        root = input_schema if isinstance(input_schema, dict) else {}
        self.root = root
        self.validator = Draft7Validator(root)
        properties = root.get("properties")
        properties = properties if isinstance(properties, dict) else {}
        required_raw = root.get("required")
        required_raw = required_raw if isinstance(required_raw, list) else []
        required_set = {name for name in required_raw if isinstance(name, str)}
        order = [name for name in properties if isinstance(name, str)]
        for name in required_raw:
            if isinstance(name, str) and name not in order:
                order.append(name)
        self.order: list[str] = order
        self.required: list[str] = [name for name in order if name in required_set]
        self.fields: dict[str, _Field] = {
            name: _build_field(name, properties.get(name, {}), root) for name in order
        }

    def field_validator(self, field: _Field) -> Any:
        schema = field.raw if isinstance(field.raw, dict | bool) else {}
        return self.validator.evolve(schema=schema)

    def ordered(self, answers: dict[str, Any]) -> dict[str, Any]:
        return {name: answers[name] for name in self.order if name in answers}


def _deref(root: dict[str, Any], prop: Any) -> dict[str, Any]:
    """Follow local ``#/...`` references at the top of a property (a few hops at most)."""
    for _ in range(8):
        if not isinstance(prop, dict):
            return {}
        ref = prop.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#"):
            return prop
        target: Any = root
        for part in ref[1:].split("/"):
            if not part:
                continue
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and part in target:
                target = target[part]
            else:
                return {}
        prop = target
    return prop if isinstance(prop, dict) else {}


def _main_type(prop: dict[str, Any]) -> str | None:
    declared = prop.get("type")
    if isinstance(declared, str):
        return declared
    if isinstance(declared, list):
        for item in declared:
            if isinstance(item, str) and item != "null":
                return item
    return None


def _value_id(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _value_title(value: Any) -> str:
    if isinstance(value, bool):
        return "Sí" if value else "No"
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _choices(prop: dict[str, Any]) -> tuple[_Choice, ...] | None:
    values: list[Any]
    titles: list[str]
    enum = prop.get("enum")
    if isinstance(enum, list) and enum:
        values = list(enum)
        names = prop.get("enumNames", prop.get("x-enumNames"))
        if isinstance(names, list) and len(names) == len(values):
            titles = [str(name) for name in names]
        else:
            titles = [_value_title(value) for value in values]
    else:
        entries = prop.get("oneOf", prop.get("anyOf"))
        if not (
            isinstance(entries, list)
            and entries
            and all(isinstance(e, dict) and "const" in e for e in entries)
        ):
            return None
        values = [entry["const"] for entry in entries]
        titles = [
            str(entry["title"]) if isinstance(entry.get("title"), str | int | float) else _value_title(v)
            for entry, v in zip(entries, values, strict=True)
        ]
    pairs = [(v, t) for v, t in zip(values, titles, strict=True) if v is not None]
    if not pairs:
        return None
    ids: list[str] = []
    for index, (value, _title) in enumerate(pairs):
        candidate = _value_id(value)
        if len(candidate) > OPTION_ID_MAX or candidate in ids:
            candidate = f"opcion_{index + 1}"
        ids.append(candidate)
    return tuple(
        _Choice(value=v, id=i, title=" ".join(t.split()) or i) for (v, t), i in zip(pairs, ids, strict=True)
    )


def _build_field(name: str, raw: Any, root: dict[str, Any]) -> _Field:
    prop = _deref(root, raw)
    choices = _choices(prop)
    if choices is not None:
        return _Field(name, raw, prop, "choice", choices)
    kind: FieldKind
    main = _main_type(prop)
    fmt = prop.get("format")
    if main == "boolean":
        kind = "boolean"
    elif main == "integer":
        kind = "integer"
    elif main == "number":
        kind = "number"
    elif main in (None, "string") and fmt in ("date", "time", "email"):
        kind = fmt
    else:
        kind = "string"
    return _Field(name, raw, prop, kind)


# --------------------------------------------------------------------------- text helpers


def _normalize(text: str) -> str:
    """Casefold, drop accents, collapse spaces and strip punctuation at the ends."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(stripped.casefold().split()).strip(_EDGE_PUNCTUATION)


def _humanize(name: str) -> str:
    spaced = _CAMEL_RE.sub(" ", name).replace("_", " ").replace("-", " ")
    return " ".join(spaced.split()).lower() or name


def _label(field: _Field) -> str:
    title = field.prop.get("title")
    if isinstance(title, str) and title.strip():
        return title.strip()
    human = _humanize(field.name)
    return human[:1].upper() + human[1:]


def _truncate(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)].rstrip() + "…"


def _fit_titles(titles: list[str], limit: int) -> list[str]:
    """Cut titles to ``limit`` characters and keep them unique (case-insensitively)."""
    out: list[str] = []
    seen: set[str] = set()
    for title in titles:
        clean = " ".join(title.split()) or "-"
        candidate = _truncate(clean, limit)
        counter = 2
        while candidate.casefold() in seen:
            suffix = f" ({counter})"
            candidate = _truncate(clean, limit - len(suffix)) + suffix
            counter += 1
        seen.add(candidate.casefold())
        out.append(candidate)
    return out


def _fmt_number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value).replace(".", ",")


def _display(field: _Field, value: Any) -> str:
    if field.kind == "choice":
        for choice in field.choices:
            if choice.value == value and type(choice.value) is type(value):
                return choice.title
    if isinstance(value, bool):
        return "Sí" if value else "No"
    if field.kind == "date" and isinstance(value, str):
        match = _ISO_DATE_RE.match(value)
        if match:
            year, month, day = match.groups()
            return f"{int(day):02d}/{int(month):02d}/{year}"
    if isinstance(value, int | float):
        return _fmt_number(value)
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


def _base_text(field: _Field) -> str:
    description = field.prop.get("description")
    title = field.prop.get("title")
    if isinstance(description, str) and description.strip():
        text = description.strip()
    elif isinstance(title, str) and title.strip():
        text = _as_question(title.strip())
    else:
        text = _as_question(_humanize(field.name))
    lowered = text.casefold()
    if field.kind == "date" and "dd/mm" not in lowered:
        text += " (DD/MM/AAAA)"
    elif field.kind == "time" and "hh:mm" not in lowered:
        text += " (HH:MM)"
    return text


def _question(field: _Field, error: str | None) -> WizardQuestion:
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
            titles = _fit_titles([c.title for c in field.choices], limit)
            options = [WizardOption(id=c.id, title=t) for c, t in zip(field.choices, titles, strict=True)]
        else:
            text += "\nOpciones: " + ", ".join(c.title for c in field.choices)
    if error:
        text = f"{error}\n{text}"
    return WizardQuestion(text=text, kind=kind, options=options)


def _confirm_question(schema: _Schema, answers: dict[str, Any], error: str | None) -> WizardQuestion:
    lines = ["¿Confirmás la reserva?"]
    for name, value in schema.ordered(answers).items():
        field = schema.fields[name]
        lines.append(f"{_label(field)}: {_display(field, value)}")
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


# --------------------------------------------------------------------------- answer parsing


class _Invalid(Exception):
    """An answer that could not be coerced; the message is the reason shown to the customer."""


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _range_text(prop: dict[str, Any]) -> str:
    low = prop.get("minimum")
    low_ex = prop.get("exclusiveMinimum")
    high = prop.get("maximum")
    high_ex = prop.get("exclusiveMaximum")
    if _is_number(low) and _is_number(high):
        return f" entre {_fmt_number(low)} y {_fmt_number(high)}"
    parts: list[str] = []
    if _is_number(low):
        parts.append(f"mayor o igual a {_fmt_number(low)}")
    elif _is_number(low_ex):
        parts.append(f"mayor a {_fmt_number(low_ex)}")
    if _is_number(high):
        parts.append(f"menor o igual a {_fmt_number(high)}")
    elif _is_number(high_ex):
        parts.append(f"menor a {_fmt_number(high_ex)}")
    return (" " + " y ".join(parts)) if parts else ""


def _number_reason(field: _Field, *, whole: bool = False) -> str:
    noun = "un número entero" if whole else "un número"
    return f"Tiene que ser {noun}{_range_text(field.prop)}"


def _choice_reason(field: _Field) -> str:
    if len(field.choices) > MAX_LIST_ROWS:
        return "La respuesta debe ser una de las opciones listadas"
    return "La respuesta debe ser una de: " + ", ".join(c.title for c in field.choices)


def _match_choice(field: _Field, text: str, *, allow_number: bool) -> Any:
    wanted = _normalize(text)
    if not wanted:
        raise _Invalid(_choice_reason(field))
    limit = BUTTON_TITLE_MAX if len(field.choices) <= MAX_BUTTONS else ROW_TITLE_MAX
    shown = _fit_titles([c.title for c in field.choices], limit)
    for choice, short in zip(field.choices, shown, strict=True):
        if wanted in {_normalize(choice.id), _normalize(choice.title), _normalize(short)}:
            return choice.value
    if allow_number and wanted.isdigit():
        index = int(wanted)
        if 1 <= index <= len(field.choices):
            return field.choices[index - 1].value
    raise _Invalid(_choice_reason(field))


def _parse_integer(field: _Field, text: str) -> int:
    compact = text.replace(" ", "")
    if _INT_RE.match(compact):
        return int(compact)
    raise _Invalid(_number_reason(field, whole=bool(_NUMBER_RE.match(compact))))


def _parse_number(field: _Field, text: str) -> int | float:
    compact = text.replace(" ", "")
    if _INT_RE.match(compact):
        return int(compact)
    if _NUMBER_RE.match(compact):
        return float(compact.replace(",", "."))
    raise _Invalid(_number_reason(field))


def _parse_boolean(text: str) -> bool:
    word = _normalize(text)
    if word in _YES_WORDS:
        return True
    if word in _NO_WORDS:
        return False
    raise _Invalid(BOOLEAN_REASON)


def _make_date(year: int, month: int, day: int) -> str:
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        raise _Invalid(f"Esa fecha no existe. {DATE_FORMAT_REASON}") from None


def _parse_date(text: str) -> str:
    compact = text.replace(" ", "")
    match = _ISO_DATE_RE.match(compact)
    if match:
        year, month, day = (int(part) for part in match.groups())
        return _make_date(year, month, day)
    match = _DMY_RE.match(compact)
    if match:
        day_text, month_text, year_text = match.groups()
        year = int(year_text) + (2000 if len(year_text) == 2 else 0)
        return _make_date(year, int(month_text), int(day_text))
    if _DM_RE.match(compact):
        raise _Invalid(f"Falta el año. {DATE_FORMAT_REASON}")
    raise _Invalid(DATE_FORMAT_REASON)


def _parse_time(text: str) -> str:
    match = _TIME_RE.match(_normalize(text))
    if not match:
        raise _Invalid(TIME_FORMAT_REASON)
    hour_text, minute_text, second_text, meridiem = match.groups()
    hour = int(hour_text)
    minute = int(minute_text) if minute_text else 0
    second = int(second_text) if second_text else 0
    if meridiem:
        if not 1 <= hour <= 12:
            raise _Invalid(TIME_FORMAT_REASON)
        if meridiem.startswith("p") and hour != 12:
            hour += 12
        elif meridiem.startswith("a") and hour == 12:
            hour = 0
    if hour > 23 or minute > 59 or second > 59:
        raise _Invalid(TIME_FORMAT_REASON)
    return f"{hour:02d}:{minute:02d}" + (f":{second:02d}" if second else "")


def _parse_email(text: str) -> str:
    value = text.strip()
    if not _EMAIL_RE.match(value):
        raise _Invalid(EMAIL_REASON)
    return value


def _coerce_text(field: _Field, text: str, *, allow_number: bool = True) -> Any:
    """Turn a typed answer into the value the schema expects, or raise :class:`_Invalid`."""
    value = text.strip()
    if not value:
        raise _Invalid(EMPTY_REASON)
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


def _reason(field: _Field, error: ValidationError) -> str:
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
            return "La respuesta debe ser una de: " + ", ".join(_value_title(v) for v in limit)
    if keyword == "multipleOf":
        return f"Tiene que ser múltiplo de {_fmt_number(limit)}"
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


def _check(schema: _Schema, field: _Field, value: Any) -> str | None:
    """Validate a coerced value against the field's subschema; return the reason or None."""
    error = best_match(schema.field_validator(field).iter_errors(value))
    return None if error is None else _reason(field, error)


def _answer(schema: _Schema, field: _Field, text: str | None, reply_id: str | None) -> Any:
    """The validated value of one customer message for ``field``, or raise :class:`_Invalid`."""
    value: Any
    if reply_id is not None and field.kind == "boolean" and reply_id in ("true", "false"):
        value = reply_id == "true"
    elif reply_id is not None and any(c.id == reply_id for c in field.choices):
        value = next(c.value for c in field.choices if c.id == reply_id)
    elif text is None:
        raise _Invalid(EMPTY_REASON)
    else:
        value = _coerce_text(field, text)
    reason = _check(schema, field, value)
    if reason is not None:
        raise _Invalid(reason)
    return value


def _prefill(schema: _Schema, known: dict[str, Any] | None) -> dict[str, Any]:
    answers: dict[str, Any] = {}
    for name, raw in (known or {}).items():
        field = schema.fields.get(name)
        if field is None:
            continue
        try:
            value = _coerce_text(field, raw, allow_number=False) if isinstance(raw, str) else raw
        except _Invalid:
            continue
        if _check(schema, field, value) is None:
            answers[name] = value
    return schema.ordered(answers)


# --------------------------------------------------------------------------- steps


def _state(
    tool_slug: str,
    answers: dict[str, Any],
    *,
    pending: str | None = None,
    confirming: bool = False,
    attempts: int = 0,
) -> WizardState:
    return WizardState(
        tool_slug=tool_slug,
        answers=dict(answers),
        pending_field=pending,
        awaiting_confirmation=confirming,
        attempts=attempts,
    )


def _ask(
    schema: _Schema, tool_slug: str, answers: dict[str, Any], name: str, error: str | None, attempts: int
) -> WizardStep:
    field = schema.fields[name]
    return WizardStep(
        action="ask",
        state=_state(tool_slug, answers, pending=name, attempts=attempts),
        question=_question(field, error),
        error=error,
    )


def _next(
    schema: _Schema, tool_slug: str, answers: dict[str, Any], error: str | None = None, attempts: int = 0
) -> WizardStep:
    """Ask the first unanswered required field, or confirm when all are answered."""
    answers = schema.ordered(answers)
    for name in schema.required:
        if name not in answers:
            return _ask(schema, tool_slug, answers, name, error, attempts)
    return WizardStep(
        action="confirm",
        state=_state(tool_slug, answers, confirming=True, attempts=attempts),
        question=_confirm_question(schema, answers, error),
        error=error,
    )


def _cancelled() -> WizardStep:
    return WizardStep(action="cancelled", state=None)


def _error_field(schema: _Schema, answers: dict[str, Any], error: ValidationError) -> str | None:
    if error.path:
        head = error.path[0]
        return head if isinstance(head, str) else None
    if error.validator == "required" and isinstance(error.validator_value, list):
        missing = [n for n in error.validator_value if isinstance(n, str) and n not in answers]
        return missing[0] if missing else None
    return None


def _reserve(schema: _Schema, state: WizardState) -> WizardStep:
    """Validate the whole input once more; reserve, or ask the first failing field again."""
    answers = schema.ordered(state.answers)
    rank = {name: index for index, name in enumerate(schema.order)}
    while True:
        errors = list(schema.validator.iter_errors(answers))
        if not errors:
            return WizardStep(
                action="reserve",
                state=_state(state.tool_slug, answers),
                arguments=dict(answers),
            )
        located: list[tuple[str, ValidationError]] = []
        for error in errors:
            name = _error_field(schema, answers, error)
            if name is None or name not in schema.fields:
                return _next(schema, state.tool_slug, {}, RESTART_REASON)
            located.append((name, error))
        # Failing optional answers (only ever pre-filled) are dropped without a word.
        optional = {name for name, _ in located if name not in schema.required}
        answers = {k: v for k, v in answers.items() if k not in optional}
        located = [(name, error) for name, error in located if name not in optional]
        if located:
            name, error = min(located, key=lambda pair: rank[pair[0]])
            answers = {k: v for k, v in answers.items() if k != name}
            # A missing required answer (a state edited by hand) is simply asked, with no reason.
            reason = None if error.validator == "required" else _reason(schema.fields[name], error)
            return _next(schema, state.tool_slug, answers, reason)


# --------------------------------------------------------------------------- public API


def start_wizard(
    tool_slug: str, input_schema: dict[str, Any], *, known: dict[str, Any] | None = None
) -> WizardStep:
    """First step: the first required field not in ``known`` (or the confirmation if none)."""
    schema = _Schema(input_schema)
    return _next(schema, tool_slug, _prefill(schema, known))


def advance_wizard(
    state: WizardState, input_schema: dict[str, Any], *, text: str | None, reply_id: str | None
) -> WizardStep:
    """Feed one customer message (text and/or interactive reply id) and return the next step."""
    schema = _Schema(input_schema)
    answers = schema.ordered(state.answers)
    word = _normalize(text) if text is not None else ""
    if reply_id == CANCEL_ID or word in _CANCEL_WORDS:
        return _cancelled()
    if state.awaiting_confirmation:
        if reply_id == CONFIRM_ID or word in _CONFIRM_WORDS:
            return _reserve(schema, state.model_copy(update={"answers": answers}))
        if word in _REFUSE_WORDS:
            return _cancelled()
        return _next(schema, state.tool_slug, answers, CONFIRM_REASON, state.attempts + 1)
    name = state.pending_field
    if name is None or name not in schema.fields or name in answers:
        return _next(schema, state.tool_slug, answers)
    if reply_id == CONFIRM_ID:
        # A stale "Confirmar" tapped while a field is being asked (after a business error): not an answer.
        return _ask(schema, state.tool_slug, answers, name, None, state.attempts)
    field = schema.fields[name]
    try:
        value = _answer(schema, field, text, reply_id)
    except _Invalid as invalid:
        return _ask(schema, state.tool_slug, answers, name, str(invalid), state.attempts + 1)
    return _next(schema, state.tool_slug, {**answers, name: value})


def retry_after_business_error(state: WizardState, input_schema: dict[str, Any], *, hint: str) -> WizardStep:
    """Show the tool's business hint and ask again the last required field (e.g. the time)."""
    schema = _Schema(input_schema)
    answers = schema.ordered(state.answers)
    if schema.required:
        last = schema.required[-1]
        answers = {k: v for k, v in answers.items() if k != last}
    message = " ".join(hint.split()) or DEFAULT_HINT
    return _next(schema, state.tool_slug, answers, message)


def to_send_payload(question: WizardQuestion) -> dict[str, Any]:
    """The send body fragment (no ``phone_number_id``/``to``) for a question, within the limits."""
    body = _truncate(question.text, BODY_MAX)
    options = question.options
    kind = question.kind
    if kind == "buttons" and len(options) > MAX_BUTTONS:
        kind = "list"
    if kind in ("buttons", "list") and not 0 < len(options) <= MAX_LIST_ROWS:
        kind = "text"
        if options:
            body = _truncate(f"{question.text}\nOpciones: " + ", ".join(o.title for o in options), BODY_MAX)
    if kind == "text":
        return {"type": "text", "text": {"body": body}}
    ids = [_truncate(o.id, OPTION_ID_MAX) for o in options]
    if kind == "buttons":
        titles = _fit_titles([o.title for o in options], BUTTON_TITLE_MAX)
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
    titles = _fit_titles([o.title for o in options], ROW_TITLE_MAX)
    return {
        "type": "interactive",
        "interactive": {
            "type": "list",
            "body": {"text": body},
            "action": {
                "button": _truncate(LIST_BUTTON_LABEL, LIST_BUTTON_MAX),
                "sections": [
                    {
                        "title": _truncate(LIST_SECTION_TITLE, SECTION_TITLE_MAX),
                        "rows": [{"id": i, "title": t} for i, t in zip(ids, titles, strict=True)],
                    }
                ],
            },
        },
    }
