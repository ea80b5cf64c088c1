"""Message template definitions: create-body rules, the upstream create body, upstream list entries."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel

from switchboard.domain.errors import MissingRequiredField
from switchboard.domain.send_payload.fields import (
    invalid,
    is_blank,
    item_object,
    optional_list,
    optional_object,
    require_list,
    require_str,
)
from switchboard.domain.send_payload.variables import NAMED_VARIABLE, POSITIONAL_VARIABLE, template_variables

CATEGORIES = ("UTILITY", "MARKETING", "AUTHENTICATION")
PARAMETER_FORMATS = ("POSITIONAL", "NAMED")
HEADER_FORMATS = ("TEXT", "IMAGE", "VIDEO", "DOCUMENT", "LOCATION")
BUTTON_TYPES = (
    "QUICK_REPLY",
    "URL",
    "PHONE_NUMBER",
    "COPY_CODE",
    "OTP",
    "FLOW",
    "VOICE_CALL",
    "CATALOG",
    "MPM",
    "REQUEST_CONTACT_INFO",
)
_NAME = re.compile(r"^[a-z0-9_]{1,512}$")
_LANGUAGE = re.compile(r"^[a-z]{2,3}(_[A-Za-z]{2,4})?$")
_TEXT_MAX = {"HEADER": 60, "BODY": 1024, "FOOTER": 60}
_NAMED_KEYS = {"BODY": "body_text_named_params", "HEADER": "header_text_named_params"}
_BUTTONS_WITHOUT_TEXT = ("REQUEST_CONTACT_INFO", "OTP")
_MAX_BUTTONS = 10


class TemplateDefinition(BaseModel):
    """A validated POST /v1/wabas/{wabaId}/templates body."""

    name: str
    language: str
    category: str
    parameter_format: Literal["POSITIONAL", "NAMED"] = "POSITIONAL"
    # Upper-case component types; NAMED examples already placed inside each component's example.
    components: list[dict[str, Any]]


class TemplateRecordFields(BaseModel):
    """The fields of our template record taken from one upstream template list entry."""

    upstream_id: str | None
    name: str
    language: str
    category: str | None
    status: str
    parameter_format: Literal["POSITIONAL", "NAMED"]
    components: list[dict[str, Any]]
    rejected_reason: str | None = None


def validate_template_definition(body: Any) -> TemplateDefinition:
    """Validate a template create body (name, language, category, components, parameter_format)."""
    if not isinstance(body, Mapping):
        raise invalid("body", "request body must be a JSON object")
    name = require_str(body, "name", "name")
    if not _NAME.fullmatch(name):
        raise invalid(
            "name", "name must be lowercase letters, digits and underscores (at most 512)", value=name
        )
    language = require_str(body, "language", "language")
    if not _LANGUAGE.fullmatch(language):
        raise invalid("language", "language must be a locale code such as en_US or es", value=language)
    category = _choice(body, "category", CATEGORIES, required=True)
    parameter_format = _choice(body, "parameter_format", PARAMETER_FORMATS, required=False) or "POSITIONAL"
    components = _components(body, parameter_format)
    return TemplateDefinition(
        name=name,
        language=language,
        category=category,
        parameter_format=parameter_format,
        components=components,
    )


def _choice(body: Mapping[str, Any], key: str, allowed: tuple[str, ...], *, required: bool) -> str:
    value = body.get(key)
    if is_blank(value):
        if required:
            raise MissingRequiredField(key)
        return ""
    if not isinstance(value, str) or value.upper() not in allowed:
        raise invalid(key, f"{key} must be one of {', '.join(allowed)}", value=value)
    return value.upper()


def _components(body: Mapping[str, Any], parameter_format: str) -> list[dict[str, Any]]:
    raw_components = require_list(body, "components", "components")
    result: list[dict[str, Any]] = []
    seen: set[str] = set()
    for i, raw in enumerate(raw_components):
        path = f"components[{i}]"
        component = dict(item_object(raw, path))
        kind = require_str(component, "type", f"{path}.type").upper()
        if kind not in ("HEADER", "BODY", "FOOTER", "BUTTONS"):
            raise invalid(
                f"{path}.type", "component type must be HEADER, BODY, FOOTER or BUTTONS", value=kind
            )
        if kind in seen:
            raise invalid(f"{path}.type", f"a template has at most one {kind} component")
        seen.add(kind)
        component["type"] = kind
        if kind == "BUTTONS":
            _buttons(component, path)
        elif kind == "HEADER" and _header_format(component, path) != "TEXT":
            _media_header(component, path)
        else:
            _text_component(component, kind, path, body, parameter_format)
        result.append(component)
    if "BODY" not in seen:
        raise MissingRequiredField("components", "a BODY component is required")
    return result


def _header_format(component: dict[str, Any], path: str) -> str:
    header_format = require_str(component, "format", f"{path}.format").upper()
    if header_format not in HEADER_FORMATS:
        raise invalid(f"{path}.format", f"header format must be one of {', '.join(HEADER_FORMATS)}")
    component["format"] = header_format
    return header_format


def _media_header(component: dict[str, Any], path: str) -> None:
    if component["format"] == "LOCATION":
        return
    example = optional_object(component, "example", f"{path}.example") or {}
    handles = require_list(example, "header_handle", f"{path}.example.header_handle")
    if not all(isinstance(h, str) and h for h in handles):
        raise invalid(
            f"{path}.example.header_handle", "header_handle must be an array of media URLs or handles"
        )


def _text_component(
    component: dict[str, Any], kind: str, path: str, body: Mapping[str, Any], parameter_format: str
) -> None:
    text = require_str(component, "text", f"{path}.text", max_len=_TEXT_MAX[kind])
    variables = template_variables(text)
    if kind == "FOOTER":
        if variables:
            raise invalid(f"{path}.text", "a FOOTER takes no variables")
        return
    if kind == "HEADER" and len(variables) > 1:
        raise invalid(f"{path}.text", "a TEXT header takes at most one variable")
    _check_variable_style(variables, parameter_format, f"{path}.text")
    if parameter_format == "NAMED":
        _named_examples(component, kind, path, body, variables)
    else:
        _positional_examples(component, kind, path, variables)


def _check_variable_style(variables: list[str], parameter_format: str, path: str) -> None:
    positional = [v for v in variables if POSITIONAL_VARIABLE.fullmatch(v)]
    named = [v for v in variables if NAMED_VARIABLE.fullmatch(v)]
    malformed = [v for v in variables if v not in positional and v not in named]
    if malformed:
        raise invalid(
            path, f"variables must be {{{{1}}}} or {{{{lowercase_snake_case}}}}, got {{{{{malformed[0]}}}}}"
        )
    if parameter_format == "NAMED" and positional:
        raise invalid(path, "a NAMED template may not mix positional variables like {{1}} with named ones")
    if parameter_format == "POSITIONAL" and named:
        raise invalid(
            path, f"{{{{{named[0]}}}}} is a named variable; set parameter_format to NAMED to use it"
        )
    if positional and sorted(int(v) for v in positional) != list(range(1, len(positional) + 1)):
        raise invalid(path, "positional variables must be numbered {{1}}, {{2}}, ... without gaps")


def _named_examples(
    component: dict[str, Any], kind: str, path: str, body: Mapping[str, Any], variables: list[str]
) -> None:
    key = _NAMED_KEYS[kind]
    example = dict(optional_object(component, "example", f"{path}.example") or {})
    field = key if key in body else f"{path}.example.{key}"
    raw = body.get(key) if key in body else example.get(key)
    if not variables:
        if raw:
            raise invalid(field, f"{key} is given but the {kind} has no variables")
        return
    if raw is None:
        raise MissingRequiredField(field, f"{key} is required: one {{param_name, example}} per variable")
    if not isinstance(raw, list):
        raise invalid(field, f"{field} must be an array of {{param_name, example}}")
    params = []
    for i, item in enumerate(raw):
        entry = item_object(item, f"{field}[{i}]")
        params.append(
            {
                "param_name": require_str(entry, "param_name", f"{field}[{i}].param_name"),
                "example": require_str(entry, "example", f"{field}[{i}].example"),
            }
        )
    names = [p["param_name"] for p in params]
    if sorted(names) != sorted(variables):
        raise invalid(field, f"{key} must name exactly the variables used {variables}, got {names}")
    example[key] = params
    component["example"] = example


def _positional_examples(component: dict[str, Any], kind: str, path: str, variables: list[str]) -> None:
    example = optional_object(component, "example", f"{path}.example")
    if example is None or not variables:
        return
    if kind == "BODY":
        rows = optional_list(example, "body_text", f"{path}.example.body_text") or []
        if rows and (not isinstance(rows[0], list) or len(rows[0]) != len(variables)):
            raise invalid(
                f"{path}.example.body_text",
                f"body_text must be an array holding one array of {len(variables)} example value(s)",
            )
    else:
        values = optional_list(example, "header_text", f"{path}.example.header_text") or []
        if values and len(values) != len(variables):
            raise invalid(f"{path}.example.header_text", "header_text must hold one example value")


def _buttons(component: dict[str, Any], path: str) -> None:
    buttons = require_list(component, "buttons", f"{path}.buttons")
    if len(buttons) > _MAX_BUTTONS:
        raise invalid(f"{path}.buttons", f"a template has at most {_MAX_BUTTONS} buttons")
    normalized = []
    for i, raw in enumerate(buttons):
        button_path = f"{path}.buttons[{i}]"
        button = dict(item_object(raw, button_path))
        kind = require_str(button, "type", f"{button_path}.type").upper()
        if kind not in BUTTON_TYPES:
            raise invalid(f"{button_path}.type", f"button type must be one of {', '.join(BUTTON_TYPES)}")
        button["type"] = kind
        if kind not in _BUTTONS_WITHOUT_TEXT:
            require_str(button, "text", f"{button_path}.text", max_len=25)
        if kind == "URL":
            url = require_str(button, "url", f"{button_path}.url")
            if not url.lower().startswith(("https://", "http://")):
                raise invalid(f"{button_path}.url", "a URL button needs an http(s) url", value=url)
        if kind == "PHONE_NUMBER":
            require_str(button, "phone_number", f"{button_path}.phone_number")
        normalized.append(button)
    component["buttons"] = normalized


def cloud_template_create_body(definition: TemplateDefinition) -> dict[str, Any]:
    """Build the Cloud API POST /{waba_id}/message_templates body for a validated definition."""
    return {
        "name": definition.name,
        "language": definition.language,
        "category": definition.category,
        "parameter_format": definition.parameter_format.lower(),
        "components": definition.components,
    }


def parse_upstream_template(entry: Mapping[str, Any]) -> TemplateRecordFields:
    """Read one upstream template list entry into our record fields (parameter_format defaults POSITIONAL)."""
    raw_format = str(entry.get("parameter_format") or "POSITIONAL").upper()
    components = entry.get("components")
    return TemplateRecordFields(
        upstream_id=str(entry["id"]) if entry.get("id") is not None else None,
        name=str(entry.get("name") or ""),
        language=str(entry.get("language") or ""),
        category=str(entry["category"]).upper() if entry.get("category") else None,
        status=str(entry.get("status") or "PENDING").upper(),
        parameter_format="NAMED" if raw_format == "NAMED" else "POSITIONAL",
        components=[dict(c) for c in components if isinstance(c, Mapping)]
        if isinstance(components, list)
        else [],
        rejected_reason=str(entry["rejected_reason"]) if entry.get("rejected_reason") else None,
    )


def component_text(components: list[dict[str, Any]], kind: str) -> str | None:
    """Return the text of a template's HEADER or BODY component (for rendered_body), if any."""
    for component in components:
        if str(component.get("type", "")).upper() == kind.upper() and isinstance(component.get("text"), str):
            return component["text"]
    return None
