"""Checking the model's tool arguments (or a wizard answer) against the tool's ``input_schema``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from jsonschema import Draft7Validator
from jsonschema.exceptions import SchemaError, best_match
from referencing import Registry

from switchboard.domain.tools.errors import ToolDeclarationError, ToolInputError

SCHEMA_FIELD = "declaration.input_schema"


def check_input_schema(schema: Any, *, field: str = SCHEMA_FIELD) -> dict[str, Any]:
    """``schema`` must be a draft-07 JSON Schema of ``type: object`` with only local ``$ref``s."""
    if not isinstance(schema, dict):
        raise ToolDeclarationError(f"{field} must be a JSON Schema object", field=field)
    try:
        Draft7Validator.check_schema(schema)
    except SchemaError as exc:
        where = ".".join(str(p) for p in exc.absolute_path)
        raise ToolDeclarationError(
            f"{field} is not a valid draft-07 JSON Schema: {exc.message}",
            field=f"{field}.{where}" if where else field,
        ) from exc
    if schema.get("type") != "object":
        raise ToolDeclarationError(f'{field} must have "type": "object"', field=f"{field}.type")
    for where, ref in _refs(schema, field):
        if not ref.startswith("#"):
            raise ToolDeclarationError(
                f"{where} points outside the schema ({ref}); only local #/... references are allowed",
                field=where,
            )
    return schema


def _refs(node: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield f"{path}.$ref", value
            else:
                yield from _refs(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from _refs(item, f"{path}[{i}]")


def input_names(schema: dict[str, Any]) -> frozenset[str]:
    """The top-level property names ``{{input.<name>}}`` may refer to."""
    properties = schema.get("properties")
    return frozenset(properties) if isinstance(properties, dict) else frozenset()


def validate_input(input_schema: dict[str, Any], input: Any) -> None:
    """Raise ToolInputError (message and ``input.<path>``) when ``input`` breaks ``input_schema``."""
    check_input_schema(input_schema)
    # An empty registry keeps jsonschema from fetching remote $refs: domain code does no I/O.
    validator = Draft7Validator(
        input_schema, registry=Registry(), format_checker=Draft7Validator.FORMAT_CHECKER
    )
    error = best_match(validator.iter_errors(input))
    if error is None:
        return
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    field = f"input{path}"
    raise ToolInputError(
        f"{field}: {error.message}",
        field=field,
        reason=error.message,
        validator=str(error.validator),
    )
