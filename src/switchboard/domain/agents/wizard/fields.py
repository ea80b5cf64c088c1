"""Reading the reservation tool's input_schema: the fields to ask, in order, with their kinds and choices."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from jsonschema import Draft7Validator

from switchboard.domain.agents.wizard.models import OPTION_ID_MAX

FieldKind = Literal["choice", "boolean", "integer", "number", "date", "time", "email", "string"]


@dataclass(frozen=True)
class _Choice:
    value: Any
    id: str
    title: str


@dataclass(frozen=True)
class SchemaField:
    name: str
    raw: Any  # the property as declared (may hold a $ref), used for validation
    prop: dict[str, Any]  # the property with its top-level $ref followed, used for reading
    kind: FieldKind
    choices: tuple[_Choice, ...] = ()


class Schema:
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
        self.fields: dict[str, SchemaField] = {
            name: _build_field(name, properties.get(name, {}), root) for name in order
        }

    def field_validator(self, field: SchemaField) -> Any:
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


def value_title(value: Any) -> str:
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
            titles = [value_title(value) for value in values]
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
            str(entry["title"]) if isinstance(entry.get("title"), str | int | float) else value_title(v)
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


def _build_field(name: str, raw: Any, root: dict[str, Any]) -> SchemaField:
    prop = _deref(root, raw)
    choices = _choices(prop)
    if choices is not None:
        return SchemaField(name, raw, prop, "choice", choices)
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
    return SchemaField(name, raw, prop, kind)
