"""Interpolation: the path-segment guard, URL assembly, typed body and query values, missing placeholders."""

from __future__ import annotations

from typing import Any

import pytest

from switchboard.domain.tools import (
    BindingNamespace,
    ContextNamespace,
    Namespaces,
    ToolDeclarationError,
    ToolError,
    ToolInputError,
    ToolSecurityError,
    guard_path_segment,
    render_request,
    render_template,
)
from tests.domain.tools.builders import DROP, patched

BINDING = BindingNamespace(
    base_url="https://api.example.com/v2",
    params={"clinic": "centro", "nested": {"zone": "north"}, "limit": 25},
    secrets={"api_token": "tok-1", "k": "key-2"},
)
CONTEXT = ContextNamespace(customer_id="cus_1", contact_phone="+5491155550000", conversation_id="conv 7")
INPUT: dict[str, Any] = {"patient_id": "p-1", "date": "2024-05-01", "count": 3, "tags": ["a", "b"]}


def render(patches: dict[str, Any], *, input: dict[str, Any] | None = None, **binding: Any) -> Any:
    return render_request(
        patched(patches),
        input=INPUT if input is None else input,
        binding=BindingNamespace(
            **{"base_url": BINDING.base_url, "params": BINDING.params, "secrets": BINDING.secrets, **binding}
        ),
        context=CONTEXT,
    )


@pytest.mark.parametrize(
    "value",
    [
        "a/b",
        "a\\b",
        "a?b",
        "a#b",
        "a%2fb",
        "a:b",
        "..",
        "a..b",
        "a\x00b",
        "a\nb",
        "a\tb",
        "a\x7fb",
        "a\x85b",
        "",
        ".",
    ],
    ids=[
        "slash",
        "backslash",
        "question",
        "hash",
        "percent",
        "colon",
        "dotdot",
        "inner-dotdot",
        "nul",
        "newline",
        "tab",
        "del",
        "c1-control",
        "empty",
        "dot",
    ],
)
def test_path_guard_rejects(value: str) -> None:
    with pytest.raises(ToolSecurityError) as caught:
        guard_path_segment(value, field="input.patient_id")
    assert caught.value.details["field"] == "input.patient_id"


@pytest.mark.parametrize("value", ["p-1", "Jose Maria", "+5491155550000", "a.b", "ñandú", "a@b", "1"])
def test_path_guard_accepts(value: str) -> None:
    assert guard_path_segment(value, field="input.x") == value


@pytest.mark.parametrize(
    "bad",
    ["../admin", "a/b", "x?y=1", "x#f", "%2e%2e", "http:", "a\\b", "a\r\nb"],
    ids=["traversal", "slash", "query", "fragment", "encoded", "colon", "backslash", "crlf"],
)
def test_input_in_a_path_segment_is_guarded(bad: str) -> None:
    with pytest.raises(ToolSecurityError) as caught:
        render({}, input={**INPUT, "patient_id": bad})
    assert caught.value.details["field"] == "input.patient_id"


def test_context_in_a_path_segment_is_guarded() -> None:
    declaration = patched({"request.url": "{{binding.base_url}}/c/{{context.customer_id}}"})
    with pytest.raises(ToolSecurityError) as caught:
        render_request(
            declaration, input=INPUT, binding=BINDING, context=ContextNamespace(customer_id="a/../b")
        )
    assert caught.value.details["field"] == "context.customer_id"


