"""``response.pick``: the allowlist path that decides what of a tool response the model sees.

Grammar::

    pick    := "*" | path
    path    := step ("." step)* ["." shape]      (a shape only right after a "[]" step)
    step    := NAME | NAME "[]" | "[]"           (a leading "[]" projects a top-level array)
    shape   := "{" NAME ("," NAME)* "}"
    NAME    := [A-Za-z0-9_$@-]+
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from switchboard.domain.tools.errors import ToolDeclarationError, ToolResponseExtractError

PICK_FIELD = "declaration.response.pick"
_NAME = r"[A-Za-z0-9_$@-]+"
_STEP_RE = re.compile(rf"^({_NAME})?(\[\])?$")
_NAME_RE = re.compile(rf"^{_NAME}$")


@dataclass(frozen=True)
class Key:
    """Descend into an object member."""

    name: str


@dataclass(frozen=True)
class Each:
    """Expect an array and apply the rest of the path to each of its first max_items items."""


@dataclass(frozen=True)
class Shape:
    """Keep only these members of an object (missing ones become null)."""

    fields: tuple[str, ...]


Step = Key | Each | Shape


@dataclass(frozen=True)
class Pick:
    """A parsed pick path; ``steps`` is empty for ``*``."""

    source: str
    steps: tuple[Step, ...]

    @property
    def whole(self) -> bool:
        """True for ``*`` (the whole response)."""
        return not self.steps


def parse_pick(path: object) -> Pick:
    """Parse a pick path, raising ToolDeclarationError naming ``declaration.response.pick``."""
    if not isinstance(path, str) or not path.strip():
        raise _bad(path, "must be a non-empty string")
    source = path.strip()
    if source == "*":
        return Pick(source, ())
    head, brace, shape_text = source.partition("{")
    steps: list[Step] = []
    if brace:
        if not head.endswith("[]."):
            raise _bad(source, "a {f1, f2} shape must follow an array step such as items[].")
        head = head[:-1]
    if source.startswith("$."):
        raise _bad(source, "is not JSONPath: drop the leading $.")
    for segment in head.split("."):
        match = _STEP_RE.match(segment)
        if match is None or not segment or (match.group(1) is None and steps):
            raise _bad(source, f"segment {segment!r} is not a name or name[]")
        if match.group(1) is not None:
            steps.append(Key(match.group(1)))
        if match.group(2):
            steps.append(Each())
    if brace:
        steps.append(_parse_shape(source, shape_text))
    return Pick(source, tuple(steps))


def _parse_shape(source: str, text: str) -> Shape:
    if not text.endswith("}") or "{" in text or text.count("}") != 1:
        raise _bad(source, "a shape is written {f1, f2} and ends the path")
    fields = tuple(name.strip() for name in text[:-1].split(","))
    if not all(_NAME_RE.match(name) for name in fields):
        raise _bad(source, "shape fields must be names separated by commas")
    if len(set(fields)) != len(fields):
        raise _bad(source, "shape fields must not repeat")
    return Shape(fields)


def _bad(path: object, reason: str) -> ToolDeclarationError:
    return ToolDeclarationError(f"response.pick {path!r} {reason}", field=PICK_FIELD, pick=path)


def extract(pick: Pick, response_json: Any, *, max_items: int) -> Any:
    """Apply a pick to a parsed response; every array in the result is cut to ``max_items``.

    A missing member or a null anywhere on the path yields null; a value of the wrong type
    (an array where an object is expected, or the reverse) raises ToolResponseExtractError.
    """
    if max_items < 1:
        raise ValueError("max_items must be positive")
    value = _apply(pick, pick.steps, response_json, max_items=max_items, trail="")
    return _cap(value, max_items)


def _apply(pick: Pick, steps: tuple[Step, ...], value: Any, *, max_items: int, trail: str) -> Any:
    for index, step in enumerate(steps):
        if value is None:
            return None
        if isinstance(step, Each):
            if not isinstance(value, list):
                raise _mismatch(pick, trail, expected="array", found=value)
            rest, here = steps[index + 1 :], f"{trail}[]"
            return [_apply(pick, rest, item, max_items=max_items, trail=here) for item in value[:max_items]]
        if not isinstance(value, dict):
            raise _mismatch(pick, trail, expected="object", found=value)
        if isinstance(step, Shape):
            return {name: value.get(name) for name in step.fields}
        value = value.get(step.name)
        trail = f"{trail}.{step.name}" if trail else step.name
    return value


def _cap(value: Any, max_items: int) -> Any:
    if isinstance(value, list):
        return [_cap(item, max_items) for item in value[:max_items]]
    if isinstance(value, dict):
        return {key: _cap(item, max_items) for key, item in value.items()}
    return value


def json_type(value: Any) -> str:
    """The JSON name of a Python value's type, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return "string" if isinstance(value, str) else type(value).__name__


def _mismatch(pick: Pick, trail: str, *, expected: str, found: Any) -> ToolResponseExtractError:
    where = trail or "the response root"
    return ToolResponseExtractError(
        f"pick {pick.source!r} expected an {expected} at {where} but found {json_type(found)}",
        field=PICK_FIELD,
        pick=pick.source,
        at=where,
        expected=expected,
        found=json_type(found),
    )


def extract_token(path: tuple[str, ...], response_json: Any, *, field: str) -> str:
    """The token at ``token_response_path`` of a token-endpoint response; it must be a non-empty string."""
    value = response_json
    for name in path:
        value = value.get(name) if isinstance(value, dict) else None
    if not isinstance(value, str) or not value:
        raise ToolResponseExtractError(
            f"the token endpoint response has no string at {'.'.join(path)} (found {json_type(value)})",
            field=field,
            found=json_type(value),
        )
    return value
