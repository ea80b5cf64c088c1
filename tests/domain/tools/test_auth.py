"""request.auth: each type's declaration rules and the headers or token request it renders to."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from switchboard.domain.tools import (
    BindingNamespace,
    ContextNamespace,
    ToolDeclarationError,
    ToolError,
    ToolSecurityError,
    render_request,
    validate_declaration,
)
from tests.domain.tools.builders import patched

A = "declaration.request.auth"

JWT: dict[str, Any] = {
    "type": "jwt_from_token_endpoint",
    "token_url": "{{binding.base_url}}/oauth/token",
    "token_body": {
        "grant_type": "client_credentials",
        "client_id": "{{binding.params.client_id}}",
        "client_secret": "{{binding.secret.client_secret}}",
    },
    "token_response_path": "access_token",
    "expires_in_sec": 3600,
}


def jwt(**changes: Any) -> dict[str, Any]:
    """The JWT auth block with some fields changed (None removes one)."""
    block = {**JWT, **changes}
    return {k: v for k, v in block.items() if v is not None}


ACCEPTED: list[tuple[str, dict[str, Any] | None, dict[str, Any]]] = [
    ("absent means none", None, {"type": "none"}),
    ("none", {"type": "none"}, {"type": "none"}),
    (
        "bearer",
        {"type": "bearer", "token": "{{binding.secret.t}}"},
        {"type": "bearer", "token": "{{binding.secret.t}}"},
    ),
    ("bearer with a literal token", {"type": "bearer", "token": "abc"}, {"type": "bearer", "token": "abc"}),
    (
        "api_key_header",
        {"type": "api_key_header", "header": "X-Api-Key", "key": "{{binding.secret.k}}"},
        {"type": "api_key_header", "header": "X-Api-Key", "key": "{{binding.secret.k}}"},
    ),
    (
        "basic",
        {"type": "basic", "username": "{{binding.params.user}}", "password": "{{binding.secret.p}}"},
        {"type": "basic", "username": "{{binding.params.user}}", "password": "{{binding.secret.p}}"},
    ),
    ("jwt gets token_method POST", jwt(), {**JWT, "token_method": "POST"}),
    (
        "jwt with token_method GET and no body",
        jwt(token_method="get", token_body=None),
        {k: v for k, v in {**JWT, "token_method": "GET"}.items() if k != "token_body"},
    ),
    (
        "jwt with a literal https token_url",
        jwt(token_url="https://auth.example.com/token"),
        {**JWT, "token_url": "https://auth.example.com/token", "token_method": "POST"},
    ),
    (
        "jwt token_url from binding params",
        jwt(token_url="{{binding.params.auth_url}}"),
        {**JWT, "token_url": "{{binding.params.auth_url}}", "token_method": "POST"},
    ),
    (
        "jwt with basic token_auth",
        jwt(token_auth={"type": "basic", "username": "u", "password": "{{binding.secret.p}}"}),
        {
            **JWT,
            "token_method": "POST",
            "token_auth": {"type": "basic", "username": "u", "password": "{{binding.secret.p}}"},
        },
    ),
    (
        "jwt nested token_response_path",
        jwt(token_response_path="data.token_v2"),
        {**JWT, "token_response_path": "data.token_v2", "token_method": "POST"},
    ),
    ("jwt expires_in_sec 60", jwt(expires_in_sec=60), {**JWT, "expires_in_sec": 60, "token_method": "POST"}),
    (
        "jwt expires_in_sec 86400",
        jwt(expires_in_sec=86400),
        {**JWT, "expires_in_sec": 86400, "token_method": "POST"},
    ),
]


@pytest.mark.parametrize(("auth", "expected"), [(a, e) for _, a, e in ACCEPTED], ids=[r[0] for r in ACCEPTED])
def test_accepted(auth: dict[str, Any] | None, expected: dict[str, Any]) -> None:
    declaration = patched({"request.auth": auth})
    assert validate_declaration(declaration)["request"]["auth"] == expected


REJECTED: list[tuple[str, Any, type[ToolError], str]] = [
    ("auth not an object", "bearer", ToolDeclarationError, A),
    ("unknown type", {"type": "oauth2"}, ToolDeclarationError, f"{A}.type"),
    ("none with extra fields", {"type": "none", "token": "x"}, ToolDeclarationError, f"{A}.token"),
    ("bearer without token", {"type": "bearer"}, ToolDeclarationError, f"{A}.token"),
    ("bearer empty token", {"type": "bearer", "token": ""}, ToolDeclarationError, f"{A}.token"),
    ("bearer with input", {"type": "bearer", "token": "{{input.note}}"}, ToolSecurityError, f"{A}.token"),
    (
        "bearer with context",
        {"type": "bearer", "token": "{{context.customer_id}}"},
        ToolDeclarationError,
        f"{A}.token",
    ),
    (
        "api key with input",
        {"type": "api_key_header", "header": "X-K", "key": "k{{input.note}}"},
        ToolSecurityError,
        f"{A}.key",
    ),
    ("api key without header", {"type": "api_key_header", "key": "k"}, ToolDeclarationError, f"{A}.header"),
    (
        "api key header with a placeholder",
        {"type": "api_key_header", "header": "X-{{binding.params.h}}", "key": "k"},
        ToolDeclarationError,
        f"{A}.header",
    ),
    (
        "api key header with a space",
        {"type": "api_key_header", "header": "X Key", "key": "k"},
        ToolDeclarationError,
        f"{A}.header",
    ),
    (
        "api key header Host",
        {"type": "api_key_header", "header": "Host", "key": "k"},
        ToolDeclarationError,
        f"{A}.header",
    ),
    ("basic without password", {"type": "basic", "username": "u"}, ToolDeclarationError, f"{A}.password"),
    (
        "basic password with input",
        {"type": "basic", "username": "u", "password": "{{input.note}}"},
        ToolSecurityError,
        f"{A}.password",
    ),
    (
        "basic username with input",
        {"type": "basic", "username": "{{input.note}}", "password": "p"},
        ToolSecurityError,
        f"{A}.username",
    ),
    ("jwt unknown field", jwt(scope="x"), ToolDeclarationError, f"{A}.scope"),
    ("jwt without token_url", jwt(token_url=None), ToolDeclarationError, f"{A}.token_url"),
    (
        "jwt without token_response_path",
        jwt(token_response_path=None),
        ToolDeclarationError,
        f"{A}.token_response_path",
    ),
    ("jwt without expires_in_sec", jwt(expires_in_sec=None), ToolDeclarationError, f"{A}.expires_in_sec"),
    (
        "jwt token_url with input",
        jwt(token_url="{{binding.base_url}}/t/{{input.note}}"),
        ToolSecurityError,
        f"{A}.token_url",
    ),
    (
        "jwt token_url host from input",
        jwt(token_url="https://{{input.note}}/token"),
        ToolSecurityError,
        f"{A}.token_url",
    ),
    (
        "jwt token_url with context",
        jwt(token_url="{{binding.base_url}}/t/{{context.customer_id}}"),
        ToolDeclarationError,
        f"{A}.token_url",
    ),
    (
        "jwt token_url with a secret",
        jwt(token_url="{{binding.base_url}}/t/{{binding.secret.s}}"),
        ToolSecurityError,
        f"{A}.token_url",
    ),
    ("jwt token_url ftp", jwt(token_url="ftp://auth.example.com/t"), ToolDeclarationError, f"{A}.token_url"),
    ("jwt token_url relative", jwt(token_url="/oauth/token"), ToolDeclarationError, f"{A}.token_url"),
    (
        "jwt token_url with credentials",
        jwt(token_url="https://u:p@auth.example.com/t"),
        ToolDeclarationError,
        f"{A}.token_url",
    ),
    (
        "jwt token_url extends the base host",
        jwt(token_url="{{binding.base_url}}.evil.com/t"),
        ToolDeclarationError,
        f"{A}.token_url",
    ),
    (
        "jwt token_url starting with context",
        jwt(token_url="{{context.customer_id}}/t"),
        ToolDeclarationError,
        f"{A}.token_url",
    ),
    ("jwt token_method PUT", jwt(token_method="PUT"), ToolDeclarationError, f"{A}.token_method"),
    ("jwt token_body with GET", jwt(token_method="GET"), ToolDeclarationError, f"{A}.token_body"),
    ("jwt token_body not an object", jwt(token_body="a=b"), ToolDeclarationError, f"{A}.token_body"),
    (
        "jwt token_body with input",
        jwt(token_body={"scope": "{{input.note}}"}),
        ToolSecurityError,
        f"{A}.token_body.scope",
    ),
    (
        "jwt token_body with context",
        jwt(token_body={"sub": "{{context.customer_id}}"}),
        ToolDeclarationError,
        f"{A}.token_body.sub",
    ),
    ("jwt token_auth is jwt", jwt(token_auth=jwt()), ToolDeclarationError, f"{A}.token_auth.type"),
    (
        "jwt token_auth unknown type",
        jwt(token_auth={"type": "digest"}),
        ToolDeclarationError,
        f"{A}.token_auth.type",
    ),
    (
        "jwt token_auth bearer with input",
        jwt(token_auth={"type": "bearer", "token": "{{input.note}}"}),
        ToolSecurityError,
        f"{A}.token_auth.token",
    ),
    (
        "jwt token_auth api key with input",
        jwt(token_auth={"type": "api_key_header", "header": "X-K", "key": "{{input.note}}"}),
        ToolSecurityError,
        f"{A}.token_auth.key",
    ),
    (
        "jwt token_auth basic password with input",
        jwt(token_auth={"type": "basic", "username": "u", "password": "{{input.note}}"}),
        ToolSecurityError,
        f"{A}.token_auth.password",
    ),
    (
        "jwt token_response_path with []",
        jwt(token_response_path="data[0].token"),
        ToolDeclarationError,
        f"{A}.token_response_path",
    ),
    (
        "jwt token_response_path with *",
        jwt(token_response_path="data.*"),
        ToolDeclarationError,
        f"{A}.token_response_path",
    ),
    (
        "jwt token_response_path expression",
        jwt(token_response_path="$.token"),
        ToolDeclarationError,
        f"{A}.token_response_path",
    ),
    (
        "jwt token_response_path empty segment",
        jwt(token_response_path="data..token"),
        ToolDeclarationError,
        f"{A}.token_response_path",
    ),
    ("jwt expires_in_sec 59", jwt(expires_in_sec=59), ToolDeclarationError, f"{A}.expires_in_sec"),
    ("jwt expires_in_sec 86401", jwt(expires_in_sec=86401), ToolDeclarationError, f"{A}.expires_in_sec"),
]


@pytest.mark.parametrize(
    ("auth", "error", "field"), [(a, e, f) for _, a, e, f in REJECTED], ids=[r[0] for r in REJECTED]
)
def test_rejected(auth: Any, error: type[ToolError], field: str) -> None:
    with pytest.raises(error) as caught:
        validate_declaration(patched({"request.auth": auth}))
    assert type(caught.value) is error
    assert caught.value.details["field"] == field


BINDING = BindingNamespace(
    base_url="https://api.example.com/v1/",
    params={"user": "clinic", "client_id": "cid-1", "auth_url": "https://auth.example.com/token"},
    secrets={"t": "tok-123", "k": "key-456", "p": "pa:ss", "client_secret": "cs-789"},
)
INPUT = {"patient_id": "p1", "date": "2024-05-01"}


def rendered(auth: dict[str, Any]) -> Any:
    return render_request(
        patched({"request.auth": auth}), input=INPUT, binding=BINDING, context=ContextNamespace()
    )


@pytest.mark.parametrize(
    ("auth", "headers"),
    [
        ({"type": "none"}, {}),
        ({"type": "bearer", "token": "{{binding.secret.t}}"}, {"Authorization": "Bearer tok-123"}),
        (
            {"type": "api_key_header", "header": "X-Api-Key", "key": "{{binding.secret.k}}"},
            {"X-Api-Key": "key-456"},
        ),
        (
            {"type": "basic", "username": "{{binding.params.user}}", "password": "{{binding.secret.p}}"},
            {"Authorization": "Basic " + base64.b64encode(b"clinic:pa:ss").decode()},
        ),
    ],
    ids=["none", "bearer", "api_key_header", "basic"],
)
def test_single_step_headers(auth: dict[str, Any], headers: dict[str, str]) -> None:
    request = rendered(auth)
    assert request.headers == headers
    assert request.token_request is None


def test_jwt_renders_the_token_request() -> None:
    request = rendered(
        jwt(token_auth={"type": "api_key_header", "header": "X-K", "key": "{{binding.secret.k}}"})
    )
    token = request.token_request
    assert request.headers == {}
    assert token is not None
    assert (token.method, token.url) == ("POST", "https://api.example.com/v1/oauth/token")
    assert token.body == {"grant_type": "client_credentials", "client_id": "cid-1", "client_secret": "cs-789"}
    assert token.headers == {"X-K": "key-456"}
    assert token.response_path == ("access_token",)
    assert token.expires_in_sec == 3600
    assert request.with_bearer_token("jwt-abc").headers == {"Authorization": "Bearer jwt-abc"}


def test_jwt_token_url_from_params() -> None:
    token = rendered(
        jwt(token_url="{{binding.params.auth_url}}", token_method="GET", token_body=None)
    ).token_request
    assert token is not None
    assert (token.method, token.url, token.body, token.headers) == (
        "GET",
        "https://auth.example.com/token",
        None,
        {},
    )


def test_missing_secret_is_a_declaration_error() -> None:
    with pytest.raises(ToolDeclarationError) as caught:
        rendered({"type": "bearer", "token": "{{binding.secret.absent}}"})
    assert caught.value.details["field"] == "binding.secret.absent"


def test_secret_with_a_newline_cannot_forge_headers() -> None:
    binding = BindingNamespace(base_url="https://api.example.com", secrets={"t": "x\r\nX-Evil: 1"})
    with pytest.raises(ToolDeclarationError) as caught:
        render_request(
            patched({"request.auth": {"type": "bearer", "token": "{{binding.secret.t}}"}}),
            input=INPUT,
            binding=binding,
            context=ContextNamespace(),
        )
    assert caught.value.details["field"] == f"{A}.token"


def test_secrets_are_listed_for_redaction_and_hidden_from_repr() -> None:
    request = rendered({"type": "bearer", "token": "{{binding.secret.t}}"})
    assert request.secret_values == frozenset({"tok-123", "key-456", "pa:ss", "cs-789"})
    assert "tok-123" not in repr(request)
    assert "tok-123" not in repr(BINDING)
