"""``render_request``: turn a declaration, the model's input, the binding and the context into the one
HTTP request an executor sends (and the token pre-request for ``jwt_from_token_endpoint``)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import quote

from switchboard.domain.tools.auth import TokenRequest, render_auth
from switchboard.domain.tools.declaration import validate_declaration
from switchboard.domain.tools.errors import ToolDeclarationError, ToolInputError
from switchboard.domain.tools.inputs import validate_input
from switchboard.domain.tools.interpolate import (
    BindingNamespace,
    ContextNamespace,
    Namespaces,
    render_template,
    render_value,
)
from switchboard.domain.tools.placeholders import Placeholder, whole_placeholder
from switchboard.domain.tools.urls import (
    check_binding_base_url,
    guard_path_segment,
    join_base_url,
    parse_url_template,
)

URL_FIELD = "declaration.request.url"
# RFC 3986 sub-delims and "@" may stay literal in a path segment; ":" never gets here (guarded).
_PATH_SAFE = "!$&'()*+,;=@"


@dataclass(frozen=True)
class RenderedRequest:
    """Everything needed to send a tool call: no placeholder left, every value checked."""

    method: str
    url: str
    query: dict[str, Any]
    headers: dict[str, str] = field(repr=False)
    body: dict[str, Any] | None
    timeout_ms: int
    token_request: TokenRequest | None = None
    # Every secret of the binding, so logs, run records and error texts can blank them out.
    secret_values: frozenset[str] = field(default=frozenset(), repr=False)

    def with_bearer_token(self, token: str) -> RenderedRequest:
        """The same request carrying ``Authorization: Bearer <token>`` (after the token pre-request)."""
        return replace(self, headers={**self.headers, "Authorization": f"Bearer {token}"})


def render_request(
    declaration: dict[str, Any],
    *,
    input: dict[str, Any],
    binding: BindingNamespace,
    context: ContextNamespace,
) -> RenderedRequest:
    """Re-check declaration and input, then render method, URL, query, headers, body and token request."""
    normalized = validate_declaration(declaration)
    validate_input(normalized["input_schema"], input)
    namespaces = Namespaces(input=input, binding=binding, context=context)
    request = normalized["request"]
    headers, token_request = render_auth(request["auth"], namespaces)
    body = None
    if "body" in request:
        body = render_value(request["body"], namespaces, field="declaration.request.body")
    return RenderedRequest(
        method=request["method"],
        url=render_url(request["url"], namespaces),
        query=_render_query(request["query"], namespaces),
        headers=headers,
        body=body,
        timeout_ms=request["timeout_ms"],
        token_request=token_request,
        secret_values=frozenset(v for v in binding.secrets.values() if v),
    )


def render_url(template: str, namespaces: Namespaces) -> str:
    """Render ``request.url``: base URL from the binding, guarded and percent-encoded path values."""
    parts = parse_url_template(template, field=URL_FIELD, input_names=None)
    base_url = namespaces.binding.base_url
    check_binding_base_url(base_url)
    rest = render_template(parts.path, namespaces, field=URL_FIELD, on_value=_path_value)
    if parts.query is not None:
        rest += "?" + render_template(parts.query, namespaces, field=URL_FIELD, on_value=_query_value)
    return join_base_url(base_url, rest)


def _path_value(placeholder: Placeholder, text: str) -> str:
    if placeholder.namespace == "binding":
        return text
    guard_path_segment(text, field=placeholder.dotted)
    return quote(text, safe=_PATH_SAFE)


def _query_value(placeholder: Placeholder, text: str) -> str:
    return quote(text, safe="")


def _render_query(query: dict[str, Any], namespaces: Namespaces) -> dict[str, Any]:
    """Query parameters keep their JSON type; a null value (or an absent optional input) is left out."""
    rendered = render_value(query, namespaces, field="declaration.request.query")
    out: dict[str, Any] = {}
    for name, value in rendered.items():
        field = f"declaration.request.query.{name}"
        items = value if isinstance(value, list) else [value]
        if any(isinstance(item, dict | list) for item in items):
            reference = whole_placeholder(query[name]) if isinstance(query[name], str) else None
            error = ToolInputError if reference and reference.startswith("input.") else ToolDeclarationError
            raise error(
                f"{field} rendered to an object or nested array, which a query string cannot carry",
                field=field,
            )
        if value is not None:
            out[name] = [item for item in items if item is not None] if isinstance(value, list) else value
    return out