URLS = [
    ("base only", "{{binding.base_url}}", "https://api.example.com/v2"),
    (
        "path with input",
        "{{binding.base_url}}/patients/{{input.patient_id}}",
        "https://api.example.com/v2/patients/p-1",
    ),
    (
        "contact phone keeps +",
        "{{binding.base_url}}/c/{{context.contact_phone}}",
        "https://api.example.com/v2/c/+5491155550000",
    ),
    (
        "space is percent-encoded",
        "{{binding.base_url}}/conv/{{context.conversation_id}}",
        "https://api.example.com/v2/conv/conv%207",
    ),
    ("number input becomes text", "{{binding.base_url}}/n/{{input.count}}", "https://api.example.com/v2/n/3"),
    (
        "binding params raw",
        "{{binding.base_url}}/{{binding.params.clinic}}/{{binding.params.nested.zone}}",
        "https://api.example.com/v2/centro/north",
    ),
    ("literal query string", "{{binding.base_url}}/s?view=full", "https://api.example.com/v2/s?view=full"),
    (
        "context in query string is encoded",
        "{{binding.base_url}}/s?c={{context.conversation_id}}",
        "https://api.example.com/v2/s?c=conv%207",
    ),
    ("query right after base", "{{binding.base_url}}?a=1", "https://api.example.com/v2?a=1"),
]


@pytest.mark.parametrize(("template", "url"), [(t, u) for _, t, u in URLS], ids=[r[0] for r in URLS])
def test_url_rendering(template: str, url: str) -> None:
    assert render({"request.url": template}).url == url


@pytest.mark.parametrize(
    ("base_url", "url"),
    [
        ("https://api.example.com/", "https://api.example.com/patients/p-1"),
        ("http://127.0.0.1:8080/root/", "http://127.0.0.1:8080/root/patients/p-1"),
    ],
)
def test_trailing_slash_on_base_url(base_url: str, url: str) -> None:
    assert (
        render({"request.url": "{{binding.base_url}}/patients/{{input.patient_id}}"}, base_url=base_url).url
        == url
    )


@pytest.mark.parametrize(
    "base_url",
    [
        "ftp://api.example.com",
        "api.example.com",
        "https://",
        "https://u:p@api.example.com",
        "https://a.com/?x=1",
        "https://a.com/#f",
    ],
)
def test_bad_base_url_is_a_declaration_error(base_url: str) -> None:
    with pytest.raises(ToolDeclarationError) as caught:
        render({}, base_url=base_url)
    assert caught.value.details["field"] == "binding.base_url"


def test_single_placeholders_keep_their_json_type() -> None:
    request = render(
        {
            "request.body": {
                "count": "{{input.count}}",
                "tags": "{{input.tags}}",
                "limit": "{{binding.params.limit}}",
                "nested": "{{binding.params.nested}}",
                "label": "n={{input.count}}",
                "fixed": 7,
                "list": ["{{input.count}}", "x-{{input.date}}"],
            },
            "request.query": {
                "n": "{{input.count}}",
                "limit": "{{binding.params.limit}}",
                "tags": "{{input.tags}}",
                "flag": True,
                "text": "d {{input.date}}",
            },
        }
    )
    assert request.body == {
        "count": 3,
        "tags": ["a", "b"],
        "limit": 25,
        "nested": {"zone": "north"},
        "label": "n=3",
        "fixed": 7,
        "list": [3, "x-2024-05-01"],
    }
    assert request.query == {"n": 3, "limit": 25, "tags": ["a", "b"], "flag": True, "text": "d 2024-05-01"}


def test_absent_optional_input_drops_the_key_and_never_adds_keys() -> None:
    request = render(
        {
            "request.body": {
                "patient": "{{input.patient_id}}",
                "note": "{{input.note}}",
                "deep": {"n": "{{input.note}}"},
            },
            "request.query": {"note": "{{input.note}}", "nulled": None, "date": "{{input.date}}"},
        },
        input={"patient_id": "p-1", "date": "2024-05-01", "extra": "the model made this up"},
    )
    assert request.body == {"patient": "p-1", "deep": {}}
    assert request.query == {"date": "2024-05-01"}


def test_explicit_null_input_stays_null_in_the_body() -> None:
    request = render(
        {
            "request.body": {"note": "{{input.note}}"},
            "input_schema.properties.note": {"type": ["string", "null"]},
        },
        input={**INPUT, "note": None},
    )
    assert request.body == {"note": None}


