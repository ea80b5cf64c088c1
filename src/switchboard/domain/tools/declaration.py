"""``validate_declaration``: every rule of an AgentTool declaration, checked at creation and at run time."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from switchboard.domain.tools.auth import validate_auth
from switchboard.domain.tools.checks import (
    reject_unknown_keys,
    require_bool,
    require_int,
    require_key,
    require_object,
    require_string,
)
from switchboard.domain.tools.errors import ToolDeclarationError
from switchboard.domain.tools.errors_block import (
    DeclarationWarning,
    errors_block_warnings,
    validate_errors_block,
)
from switchboard.domain.tools.inputs import check_input_schema, input_names
from switchboard.domain.tools.pick import parse_pick
from switchboard.domain.tools.placeholders import PLACEHOLDER_RE, check_json_placements, check_placements
from switchboard.domain.tools.urls import parse_url_template

ROOT = "declaration"
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
BODY_METHODS = ("POST", "PUT", "PATCH")
DEFAULT_TIMEOUT_MS = 10_000
TIMEOUT_MS_RANGE = (100, 30_000)
DEFAULT_MAX_ITEMS = 10
MAX_ITEMS_LIMIT = 1000

_TOP_LEVEL = ("description", "input_schema", "request", "response", "errors", "terminates_thread")
_REQUEST_FIELDS = ("method", "url", "query", "body", "auth", "timeout_ms")
_RESPONSE_FIELDS = ("pick", "max_items")


def validate_declaration(declaration: Any) -> dict[str, Any]:
    """Check a tool declaration and return it normalized, with every default filled in."""
    declaration = require_object(declaration, field=ROOT)
    reject_unknown_keys(declaration, _TOP_LEVEL, field=ROOT)
    for block in ("description", "input_schema", "request", "response"):
        require_key(declaration, block, field=ROOT)
    schema = check_input_schema(declaration["input_schema"], field=f"{ROOT}.input_schema")
    names = input_names(schema)
    description = require_string(declaration["description"], field=f"{ROOT}.description")
    # The model reads the description, so a secret there would be disclosed to it.
    check_placements(description, field=f"{ROOT}.description", input_names=names, allow_secret=False)
    return {
        "description": description,
        "input_schema": schema,
        "request": _validate_request(declaration["request"], names=names),
        "response": _validate_response(declaration["response"]),
        "errors": validate_errors_block(declaration.get("errors"), field=f"{ROOT}.errors"),
        "terminates_thread": require_bool(
            declaration.get("terminates_thread", False), field=f"{ROOT}.terminates_thread"
        ),
    }


def declaration_warnings(normalized: dict[str, Any]) -> list[DeclarationWarning]:
    """What a valid declaration says that will not act as written (answered with the tool, never refused)."""
    return errors_block_warnings(normalized.get("errors") or {}, field=f"{ROOT}.errors")


def uses_base_url(declaration: Any) -> bool:
    """True when the request block (URL, query, body or auth) reads ``{{binding.base_url}}``."""
    request = declaration.get("request") if isinstance(declaration, dict) else None
    return _mentions_base_url(request)


def _mentions_base_url(value: Any) -> bool:
    if isinstance(value, str):
        return any(m.group(1) == "binding.base_url" for m in PLACEHOLDER_RE.finditer(value))
    if isinstance(value, dict):
        return any(_mentions_base_url(item) for item in value.values())
    if isinstance(value, list):
        return any(_mentions_base_url(item) for item in value)
    return False


def _validate_request(request: Any, *, names: Collection[str]) -> dict[str, Any]:
    field = f"{ROOT}.request"
    request = require_object(request, field=field)
    reject_unknown_keys(request, _REQUEST_FIELDS, field=field)
    method = require_key(request, "method", field=field)
    method = method.upper() if isinstance(method, str) else method
    if method not in METHODS:
        raise ToolDeclarationError(
            f"{field}.method must be one of {', '.join(METHODS)}", field=f"{field}.method", value=method
        )
    parse_url_template(require_key(request, "url", field=field), field=f"{field}.url", input_names=names)
    normalized: dict[str, Any] = {
        "method": method,
        "url": request["url"],
        "query": _validate_query(request.get("query", {}), field=f"{field}.query", names=names),
        "auth": validate_auth(request.get("auth"), field=f"{field}.auth"),
        "timeout_ms": require_int(
            request.get("timeout_ms", DEFAULT_TIMEOUT_MS),
            field=f"{field}.timeout_ms",
            low=TIMEOUT_MS_RANGE[0],
            high=TIMEOUT_MS_RANGE[1],
        ),
    }
    if "body" in request:
        if method not in BODY_METHODS:
            raise ToolDeclarationError(
                f"{field}.body is only sent with {', '.join(BODY_METHODS)}, not {method}",
                field=f"{field}.body",
            )
        body = require_object(request["body"], field=f"{field}.body")
        check_json_placements(body, field=f"{field}.body", input_names=names)
        normalized["body"] = body
    return normalized


def _validate_query(query: Any, *, field: str, names: Collection[str]) -> dict[str, Any]:
    query = require_object(query, field=field)
    for name, value in query.items():
        if not name:
            raise ToolDeclarationError(f"{field} has an empty parameter name", field=field)
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, dict | list):
                raise ToolDeclarationError(
                    f"{field}.{name} must be a string, number, boolean, null or a list of those",
                    field=f"{field}.{name}",
                )
    check_json_placements(query, field=field, input_names=names)
    return query


def _validate_response(response: Any) -> dict[str, Any]:
    field = f"{ROOT}.response"
    response = require_object(response, field=field)
    reject_unknown_keys(response, _RESPONSE_FIELDS, field=field)
    pick = parse_pick(require_key(response, "pick", field=field))
    max_items = require_int(
        response.get("max_items", DEFAULT_MAX_ITEMS), field=f"{field}.max_items", low=1, high=MAX_ITEMS_LIMIT
    )
    return {"pick": pick.source, "max_items": max_items}
