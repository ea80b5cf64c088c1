"""validate_input: the model's arguments against input_schema."""

from __future__ import annotations

from typing import Any

import pytest

from switchboard.domain.tools import ToolDeclarationError, ToolInputError, validate_input

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "patient_id": {"type": "string", "minLength": 2},
        "date": {"type": "string", "format": "date"},
        "slot": {"type": "string", "enum": ["morning", "afternoon"]},
        "people": {"type": "array", "items": {"type": "object", "properties": {"age": {"type": "integer"}}}},
    },
    "required": ["patient_id"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    "arguments",
    [
        {"patient_id": "p1"},
        {"patient_id": "p1", "date": "2024-05-01", "slot": "morning", "people": [{"age": 3}]},
    ],
)
def test_valid_input(arguments: dict[str, Any]) -> None:
    assert validate_input(SCHEMA, arguments) is None


INVALID = [
    ("missing required", {}, "input", "required"),
    ("wrong type", {"patient_id": 5}, "input.patient_id", "type"),
    ("too short", {"patient_id": "p"}, "input.patient_id", "minLength"),
    ("not in enum", {"patient_id": "p1", "slot": "night"}, "input.slot", "enum"),
    ("bad date format", {"patient_id": "p1", "date": "01/05/2024"}, "input.date", "format"),
    (
        "nested array item",
        {"patient_id": "p1", "people": [{"age": 1}, {"age": "x"}]},
        "input.people[1].age",
        "type",
    ),
    ("extra property", {"patient_id": "p1", "admin": True}, "input", "additionalProperties"),
    ("not an object", ["p1"], "input", "type"),
]


@pytest.mark.parametrize(
    ("arguments", "field", "validator"), [(a, f, v) for _, a, f, v in INVALID], ids=[r[0] for r in INVALID]
)
def test_invalid_input(arguments: Any, field: str, validator: str) -> None:
    with pytest.raises(ToolInputError) as caught:
        validate_input(SCHEMA, arguments)
    error = caught.value
    assert error.code == "ToolInputError"
    assert error.details["field"] == field
    assert error.details["validator"] == validator
    assert error.details["reason"] in error.message


def test_remote_refs_are_never_fetched() -> None:
    schema = {"type": "object", "properties": {"a": {"$ref": "http://127.0.0.1:9/schema.json"}}}
    with pytest.raises(ToolDeclarationError) as caught:
        validate_input(schema, {"a": 1})
    assert caught.value.details["field"] == "declaration.input_schema.properties.a.$ref"


def test_local_refs_resolve() -> None:
    schema = {
        "type": "object",
        "definitions": {"id": {"type": "string"}},
        "properties": {"a": {"$ref": "#/definitions/id"}},
    }
    validate_input(schema, {"a": "x"})
    with pytest.raises(ToolInputError):
        validate_input(schema, {"a": 1})
