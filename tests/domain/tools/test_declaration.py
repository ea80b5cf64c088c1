"""Every rule of validate_declaration: one row per rule, accepted and rejected."""

from __future__ import annotations

from typing import Any

import pytest

from switchboard.domain.tools import ToolDeclarationError, ToolError, ToolSecurityError, validate_declaration
from tests.domain.tools.builders import DROP, base_declaration, patched

R = "declaration.request"

ACCEPTED: list[tuple[str, dict[str, Any]]] = [
    ("base declaration", {}),
    ("method GET without body", {"request.method": "GET", "request.body": DROP}),
    ("method DELETE without body", {"request.method": "DELETE", "request.body": DROP}),
    ("method PUT with body", {"request.method": "PUT"}),
    ("method PATCH with body", {"request.method": "PATCH"}),
    ("method POST without body", {"request.body": DROP}),
    ("timeout_ms lower bound", {"request.timeout_ms": 100}),
    ("timeout_ms upper bound", {"request.timeout_ms": 30000}),
    ("url is only the base url", {"request.url": "{{binding.base_url}}"}),
    ("url with spaces inside the braces", {"request.url": "{{ binding.base_url }}/x/{{ input.patient_id }}"}),
    ("url with a literal query string", {"request.url": "{{binding.base_url}}/slots?view=compact"}),
    ("url query string right after the base", {"request.url": "{{binding.base_url}}?view=compact"}),
    ("url query string with context", {"request.url": "{{binding.base_url}}/s?c={{context.customer_id}}"}),
    (
        "url path with context.contact_phone",
        {"request.url": "{{binding.base_url}}/c/{{context.contact_phone}}"},
    ),
    ("url path with binding params", {"request.url": "{{binding.base_url}}/{{binding.params.clinic}}/x"}),
    (
        "url path segment mixing text and input",
        {"request.url": "{{binding.base_url}}/p-{{input.patient_id}}"},
    ),
    (
        "query with input, context, params, secret",
        {
            "request.query": {
                "a": "{{input.date}}",
                "b": "{{context.conversation_id}}",
                "c": "{{binding.params.x}}",
                "key": "{{binding.secret.k}}",
                "n": 3,
                "flag": True,
                "none": None,
                "list": ["x", "{{input.note}}"],
            }
        },
    ),
    ("body with nested input", {"request.body": {"a": {"b": ["{{input.note}}", {"c": "{{input.tags}}"}]}}}),
    ("body with a secret", {"request.body": {"key": "{{binding.secret.k}}"}}),
    ("description with input", {"description": "Use {{input.patient_id}} from the chart"}),
    ("description with binding params", {"description": "Clinic {{binding.params.clinic}}"}),
    ("terminates_thread true", {"terminates_thread": True}),
    ("max_items 1", {"response.max_items": 1}),
    ("max_items 1000", {"response.max_items": 1000}),
    ("pick *", {"response.pick": "*"}),
    (
        "errors as hint objects",
        {"errors": {"negocio": {"404": "No such patient"}, "infra": {"409": "Locked"}}},
    ),
    ("errors with int keys", {"errors": {"negocio": {404: "No such patient"}}}),
    ("errors infra may repeat an always-infra status", {"errors": {"infra": [401, 503]}}),
    ("errors negocio may list an always-infra status (warned)", {"errors": {"negocio": [401, 429, 503]}}),
    ("errors 3xx declarable", {"errors": {"infra": [302]}}),
    ("errors empty", {"errors": {}}),
    ("errors null", {"errors": None}),
    (
        "input_schema with local $ref",
        {
            "input_schema": {
                "type": "object",
                "definitions": {"d": {"type": "string"}},
                "properties": {
                    "patient_id": {"$ref": "#/definitions/d"},
                    "date": {"type": "string"},
                    "count": {"type": "integer"},
                },
            }
        },
    ),
]


@pytest.mark.parametrize(("patches",), [(p,) for _, p in ACCEPTED], ids=[name for name, _ in ACCEPTED])
def test_accepted(patches: dict[str, Any]) -> None:
    normalized = validate_declaration(patched(patches))
    assert set(normalized) == {
        "description",
        "input_schema",
        "request",
        "response",
        "errors",
        "terminates_thread",
    }


