"""Send-time template rules: parameters, NAMED params, variable counts, approval and rendering."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from switchboard.domain.errors import MissingRequiredField, ValidationFailed
from switchboard.domain.send_payload.fields import (
    invalid,
    is_blank,
    item_object,
    optional_list,
    optional_object,
    optional_str,
    refuse_unknown,
    require_str,
)
from switchboard.domain.send_payload.models import (
    TemplateComponent,
    TemplateLanguage,
    TemplateObject,
    TemplateParameter,
)
from switchboard.domain.send_payload.variables import NAMED_VARIABLE

PARAMETER_TYPES = (
    "text",
    "currency",
    "date_time",
    "image",
    "video",
    "document",
    "payload",
    "location",
    "coupon_code",
    "action",
)
# Button parameters the Cloud API defines per button sub_type: a copy_code button's coupon code, the
# action of a flow button (flow_token, flow_action_data) or a catalog / multi-product button
# (thumbnail_product_retailer_id). Other parameters go where the template's components take them.
_BUTTON_PARAMETERS = {
    "copy_code": ("coupon_code",),
    "flow": ("action",),
    "catalog": ("action",),
    "mpm": ("action",),
}
COUPON_CODE_MAX = 15
BUTTON_SUB_TYPES = ("quick_reply", "url", "copy_code", "flow", "catalog", "mpm", "voice_call")
SENDABLE_STATUSES = frozenset({"APPROVED"})
_MEDIA_PARAMETERS = ("image", "video", "document", "location")
_COMPONENT_ORDER = {"header": 0, "body": 1, "button": 2}


def parse_template(obj: Mapping[str, Any], path: str = "template") -> TemplateObject:
    """Validate a template send object; NAMED params become parameters carrying parameter_name."""
    # parameter_format is derived here; it is accepted because a stored send (re-read to resume it) has it.
    refuse_unknown(
        obj,
        {"name", "language", "components", "body_named_params", "header_named_param", "parameter_format"},
        path,
    )
    name = require_str(obj, "name", f"{path}.name")
    language = _language(obj, f"{path}.language")
    components = [
        _component(raw, f"{path}.components[{i}]")
        for i, raw in enumerate(optional_list(obj, "components", f"{path}.components") or [])
    ]
    body_named = optional_object(obj, "body_named_params", f"{path}.body_named_params")
    header_named = optional_object(obj, "header_named_param", f"{path}.header_named_param")
    for kind, named, field in (
        ("body", body_named, "body_named_params"),
        ("header", header_named, "header_named_param"),
    ):
        if named is None:
            continue
        if any(c.type == kind for c in components):
            raise invalid(f"{path}.{field}", f"send either {field} or a {kind} component, not both")
        params = _named_params(named, f"{path}.{field}", single=kind == "header")
        components.append(TemplateComponent.model_validate({"type": kind, "parameters": params}))
    named_format = body_named is not None or header_named is not None or _any_named(components)
    if named_format:
        _require_names(components, path)
    components.sort(key=lambda c: (_COMPONENT_ORDER[c.type], int(c.index or 0)))
    return TemplateObject(
        name=name,
        language=TemplateLanguage.model_validate(language),
        components=components,
        parameter_format="NAMED" if named_format else "POSITIONAL",
    )


def _language(obj: Mapping[str, Any], path: str) -> dict[str, str]:
    value = obj.get("language")
    if isinstance(value, str) and value.strip():
        return {"code": value}
    if value is None:
        raise MissingRequiredField(f"{path}.code")
    if not isinstance(value, Mapping):
        raise invalid(path, f'{path} must be an object like {{"code": "en_US"}}')
    refuse_unknown(value, {"code", "policy"}, path)
    language = {"code": require_str(value, "code", f"{path}.code")}
    policy = optional_str(value, "policy", f"{path}.policy")
    if policy is not None:
        language["policy"] = policy
    return language


def _component(raw: Any, path: str) -> TemplateComponent:
    obj = item_object(raw, path)
    refuse_unknown(obj, {"type", "sub_type", "index", "parameters"}, path)
    kind = require_str(obj, "type", f"{path}.type").lower()
    if kind not in _COMPONENT_ORDER:
        raise invalid(f"{path}.type", "component type must be header, body or button", value=obj["type"])
    sub_type = index = None
    if kind == "button":
        sub_type = require_str(obj, "sub_type", f"{path}.sub_type").lower()
        if sub_type not in BUTTON_SUB_TYPES:
            raise invalid(f"{path}.sub_type", f"sub_type must be one of {', '.join(BUTTON_SUB_TYPES)}")
        index = _button_index(obj.get("index"), f"{path}.index")
    raw_params = optional_list(obj, "parameters", f"{path}.parameters") or []
    params = [_parameter(p, f"{path}.parameters[{i}]") for i, p in enumerate(raw_params)]
    for i, param in enumerate(params):
        only_for = [sub for sub, kinds in _BUTTON_PARAMETERS.items() if param.type in kinds]
        if only_for and sub_type not in only_for:
            raise invalid(
                f"{path}.parameters[{i}].type",
                f"a {param.type} parameter belongs to a button of sub_type {' or '.join(only_for)}",
                value=param.type,
            )
    return TemplateComponent.model_validate(
        {"type": kind, "sub_type": sub_type, "index": index, "parameters": params}
    )


def _button_index(value: Any, path: str) -> str:
    if value is None or value == "":
        raise MissingRequiredField(path)
    text = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
    if not isinstance(text, str) or not text.isdigit() or not 0 <= int(text) <= 9:
        raise invalid(path, 'button index must be a string from "0" to "9"', value=value)
    return text


def _parameter(raw: Any, path: str) -> TemplateParameter:
    obj = item_object(raw, path)
    kind = require_str(obj, "type", f"{path}.type")
    if kind not in PARAMETER_TYPES:
        raise invalid(
            f"{path}.type", f"parameter type must be one of {', '.join(PARAMETER_TYPES)}", value=kind
        )
    refuse_unknown(obj, {"type", "parameter_name", kind}, path)
    value = obj.get(kind)
    if kind == "coupon_code":
        require_str(obj, kind, f"{path}.{kind}", max_len=COUPON_CODE_MAX)
    elif kind in ("text", "payload"):
        if isinstance(value, int | float) and not isinstance(value, bool):
            obj = {**obj, kind: str(value)}
        else:
            require_str(obj, kind, f"{path}.{kind}")
    elif value is None:
        raise MissingRequiredField(f"{path}.{kind}")
    elif not isinstance(value, Mapping):
        raise invalid(f"{path}.{kind}", f"{path}.{kind} must be an object")
    elif kind in ("currency", "date_time"):
        require_str(value, "fallback_value", f"{path}.{kind}.fallback_value")
    elif kind == "action" and not value:
        raise MissingRequiredField(
            f"{path}.action",
            f"{path}.action needs flow_token, flow_action_data or thumbnail_product_retailer_id",
        )
    elif kind in ("image", "video", "document") and is_blank(value.get("link")) == is_blank(value.get("id")):
        raise invalid(f"{path}.{kind}", f"{path}.{kind} takes exactly one of link or id")
    name = optional_str(obj, "parameter_name", f"{path}.parameter_name")
    if name is not None and not NAMED_VARIABLE.fullmatch(name):
        raise invalid(f"{path}.parameter_name", "parameter_name must be lowercase_snake_case", value=name)
    return TemplateParameter.model_validate(obj)


def _named_params(named: Mapping[str, Any], path: str, *, single: bool) -> list[TemplateParameter]:
    if "parameter_name" in named:
        value = named.get("text", named.get("value"))
        named = {str(named["parameter_name"]): value}
    if not named:
        raise MissingRequiredField(path)
    if single and len(named) != 1:
        raise invalid(path, f"{path} holds exactly one variable (a header has at most one)")
    params = []
    for key, value in named.items():
        if not NAMED_VARIABLE.fullmatch(key):
            raise invalid(f"{path}.{key}", "named variables must be lowercase_snake_case", value=key)
        if isinstance(value, Mapping):
            params.append(_parameter({**value, "parameter_name": key}, f"{path}.{key}"))
        elif isinstance(value, str | int | float) and not isinstance(value, bool) and str(value) != "":
            params.append(
                TemplateParameter.model_validate({"type": "text", "parameter_name": key, "text": str(value)})
            )
        else:
            raise invalid(f"{path}.{key}", f"{path}.{key} must be a non-empty string or a parameter object")
    return params


def _any_named(components: Sequence[TemplateComponent]) -> bool:
    return any(p.parameter_name for c in components for p in c.parameters)


def _require_names(components: Sequence[TemplateComponent], path: str) -> None:
    for component in components:
        if component.type == "button":
            continue
        # Media header parameters fill the header itself, not a variable, so they carry no name.
        if any(p.parameter_name is None and p.type not in _MEDIA_PARAMETERS for p in component.parameters):
            raise invalid(
                f"{path}.components",
                f"the {component.type} mixes named and positional parameters; a NAMED template needs "
                "parameter_name on every header and body parameter",
            )


def ensure_template_sendable(status: str | None, *, name: str, language: str) -> None:
    """Refuse a send with a template that is not APPROVED (PENDING, REJECTED, PAUSED, ...)."""
    normalized = (status or "").upper()
    if normalized not in SENDABLE_STATUSES:
        raise ValidationFailed(
            f"template {name} ({language}) is {normalized or 'not approved'} and cannot be sent",
            code="TEMPLATE_NOT_APPROVED",
            details={"template": name, "language": language, "status": normalized or None},
        )
