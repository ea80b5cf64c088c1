"""The ``{{namespace.path}}`` placeholder syntax and the checks on where each namespace may appear."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from switchboard.domain.tools.errors import ToolDeclarationError, ToolSecurityError

PLACEHOLDER_RE = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")
_REFERENCE_RE = re.compile(r"^(input|binding|context)((?:\.[A-Za-z_][A-Za-z0-9_-]*)+)$")

CONTEXT_KEYS = ("customer_id", "contact_phone", "conversation_id")


@dataclass(frozen=True)
class Placeholder:
    """One parsed ``{{...}}`` reference: its namespace and the dotted path below it."""

    namespace: str
    path: tuple[str, ...]

    @property
    def dotted(self) -> str:
        """The reference as written without braces, e.g. ``input.patient_id``."""
        return ".".join((self.namespace, *self.path))

    @property
    def is_secret(self) -> bool:
        """True for ``binding.secret.<name>``."""
        return self.namespace == "binding" and self.path[0] == "secret"

    @property
    def is_base_url(self) -> bool:
        """True for ``binding.base_url``."""
        return self.namespace == "binding" and self.path == ("base_url",)


def parse_reference(reference: str, *, field: str) -> Placeholder:
    """Parse the inside of one ``{{...}}`` and check it names a known namespace member."""
    match = _REFERENCE_RE.match(reference)
    if match is None:
        raise ToolDeclarationError(
            f"{{{{{reference}}}}} is not a valid placeholder; use input.*, binding.* or context.*",
            field=field,
            placeholder=reference,
        )
    namespace, rest = match.group(1), tuple(match.group(2)[1:].split("."))
    placeholder = Placeholder(namespace, rest)
    if namespace == "binding" and not _is_binding_member(rest):
        raise ToolDeclarationError(
            f"{{{{{reference}}}}}: binding offers base_url, params.<key> and secret.<name>",
            field=field,
            placeholder=reference,
        )
    if namespace == "context" and (len(rest) != 1 or rest[0] not in CONTEXT_KEYS):
        raise ToolDeclarationError(
            f"{{{{{reference}}}}}: context offers {', '.join(CONTEXT_KEYS)}",
            field=field,
            placeholder=reference,
        )
    return placeholder


def _is_binding_member(path: tuple[str, ...]) -> bool:
    if path == ("base_url",):
        return True
    if path[0] == "params":
        return len(path) >= 2
    return path[0] == "secret" and len(path) == 2


def find_placeholders(text: str, *, field: str) -> list[Placeholder]:
    """Every placeholder in ``text``; a stray ``{{`` or ``}}`` is an error (it would be sent literally)."""
    found = [parse_reference(m.group(1), field=field) for m in PLACEHOLDER_RE.finditer(text)]
    leftover = PLACEHOLDER_RE.sub("", text)
    if "{{" in leftover or "}}" in leftover:
        raise ToolDeclarationError(f"{field} has an unterminated or nested placeholder", field=field)
    return found


def whole_placeholder(text: str) -> str | None:
    """The reference when ``text`` is exactly one placeholder (its value then keeps its JSON type)."""
    match = PLACEHOLDER_RE.fullmatch(text)
    return match.group(1) if match else None


def check_placements(
    text: str,
    *,
    field: str,
    input_names: Collection[str] | None,
    allow_input: bool = True,
    allow_context: bool = True,
    allow_secret: bool = True,
    allow_base_url: bool = True,
) -> list[Placeholder]:
    """Parse ``text`` and reject placeholders whose namespace may not appear in ``field``."""
    placeholders = find_placeholders(text, field=field)
    for placeholder in placeholders:
        where = {"field": field, "placeholder": placeholder.dotted}
        if placeholder.namespace == "input":
            if not allow_input:
                raise ToolSecurityError(f"{{{{input.*}}}} is not allowed in {field}", **where)
            if input_names is not None and placeholder.path[0] not in input_names:
                raise ToolDeclarationError(
                    f"{{{{{placeholder.dotted}}}}} names a property that input_schema does not declare",
                    **where,
                )
        elif placeholder.namespace == "context" and not allow_context:
            raise ToolDeclarationError(f"{{{{context.*}}}} is not allowed in {field}", **where)
        elif placeholder.is_secret and not allow_secret:
            raise ToolSecurityError(f"{{{{binding.secret.*}}}} is not allowed in {field}", **where)
        elif placeholder.is_base_url and not allow_base_url:
            raise ToolDeclarationError(f"{{{{binding.base_url}}}} is not allowed in {field}", **where)
    return placeholders


def check_json_placements(
    value: Any,
    *,
    field: str,
    input_names: Collection[str] | None,
    allow_input: bool = True,
    allow_context: bool = True,
    allow_secret: bool = True,
) -> None:
    """Apply ``check_placements`` to every string of a JSON value; object keys take no placeholders."""
    allow = {"allow_input": allow_input, "allow_context": allow_context, "allow_secret": allow_secret}
    if isinstance(value, str):
        check_placements(value, field=field, input_names=input_names, **allow)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_key(key, field=field)
            check_json_placements(item, field=f"{field}.{key}", input_names=input_names, **allow)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            check_json_placements(item, field=f"{field}[{i}]", input_names=input_names, **allow)


def _check_key(key: str, *, field: str) -> None:
    """The model's input must never add or name keys, so key names are always literal."""
    if "{{" not in key and "}}" not in key:
        return
    if re.search(r"\{\{\s*input\.", key):
        raise ToolSecurityError(
            f"{{{{input.*}}}} may not choose a key name in {field}", field=f"{field}.{key}"
        )
    raise ToolDeclarationError(
        f"placeholders are not allowed in key names of {field}", field=f"{field}.{key}"
    )
