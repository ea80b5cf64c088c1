"""``request.auth``: the five authentication types, their declaration rules and their rendering.

Only ``{{binding.*}}`` may appear in auth fields. Input is a ToolSecurityError (the model
must not choose credentials); context is a ToolDeclarationError because a fetched token is
cached per (tenant, tool slug), so it must not depend on the conversation.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field
from typing import Any

from switchboard.domain.tools.checks import (
    reject_unknown_keys,
    require_int,
    require_key,
    require_object,
    require_string,
)
from switchboard.domain.tools.errors import ToolDeclarationError
from switchboard.domain.tools.interpolate import Namespaces, render_template, render_value
from switchboard.domain.tools.placeholders import PLACEHOLDER_RE, check_json_placements, check_placements
from switchboard.domain.tools.urls import (
    check_absolute_url,
    check_binding_base_url,
    check_token_url_template,
    join_base_url,
    strip_base_url_prefix,
)

SINGLE_STEP_TYPES = ("none", "bearer", "api_key_header", "basic")
JWT_TYPE = "jwt_from_token_endpoint"
TOKEN_METHODS = ("GET", "POST")

_SINGLE_STEP_FIELDS: dict[str, tuple[str, ...]] = {
    "none": (),
    "bearer": ("token",),
    "api_key_header": ("header", "key"),
    "basic": ("username", "password"),
}
_JWT_REQUIRED = ("token_url", "token_response_path", "expires_in_sec")
_JWT_FIELDS = ("type", "token_url", "token_method", "token_body", "token_auth", *_JWT_REQUIRED[1:])
_HEADER_NAME_RE = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
_RESERVED_HEADERS = frozenset({"host", "content-length", "transfer-encoding", "connection", "content-type"})
_TOKEN_PATH_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$")
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")


def validate_auth(auth: Any, *, field: str = "declaration.request.auth") -> dict[str, Any]:
    """Check an auth block and return it with defaults (``type: none``, ``token_method: POST``)."""
    if auth is None:
        return {"type": "none"}
    auth = require_object(auth, field=field)
    kind = auth.get("type", "none")
    if kind == JWT_TYPE:
        return _validate_jwt(auth, field=field)
    return _validate_single_step(auth, field=field)


def _validate_single_step(auth: dict[str, Any], *, field: str) -> dict[str, Any]:
    kind = auth.get("type", "none")
    if kind not in _SINGLE_STEP_FIELDS:
        raise ToolDeclarationError(
            f"{field}.type must be one of {', '.join((*SINGLE_STEP_TYPES, JWT_TYPE))}",
            field=f"{field}.type",
            value=kind,
        )
    names = _SINGLE_STEP_FIELDS[kind]
    reject_unknown_keys(auth, ("type", *names), field=field)
    for name in names:
        _check_credential(require_key(auth, name, field=field), field=f"{field}.{name}")
    if kind == "api_key_header":
        _check_header_name(auth["header"], field=f"{field}.header")
    return {**auth, "type": kind}


def _check_credential(value: Any, *, field: str) -> None:
    text = require_string(value, field=field)
    _check_auth_placeholders(text, field=field)


def _check_auth_placeholders(text: str, *, field: str) -> None:
    check_placements(text, field=field, input_names=None, allow_input=False, allow_context=False)


def _check_header_name(value: str, *, field: str) -> None:
    if PLACEHOLDER_RE.search(value) or not _HEADER_NAME_RE.match(value):
        raise ToolDeclarationError(f"{field} must be a literal HTTP header name", field=field, value=value)
    if value.lower() in _RESERVED_HEADERS:
        raise ToolDeclarationError(f"{field} may not be {value}: the client sets it", field=field)


def _validate_jwt(auth: dict[str, Any], *, field: str) -> dict[str, Any]:
    reject_unknown_keys(auth, _JWT_FIELDS, field=field)
    for name in _JWT_REQUIRED:
        require_key(auth, name, field=field)
    check_token_url_template(auth["token_url"], field=f"{field}.token_url")
    method = auth.get("token_method", "POST")
    method = method.upper() if isinstance(method, str) else method
    if method not in TOKEN_METHODS:
        raise ToolDeclarationError(
            f"{field}.token_method must be GET or POST", field=f"{field}.token_method", value=method
        )
    normalized: dict[str, Any] = {**auth, "token_method": method}
    if "token_body" in auth:
        body = require_object(auth["token_body"], field=f"{field}.token_body")
        if method == "GET":
            raise ToolDeclarationError(
                f"{field}.token_body needs token_method POST", field=f"{field}.token_body"
            )
        check_json_placements(
            body, field=f"{field}.token_body", input_names=None, allow_input=False, allow_context=False
        )
    if "token_auth" in auth:
        inner = require_object(auth["token_auth"], field=f"{field}.token_auth")
        if inner.get("type") == JWT_TYPE:
            raise ToolDeclarationError(
                f"{field}.token_auth must be a single-step type ({', '.join(SINGLE_STEP_TYPES)})",
                field=f"{field}.token_auth.type",
            )
        normalized["token_auth"] = _validate_single_step(inner, field=f"{field}.token_auth")
    path = auth["token_response_path"]
    if not isinstance(path, str) or not _TOKEN_PATH_RE.match(path):
        raise ToolDeclarationError(
            f"{field}.token_response_path must be a plain dot path such as data.access_token",
            field=f"{field}.token_response_path",
            value=path,
        )
    require_int(auth["expires_in_sec"], field=f"{field}.expires_in_sec", low=60, high=86400)
    return normalized


@dataclass(frozen=True)
class TokenRequest:
    """The pre-request of ``jwt_from_token_endpoint``, ready to send; the token sits at ``response_path``."""

    method: str
    url: str
    headers: dict[str, str] = field(repr=False)
    body: dict[str, Any] | None
    response_path: tuple[str, ...]
    expires_in_sec: int


def render_auth(auth: dict[str, Any], namespaces: Namespaces) -> tuple[dict[str, str], TokenRequest | None]:
    """Headers for a single-step type, or the token pre-request for ``jwt_from_token_endpoint``."""
    field = "declaration.request.auth"
    if auth["type"] != JWT_TYPE:
        return _single_step_headers(auth, namespaces, field=field), None
    rest = strip_base_url_prefix(auth["token_url"])
    if rest is None:
        token_url = render_template(auth["token_url"], namespaces, field=f"{field}.token_url")
    else:
        check_binding_base_url(namespaces.binding.base_url)
        rendered = render_template(rest, namespaces, field=f"{field}.token_url")
        token_url = join_base_url(namespaces.binding.base_url, rendered)
    check_absolute_url(token_url, field=f"{field}.token_url")
    body = None
    if "token_body" in auth:
        body = render_value(auth["token_body"], namespaces, field=f"{field}.token_body")
    inner = auth.get("token_auth") or {"type": "none"}
    return {}, TokenRequest(
        method=auth["token_method"],
        url=token_url,
        headers=_single_step_headers(inner, namespaces, field=f"{field}.token_auth"),
        body=body,
        response_path=tuple(auth["token_response_path"].split(".")),
        expires_in_sec=auth["expires_in_sec"],
    )


def _single_step_headers(auth: dict[str, Any], namespaces: Namespaces, *, field: str) -> dict[str, str]:
    def text(name: str) -> str:
        value = render_template(auth[name], namespaces, field=f"{field}.{name}")
        if _CONTROL_RE.search(value):
            raise ToolDeclarationError(
                f"{field}.{name} renders to a value with control characters", field=f"{field}.{name}"
            )
        return value

    kind = auth["type"]
    if kind == "bearer":
        return {"Authorization": f"Bearer {text('token')}"}
    if kind == "api_key_header":
        return {auth["header"]: text("key")}
    if kind == "basic":
        pair = f"{text('username')}:{text('password')}".encode()
        return {"Authorization": f"Basic {base64.b64encode(pair).decode('ascii')}"}
    return {}
