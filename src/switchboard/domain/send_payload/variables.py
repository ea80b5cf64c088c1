"""Template variables: finding {{1}} / {{name}} placeholders, counting them, rendering best effort."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from switchboard.domain.errors import ValidationFailed

NAMED_VARIABLE = re.compile(r"^[a-z][a-z0-9_]*$")
POSITIONAL_VARIABLE = re.compile(r"^[1-9][0-9]*$")
PLACEHOLDER = re.compile(r"\{\{\s*([^{}\s]+)\s*\}\}")
_MEDIA_HEADER_FORMATS = ("IMAGE", "VIDEO", "DOCUMENT", "GIF", "LOCATION")
_BUTTONS_WITH_PARAMETER = ("COPY_CODE",)


def template_variables(text: str) -> list[str]:
    """Return the distinct placeholder names of a template text, in order of first use."""
    seen: dict[str, None] = {}
    for match in PLACEHOLDER.finditer(text or ""):
        seen.setdefault(match.group(1), None)
    return list(seen)


def parameter_display(value: Any) -> str | None:
    """Return the text a parameter shows in the rendered message (fallback_value for currency/date)."""
    if isinstance(value, BaseModel):
        value = value.model_dump()
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, Mapping):
        return None
    kind = value.get("type", "text")
    inner = value.get(kind)
    if kind in ("text", "payload") and inner is not None:
        return str(inner)
    if isinstance(inner, Mapping) and inner.get("fallback_value") is not None:
        return str(inner["fallback_value"])
    return None


def render_template_text(template_body_text: str, params: Sequence[Any] | Mapping[str, Any] | None) -> str:
    """Interpolate send parameters into a template text; unknown placeholders are left as written."""

    def substitute(match: re.Match[str]) -> str:
        key = match.group(1)
        value: Any = None
        if isinstance(params, Mapping):
            value = params.get(key)
        elif params is not None and POSITIONAL_VARIABLE.fullmatch(key) and int(key) <= len(params):
            value = params[int(key) - 1]
        shown = parameter_display(value) if value is not None else None
        return match.group(0) if shown is None else shown

    return PLACEHOLDER.sub(substitute, template_body_text or "")


def send_component_params(send_params: Any, kind: str) -> list[Any] | dict[str, Any]:
    """Return a send's parameters of one component (header or body): a dict when named, else a list."""
    params = _send_components(send_params).get(kind, [])
    if params and all(_name_of(p) for p in params):
        return {str(_name_of(p)): p for p in params}
    return list(params)


def check_variable_count(
    template_components: Sequence[Mapping[str, Any]],
    send_params: Any,
    *,
    parameter_format: str = "POSITIONAL",
) -> None:
    """Raise TEMPLATE_VARIABLE_COUNT_MISMATCH when a send's parameters do not fit the stored template."""
    named = (parameter_format or "POSITIONAL").upper() == "NAMED"
    sent = _send_components(send_params)
    expected_kinds: set[str] = set()
    for component in template_components:
        ctype = str(component.get("type", "")).upper()
        if ctype in ("HEADER", "BODY"):
            kind = ctype.lower()
            expected_kinds.add(kind)
            if ctype == "HEADER" and str(component.get("format") or "TEXT").upper() in _MEDIA_HEADER_FORMATS:
                _compare_count(kind, 1, sent.get(kind, []))
            else:
                _compare_variables(kind, template_variables(str(component.get("text") or "")), sent, named)
        elif ctype == "BUTTONS":
            for i, button in enumerate(component.get("buttons") or []):
                button_type = str(button.get("type", "")).upper()
                has_variable = bool(template_variables(str(button.get("url") or "")))
                if has_variable or button_type in _BUTTONS_WITH_PARAMETER:
                    _compare_count(f"button[{i}]", 1, sent.get(f"button[{i}]", []))
    for kind in ("header", "body"):
        if kind not in expected_kinds and sent.get(kind):
            _compare_count(kind, 0, sent[kind])


def _send_components(send_params: Any) -> dict[str, list[Any]]:
    components = getattr(send_params, "components", send_params) or []
    result: dict[str, list[Any]] = {}
    for component in components:
        data = component.model_dump() if isinstance(component, BaseModel) else dict(component)
        kind = str(data.get("type", "")).lower()
        key = f"button[{data.get('index')}]" if kind == "button" else kind
        result.setdefault(key, []).extend(data.get("parameters") or [])
    return result


def _name_of(param: Any) -> str | None:
    if isinstance(param, BaseModel):
        return getattr(param, "parameter_name", None)
    return param.get("parameter_name") if isinstance(param, Mapping) else None


def _compare_variables(kind: str, variables: list[str], sent: dict[str, list[Any]], named: bool) -> None:
    params = sent.get(kind, [])
    names = [_name_of(p) for p in params]
    if not named:
        if any(names):
            raise _mismatch(
                f"the template uses positional parameters but the {kind} sends parameter_name",
                kind,
                expected=len(variables),
                received=len(params),
            )
        _compare_count(kind, len(variables), params)
        return
    missing = [v for v in variables if v not in names]
    unexpected = [n for n in names if n not in variables]
    if missing or unexpected or len(names) != len(variables):
        error = _mismatch(
            f"the template {kind} expects named parameters {variables}, got {names}",
            kind,
            expected=len(variables),
            received=len(params),
        )
        error.details = {**(error.details or {}), "missing": missing, "unexpected": unexpected}
        raise error


def _compare_count(kind: str, expected: int, params: list[Any]) -> None:
    if len(params) != expected:
        raise _mismatch(
            f"the template {kind} expects {expected} parameter(s), got {len(params)}",
            kind,
            expected=expected,
            received=len(params),
        )


def _mismatch(message: str, kind: str, *, expected: int, received: int) -> ValidationFailed:
    return ValidationFailed(
        message,
        code="TEMPLATE_VARIABLE_COUNT_MISMATCH",
        details={"component": kind, "expected": expected, "received": received},
    )