REJECTED: list[tuple[str, dict[str, Any], type[ToolError], str]] = [
    # top level
    ("unknown top-level key", {"extra": 1}, ToolDeclarationError, "declaration.extra"),
    ("missing description", {"description": DROP}, ToolDeclarationError, "declaration.description"),
    ("missing input_schema", {"input_schema": DROP}, ToolDeclarationError, "declaration.input_schema"),
    ("missing request", {"request": DROP}, ToolDeclarationError, "declaration.request"),
    ("missing response", {"response": DROP}, ToolDeclarationError, "declaration.response"),
    ("empty description", {"description": "  "}, ToolDeclarationError, "declaration.description"),
    ("description not a string", {"description": 3}, ToolDeclarationError, "declaration.description"),
    (
        "description with a secret",
        {"description": "key {{binding.secret.k}}"},
        ToolSecurityError,
        "declaration.description",
    ),
    (
        "terminates_thread not boolean",
        {"terminates_thread": "yes"},
        ToolDeclarationError,
        "declaration.terminates_thread",
    ),
    # input_schema
    ("input_schema not an object", {"input_schema": []}, ToolDeclarationError, "declaration.input_schema"),
    (
        "input_schema type string",
        {"input_schema": {"type": "string"}},
        ToolDeclarationError,
        "declaration.input_schema.type",
    ),
    (
        "input_schema without type",
        {"input_schema": {"properties": {}}},
        ToolDeclarationError,
        "declaration.input_schema.type",
    ),
    (
        "input_schema invalid draft-07",
        {"input_schema": {"type": "object", "properties": {"a": {"type": "objekt"}}}},
        ToolDeclarationError,
        "declaration.input_schema.properties.a.type",
    ),
    (
        "input_schema remote $ref",
        {
            "input_schema": {
                "type": "object",
                "properties": {"patient_id": {"$ref": "https://example.com/s.json"}},
            }
        },
        ToolDeclarationError,
        "declaration.input_schema.properties.patient_id.$ref",
    ),
    # request shape
    ("request not an object", {"request": "GET /"}, ToolDeclarationError, R),
    ("unknown request key", {"request.headers": {}}, ToolDeclarationError, f"{R}.headers"),
    ("missing method", {"request.method": DROP}, ToolDeclarationError, f"{R}.method"),
    ("method HEAD", {"request.method": "HEAD"}, ToolDeclarationError, f"{R}.method"),
    ("method not a string", {"request.method": 1}, ToolDeclarationError, f"{R}.method"),
    ("missing url", {"request.url": DROP}, ToolDeclarationError, f"{R}.url"),
    ("body with GET", {"request.method": "GET"}, ToolDeclarationError, f"{R}.body"),
    ("body with DELETE", {"request.method": "DELETE"}, ToolDeclarationError, f"{R}.body"),
    ("body not an object", {"request.body": ["a"]}, ToolDeclarationError, f"{R}.body"),
    ("query not an object", {"request.query": "a=1"}, ToolDeclarationError, f"{R}.query"),
    ("query value an object", {"request.query": {"a": {"b": 1}}}, ToolDeclarationError, f"{R}.query.a"),
    (
        "query list holding an object",
        {"request.query": {"a": [{"b": 1}]}},
        ToolDeclarationError,
        f"{R}.query.a",
    ),
    ("query with an empty name", {"request.query": {"": "x"}}, ToolDeclarationError, f"{R}.query"),
    # timeout_ms
    ("timeout_ms 99", {"request.timeout_ms": 99}, ToolDeclarationError, f"{R}.timeout_ms"),
    ("timeout_ms 30001", {"request.timeout_ms": 30001}, ToolDeclarationError, f"{R}.timeout_ms"),
    ("timeout_ms string", {"request.timeout_ms": "1000"}, ToolDeclarationError, f"{R}.timeout_ms"),
    ("timeout_ms float", {"request.timeout_ms": 1000.5}, ToolDeclarationError, f"{R}.timeout_ms"),
    ("timeout_ms boolean", {"request.timeout_ms": True}, ToolDeclarationError, f"{R}.timeout_ms"),
    # url: host pinning and query string
    (
        "url not starting with base_url",
        {"request.url": "https://api.example.com/x"},
        ToolDeclarationError,
        f"{R}.url",
    ),
    ("url empty", {"request.url": ""}, ToolDeclarationError, f"{R}.url"),
    (
        "input chooses the host",
        {"request.url": "https://{{input.patient_id}}/x"},
        ToolSecurityError,
        f"{R}.url",
    ),
    ("input is the whole url", {"request.url": "{{input.patient_id}}"}, ToolSecurityError, f"{R}.url"),
    (
        "input chooses the protocol",
        {"request.url": "{{input.patient_id}}://api.example.com/x"},
        ToolSecurityError,
        f"{R}.url",
    ),
    (
        "input right after base_url",
        {"request.url": "{{binding.base_url}}{{input.patient_id}}"},
        ToolSecurityError,
        f"{R}.url",
    ),
    (
        "input as the port",
        {"request.url": "{{binding.base_url}}:{{input.patient_id}}/x"},
        ToolSecurityError,
        f"{R}.url",
    ),
    (
        "text extends the host",
        {"request.url": "{{binding.base_url}}.evil.com/x"},
        ToolDeclarationError,
        f"{R}.url",
    ),
    (
        "input in the url query string",
        {"request.url": "{{binding.base_url}}/x?d={{input.date}}"},
        ToolSecurityError,
        f"{R}.url",
    ),
    (
        "secret in the url path",
        {"request.url": "{{binding.base_url}}/{{binding.secret.k}}"},
        ToolSecurityError,
        f"{R}.url",
    ),
    (
        "secret in the url query string",
        {"request.url": "{{binding.base_url}}/x?k={{binding.secret.k}}"},
        ToolSecurityError,
        f"{R}.url",
    ),
    (
        "base_url twice",
        {"request.url": "{{binding.base_url}}/{{binding.base_url}}"},
        ToolDeclarationError,
        f"{R}.url",
    ),
    ("url with a fragment", {"request.url": "{{binding.base_url}}/x#top"}, ToolDeclarationError, f"{R}.url"),
    ("url with whitespace", {"request.url": "{{binding.base_url}}/a b"}, ToolDeclarationError, f"{R}.url"),
    # placeholder namespaces
    ("unknown namespace", {"request.body": {"a": "{{env.HOME}}"}}, ToolDeclarationError, f"{R}.body.a"),
    ("bare namespace", {"request.body": {"a": "{{input}}"}}, ToolDeclarationError, f"{R}.body.a"),
    (
        "unknown binding member",
        {"request.body": {"a": "{{binding.token}}"}},
        ToolDeclarationError,
        f"{R}.body.a",
    ),
    (
        "binding.secret without a name",
        {"request.body": {"a": "{{binding.secret}}"}},
        ToolDeclarationError,
        f"{R}.body.a",
    ),
    (
        "binding.secret with a dotted name",
        {"request.body": {"a": "{{binding.secret.a.b}}"}},
        ToolDeclarationError,
        f"{R}.body.a",
    ),
    (
        "binding.params without a key",
        {"request.body": {"a": "{{binding.params}}"}},
        ToolDeclarationError,
        f"{R}.body.a",
    ),
    (
        "unknown context key",
        {"request.body": {"a": "{{context.user_id}}"}},
        ToolDeclarationError,
        f"{R}.body.a",
    ),
    (
        "unterminated placeholder",
        {"request.body": {"a": "{{input.note"}},
        ToolDeclarationError,
        f"{R}.body.a",
    ),
    ("stray closing braces", {"request.body": {"a": "x}}"}}, ToolDeclarationError, f"{R}.body.a"),
    (
        "input not declared in input_schema",
        {"request.body": {"a": "{{input.nope}}"}},
        ToolDeclarationError,
        f"{R}.body.a",
    ),
    (
        "undeclared input in the description",
        {"description": "{{input.nope}}"},
        ToolDeclarationError,
        "declaration.description",
    ),
    (
        "undeclared input in the url path",
        {"request.url": "{{binding.base_url}}/{{input.nope}}"},
        ToolDeclarationError,
        f"{R}.url",
    ),
    (
        "input in a body key",
        {"request.body": {"{{input.note}}": 1}},
        ToolSecurityError,
        f"{R}.body.{{{{input.note}}}}",
    ),
    (
        "binding in a body key",
        {"request.body": {"{{binding.params.k}}": 1}},
        ToolDeclarationError,
        f"{R}.body.{{{{binding.params.k}}}}",
    ),
    (
        "input in a query name",
        {"request.query": {"{{input.note}}": "x"}},
        ToolSecurityError,
        f"{R}.query.{{{{input.note}}}}",
    ),
    # response
    ("response not an object", {"response": "data"}, ToolDeclarationError, "declaration.response"),
    ("missing pick", {"response.pick": DROP}, ToolDeclarationError, "declaration.response.pick"),
    ("unparseable pick", {"response.pick": "data..x"}, ToolDeclarationError, "declaration.response.pick"),
    ("unknown response key", {"response.limit": 3}, ToolDeclarationError, "declaration.response.limit"),
    ("max_items 0", {"response.max_items": 0}, ToolDeclarationError, "declaration.response.max_items"),
    (
        "max_items negative",
        {"response.max_items": -1},
        ToolDeclarationError,
        "declaration.response.max_items",
    ),
    (
        "max_items above 1000",
        {"response.max_items": 1001},
        ToolDeclarationError,
        "declaration.response.max_items",
    ),
    ("max_items string", {"response.max_items": "5"}, ToolDeclarationError, "declaration.response.max_items"),
    # errors block
    ("errors not an object", {"errors": [404]}, ToolDeclarationError, "declaration.errors"),
    ("unknown errors key", {"errors.retry": []}, ToolDeclarationError, "declaration.errors.retry"),
    (
        "negocio not list or object",
        {"errors.negocio": 404},
        ToolDeclarationError,
        "declaration.errors.negocio",
    ),
    ("negocio 200", {"errors.negocio": [200]}, ToolDeclarationError, "declaration.errors.negocio[0]"),
    ("negocio 600", {"errors.negocio": [404, 600]}, ToolDeclarationError, "declaration.errors.negocio[1]"),
    ("negocio text", {"errors.negocio": ["abc"]}, ToolDeclarationError, "declaration.errors.negocio[0]"),
    ("negocio boolean", {"errors.negocio": [True]}, ToolDeclarationError, "declaration.errors.negocio[0]"),
    (
        "negocio hint not text",
        {"errors.negocio": {"404": 1}},
        ToolDeclarationError,
        "declaration.errors.negocio.404",
    ),
    (
        "negocio key not a status",
        {"errors.negocio": {"4o4": "x"}},
        ToolDeclarationError,
        "declaration.errors.negocio.4o4",
    ),
    ("infra 100", {"errors.infra": [100]}, ToolDeclarationError, "declaration.errors.infra[0]"),
    ("status in both lists", {"errors.infra": [409]}, ToolDeclarationError, "declaration.errors.infra"),
    (
        "semantic not an object",
        {"errors.semantic": ["NO_SLOTS"]},
        ToolDeclarationError,
        "declaration.errors.semantic",
    ),
    (
        "semantic empty hint",
        {"errors.semantic": {"NO_SLOTS": ""}},
        ToolDeclarationError,
        "declaration.errors.semantic.NO_SLOTS",
    ),
    (
        "semantic empty key",
        {"errors.semantic": {"": "x"}},
        ToolDeclarationError,
        "declaration.errors.semantic",
    ),
]


