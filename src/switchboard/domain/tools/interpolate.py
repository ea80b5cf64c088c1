"""Filling ``{{input.*}}``, ``{{binding.*}}`` and ``{{context.*}}`` placeholders from their namespaces.

Values are spliced in one pass and never re-read as templates, so a value that itself
looks like ``{{binding.secret.x}}`` stays inert text.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from switchboard.domain.tools.errors import ToolDeclarationError, ToolError, ToolInputError
from switchboard.domain.tools.placeholders import (
    PLACEHOLDER_RE,
    Placeholder,
    find_placeholders,
    whole_placeholder,
)


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()


@dataclass(frozen=True)
class BindingNamespace:
    """Trusted deployment values: the base URL, the binding's params and its decrypted secrets."""

    base_url: str
    params: Mapping[str, Any] = field(default_factory=dict)
    secrets: Mapping[str, str] = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class ContextNamespace:
    """Trusted runtime values the model cannot forge."""

    customer_id: str | None = None
    contact_phone: str | None = None
    conversation_id: str | None = None


@dataclass(frozen=True)
class Namespaces:
    """Everything a placeholder can read: the model's input, the binding and the conversation context."""

    input: Mapping[str, Any]
    binding: BindingNamespace
    context: ContextNamespace = field(default_factory=ContextNamespace)


def lookup(placeholder: Placeholder, namespaces: Namespaces) -> Any:
    """The value a placeholder names, or MISSING when its namespace does not have it."""
    if placeholder.namespace == "input":
        return _walk(namespaces.input, placeholder.path)
    if placeholder.namespace == "context":
        return getattr(namespaces.context, placeholder.path[0])
    binding = namespaces.binding
    head, rest = placeholder.path[0], placeholder.path[1:]
    if head == "base_url":
        return binding.base_url
    if head == "secret":
        return binding.secrets.get(rest[0], MISSING)
    return _walk(binding.params, rest)


def _walk(value: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(value, Mapping) or key not in value:
            return MISSING
        value = value[key]
    return value


def missing_error(placeholder: Placeholder, *, what: str = "has no value") -> ToolError:
    """Absent input is the model's to fix; absent binding or context values are a configuration problem."""
    message = f"{{{{{placeholder.dotted}}}}} {what}"
    if placeholder.namespace == "input":
        return ToolInputError(message, field=placeholder.dotted)
    return ToolDeclarationError(message, field=placeholder.dotted)


def to_text(value: Any, placeholder: Placeholder) -> str:
    """The text form of a scalar value spliced into a string (JSON spelling for booleans and numbers)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return json.dumps(value)
    if value is None or value is MISSING:
        raise missing_error(placeholder)
    raise missing_error(placeholder, what="is an object or array and cannot be spliced into text")


def resolve(placeholder: Placeholder, namespaces: Namespaces) -> Any:
    """The value of a placeholder; missing raises (input: ToolInputError, others: ToolDeclarationError)."""
    value = lookup(placeholder, namespaces)
    if value is MISSING or (value is None and placeholder.namespace == "context"):
        raise missing_error(placeholder)
    return value


def render_template(
    value: str,
    namespaces: Namespaces,
    *,
    field: str = "template",
    on_value: Callable[[Placeholder, str], str] | None = None,
) -> str:
    """Replace every placeholder in a string with the text of its value.

    ``on_value`` sees each spliced value first (the URL renderer guards and encodes path values there).
    """
    placeholders = iter(find_placeholders(value, field=field))

    def substitute(_: Any) -> str:
        placeholder = next(placeholders)
        text = to_text(resolve(placeholder, namespaces), placeholder)
        return on_value(placeholder, text) if on_value else text

    return PLACEHOLDER_RE.sub(substitute, value)


def render_value(value: Any, namespaces: Namespaces, *, field: str) -> Any:
    """Render a JSON value; a string that is exactly one placeholder keeps the value's JSON type.

    Object members whose whole value is an absent ``{{input.*}}`` are dropped (an optional
    argument the model left out is not sent); absent input anywhere else raises ToolInputError.
    """
    rendered = _render(value, namespaces, field=field)
    if rendered is MISSING:
        reference = whole_placeholder(value)
        raise missing_error(_parse(reference, field))
    return rendered


def _render(value: Any, namespaces: Namespaces, *, field: str) -> Any:
    if isinstance(value, str):
        reference = whole_placeholder(value)
        if reference is None:
            return render_template(value, namespaces, field=field)
        placeholder = _parse(reference, field)
        found = lookup(placeholder, namespaces)
        if found is MISSING and placeholder.namespace == "input":
            return MISSING
        return resolve(placeholder, namespaces)
    if isinstance(value, dict):
        members = {key: _render(item, namespaces, field=f"{field}.{key}") for key, item in value.items()}
        return {key: item for key, item in members.items() if item is not MISSING}
    if isinstance(value, list):
        return [render_value(item, namespaces, field=f"{field}[{i}]") for i, item in enumerate(value)]
    return value


def _parse(reference: str | None, field: str) -> Placeholder:
    return find_placeholders(f"{{{{{reference}}}}}", field=field)[0]