MISSING = [
    (
        "input inside a longer string",
        {"request.body": {"t": "note: {{input.note}}"}},
        ToolInputError,
        "input.note",
    ),
    ("input in a list", {"request.body": {"t": ["{{input.note}}"]}}, ToolInputError, "input.note"),
    (
        "input in the url path",
        {"request.url": "{{binding.base_url}}/n/{{input.note}}"},
        ToolInputError,
        "input.note",
    ),
    (
        "binding param",
        {"request.body": {"t": "{{binding.params.absent}}"}},
        ToolDeclarationError,
        "binding.params.absent",
    ),
    (
        "binding secret",
        {"request.query": {"t": "{{binding.secret.absent}}"}},
        ToolDeclarationError,
        "binding.secret.absent",
    ),
    (
        "context",
        {"request.body": {"t": "{{context.customer_id}}"}},
        ToolDeclarationError,
        "context.customer_id",
    ),
]


@pytest.mark.parametrize(
    ("patches", "error", "field"), [(p, e, f) for _, p, e, f in MISSING], ids=[r[0] for r in MISSING]
)
def test_missing_placeholder_values(patches: dict[str, Any], error: type[ToolError], field: str) -> None:
    with pytest.raises(error) as caught:
        render_request(patched(patches), input=INPUT, binding=BINDING, context=ContextNamespace())
    assert caught.value.details["field"] == field


def test_object_input_in_text_is_an_input_error() -> None:
    with pytest.raises(ToolInputError) as caught:
        render({"request.body": {"t": "tags: {{input.tags}}"}})
    assert caught.value.details["field"] == "input.tags"


def test_object_input_in_query_is_an_input_error() -> None:
    declaration = patched(
        {"request.query": {"t": "{{input.meta}}"}, "input_schema.properties.meta": {"type": "object"}}
    )
    with pytest.raises(ToolInputError) as caught:
        render_request(declaration, input={**INPUT, "meta": {"a": 1}}, binding=BINDING, context=CONTEXT)
    assert caught.value.details["field"] == "declaration.request.query.t"


def test_values_are_never_interpolated_twice() -> None:
    request = render(
        {"request.body": {"t": "{{input.patient_id}}", "u": "x {{input.date}}"}},
        input={"patient_id": "{{binding.secret.api_token}}", "date": "{{binding.secret.k}}"},
    )
    assert request.body == {"t": "{{binding.secret.api_token}}", "u": "x {{binding.secret.k}}"}


def test_invalid_input_is_rejected_before_rendering() -> None:
    with pytest.raises(ToolInputError) as caught:
        render({}, input={"date": "2024-05-01"})
    assert caught.value.details["field"] == "input"


def test_runtime_rechecks_the_declaration() -> None:
    with pytest.raises(ToolSecurityError) as caught:
        render({"request.url": "{{binding.base_url}}/x?id={{input.patient_id}}"})
    assert caught.value.details["field"] == "declaration.request.url"


def test_rendered_request_fields() -> None:
    request = render({"request.auth": DROP})
    assert (request.method, request.timeout_ms, request.headers, request.token_request) == (
        "POST",
        5000,
        {},
        None,
    )
    assert request.url == "https://api.example.com/v2/patients/p-1/bookings"
    assert request.query == {"date": "2024-05-01"}
    assert request.body == {"patient": "p-1", "count": 3}


def test_get_request_has_no_body() -> None:
    assert render({"request.method": "GET", "request.body": DROP}).body is None


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("plain", "plain"),
        ("{{input.count}} items", "3 items"),
        ("{{ input.flag }}", "true"),
        ("{{input.ratio}}", "0.5"),
        ("{{binding.params.limit}}/{{context.customer_id}}", "25/cus_1"),
    ],
)
def test_render_template(template: str, expected: str) -> None:
    namespaces = Namespaces(input={"count": 3, "flag": True, "ratio": 0.5}, binding=BINDING, context=CONTEXT)
    assert render_template(template, namespaces) == expected


def test_render_template_rejects_unknown_namespace() -> None:
    namespaces = Namespaces(input={}, binding=BINDING, context=CONTEXT)
    with pytest.raises(ToolDeclarationError):
        render_template("{{env.HOME}}", namespaces, field="x")