@pytest.mark.parametrize(
    ("patches", "error", "field"),
    [(p, e, f) for _, p, e, f in REJECTED],
    ids=[row[0] for row in REJECTED],
)
def test_rejected(patches: dict[str, Any], error: type[ToolError], field: str) -> None:
    with pytest.raises(error) as caught:
        validate_declaration(patched(patches))
    assert type(caught.value) is error
    assert caught.value.details["field"] == field
    assert caught.value.code == error.__name__
    assert caught.value.status_code == 422


def test_defaults_are_filled() -> None:
    minimal = patched(
        {
            "request.timeout_ms": DROP,
            "request.auth": DROP,
            "request.query": DROP,
            "response.max_items": DROP,
            "errors": DROP,
            "terminates_thread": DROP,
            "request.method": "post",
        }
    )
    normalized = validate_declaration(minimal)
    assert normalized["request"]["timeout_ms"] == 10000
    assert normalized["request"]["auth"] == {"type": "none"}
    assert normalized["request"]["query"] == {}
    assert normalized["request"]["method"] == "POST"
    assert normalized["response"]["max_items"] == 10
    assert normalized["errors"] == {"negocio": [], "infra": [], "semantic": {}}
    assert normalized["terminates_thread"] is False


def test_validation_is_idempotent_and_does_not_mutate() -> None:
    declaration = base_declaration()
    once = validate_declaration(declaration)
    assert declaration == base_declaration()
    assert validate_declaration(once) == once


def test_declaration_must_be_an_object() -> None:
    with pytest.raises(ToolDeclarationError) as caught:
        validate_declaration(["not", "an", "object"])
    assert caught.value.details["field"] == "declaration"
