from __future__ import annotations

from typing import Any

import pytest

from switchboard.domain.errors import ValidationFailed
from switchboard.domain.send_payload import (
    check_variable_count,
    ensure_template_sendable,
    parse_send_request,
    render_template_text,
    send_component_params,
    template_variables,
)


def template_send(obj: dict[str, Any]) -> Any:
    body = {"phone_number_id": "1", "to": "14155550123", "type": "template", "template": obj}
    return parse_send_request(body).template


BASE = {"name": "t", "language": {"code": "en"}}


def test_positional_send_is_positional() -> None:
    parsed = template_send(
        {**BASE, "components": [{"type": "body", "parameters": [{"type": "text", "text": "a"}]}]}
    )
    assert parsed.parameter_format == "POSITIONAL"


@pytest.mark.parametrize(
    "obj",
    [
        {**BASE, "body_named_params": {"first_name": "A"}},
        {**BASE, "header_named_param": {"parameter_name": "order", "text": "1"}},
        {
            **BASE,
            "components": [
                {"type": "body", "parameters": [{"type": "text", "parameter_name": "x", "text": "a"}]}
            ],
        },
    ],
)
def test_named_send_is_detected(obj: dict[str, Any]) -> None:
    assert template_send(obj).parameter_format == "NAMED"


def test_header_named_param_with_explicit_name() -> None:
    parsed = template_send({**BASE, "header_named_param": {"parameter_name": "order", "text": "1"}})
    assert parsed.components[0].model_dump(exclude_none=True) == {
        "type": "header",
        "parameters": [{"type": "text", "parameter_name": "order", "text": "1"}],
    }


def test_named_param_object_value_keeps_its_type() -> None:
    parsed = template_send(
        {
            **BASE,
            "body_named_params": {
                "total": {
                    "type": "currency",
                    "currency": {"fallback_value": "$1", "code": "USD", "amount_1000": 1000},
                }
            },
        }
    )
    assert parsed.components[0].parameters[0].model_dump(exclude_none=True) == {
        "type": "currency",
        "parameter_name": "total",
        "currency": {"fallback_value": "$1", "code": "USD", "amount_1000": 1000},
    }


TEMPLATE_INVALID: list[tuple[str, dict[str, Any], str, str]] = [
    (
        "component unknown type",
        {**BASE, "components": [{"type": "footer"}]},
        "VALIDATION_FAILED",
        "template.components[0].type",
    ),
    (
        "components not array",
        {**BASE, "components": {"type": "body"}},
        "VALIDATION_FAILED",
        "template.components",
    ),
    (
        "parameters not array",
        {**BASE, "components": [{"type": "body", "parameters": "a"}]},
        "VALIDATION_FAILED",
        "template.components[0].parameters",
    ),
    (
        "param unknown type",
        {**BASE, "components": [{"type": "body", "parameters": [{"type": "emoji"}]}]},
        "VALIDATION_FAILED",
        "template.components[0].parameters[0].type",
    ),
    (
        "text param without text",
        {**BASE, "components": [{"type": "body", "parameters": [{"type": "text"}]}]},
        "MISSING_REQUIRED_FIELD",
        "template.components[0].parameters[0].text",
    ),
    (
        "currency without fallback",
        {
            **BASE,
            "components": [
                {"type": "body", "parameters": [{"type": "currency", "currency": {"code": "USD"}}]}
            ],
        },
        "MISSING_REQUIRED_FIELD",
        "template.components[0].parameters[0].currency.fallback_value",
    ),
    (
        "image param without object",
        {**BASE, "components": [{"type": "header", "parameters": [{"type": "image"}]}]},
        "MISSING_REQUIRED_FIELD",
        "template.components[0].parameters[0].image",
    ),
    (
        "image param both",
        {
            **BASE,
            "components": [
                {
                    "type": "header",
                    "parameters": [{"type": "image", "image": {"id": "1", "link": "https://e"}}],
                }
            ],
        },
        "VALIDATION_FAILED",
        "template.components[0].parameters[0].image",
    ),
    (
        "button without sub_type",
        {**BASE, "components": [{"type": "button", "index": "0"}]},
        "MISSING_REQUIRED_FIELD",
        "template.components[0].sub_type",
    ),
    (
        "button bad sub_type",
        {**BASE, "components": [{"type": "button", "sub_type": "link", "index": "0"}]},
        "VALIDATION_FAILED",
        "template.components[0].sub_type",
    ),
    (
        "button without index",
        {**BASE, "components": [{"type": "button", "sub_type": "quick_reply"}]},
        "MISSING_REQUIRED_FIELD",
        "template.components[0].index",
    ),
    (
        "button index out of range",
        {**BASE, "components": [{"type": "button", "sub_type": "url", "index": "10"}]},
        "VALIDATION_FAILED",
        "template.components[0].index",
    ),
    (
        "named and body component",
        {**BASE, "body_named_params": {"a": "1"}, "components": [{"type": "body", "parameters": []}]},
        "VALIDATION_FAILED",
        "template.body_named_params",
    ),
    (
        "named key not snake",
        {**BASE, "body_named_params": {"FirstName": "A"}},
        "VALIDATION_FAILED",
        "template.body_named_params.FirstName",
    ),
    (
        "named value empty",
        {**BASE, "body_named_params": {"a": ""}},
        "VALIDATION_FAILED",
        "template.body_named_params.a",
    ),
    (
        "named empty map",
        {**BASE, "body_named_params": {}},
        "MISSING_REQUIRED_FIELD",
        "template.body_named_params",
    ),
    (
        "header two names",
        {**BASE, "header_named_param": {"a": "1", "b": "2"}},
        "VALIDATION_FAILED",
        "template.header_named_param",
    ),
    (
        "mixed named and positional",
        {
            **BASE,
            "components": [
                {
                    "type": "body",
                    "parameters": [
                        {"type": "text", "parameter_name": "a", "text": "1"},
                        {"type": "text", "text": "2"},
                    ],
                }
            ],
        },
        "VALIDATION_FAILED",
        "template.components",
    ),
    (
        "parameter_name not snake",
        {
            **BASE,
            "components": [
                {"type": "body", "parameters": [{"type": "text", "parameter_name": "A b", "text": "1"}]}
            ],
        },
        "VALIDATION_FAILED",
        "template.components[0].parameters[0].parameter_name",
    ),
]


@pytest.mark.parametrize(
    ("case", "obj", "code", "field"), TEMPLATE_INVALID, ids=[c[0] for c in TEMPLATE_INVALID]
)
def test_template_send_rules(case: str, obj: dict[str, Any], code: str, field: str) -> None:
    with pytest.raises(ValidationFailed) as caught:
        template_send(obj)
    assert caught.value.code == code
    assert caught.value.details is not None and caught.value.details["field"] == field


STORED_POSITIONAL: list[dict[str, Any]] = [
    {"type": "HEADER", "format": "TEXT", "text": "Order {{1}}"},
    {"type": "BODY", "text": "Hi {{1}}, order {{2}} ships {{3}}. Thanks {{1}}!"},
    {"type": "FOOTER", "text": "Shop"},
    {
        "type": "BUTTONS",
        "buttons": [
            {"type": "QUICK_REPLY", "text": "Stop"},
            {"type": "URL", "text": "Track", "url": "https://e.com/t/{{1}}"},
        ],
    },
]
STORED_NAMED: list[dict[str, Any]] = [
    {"type": "HEADER", "format": "IMAGE", "example": {"header_handle": ["https://e.com/a.jpg"]}},
    {"type": "BODY", "text": "Thank you, {{first_name}}! Your order number is {{order_number}}."},
]


def text_params(*values: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": v} for v in values]


POSITIONAL_OK = [
    {"type": "header", "parameters": text_params("860")},
    {"type": "body", "parameters": text_params("Ana", "860", "today")},
    {"type": "button", "sub_type": "url", "index": "1", "parameters": text_params("abc")},
]


def test_variable_count_matches_positional() -> None:
    assert (
        check_variable_count(STORED_POSITIONAL, template_send({**BASE, "components": POSITIONAL_OK})) is None
    )
    assert check_variable_count(STORED_POSITIONAL, POSITIONAL_OK) is None


def test_variable_count_matches_named_in_any_order() -> None:
    send = template_send(
        {
            **BASE,
            "components": [{"type": "header", "parameters": [{"type": "image", "image": {"id": "9"}}]}],
            "body_named_params": {"order_number": "1", "first_name": "Ana"},
        }
    )
    assert check_variable_count(STORED_NAMED, send, parameter_format="NAMED") is None


MISMATCHES: list[tuple[str, list[dict[str, Any]], list[dict[str, Any]], str, dict[str, Any]]] = [
    (
        "body one short",
        STORED_POSITIONAL,
        [POSITIONAL_OK[0], {"type": "body", "parameters": text_params("a", "b")}, POSITIONAL_OK[2]],
        "POSITIONAL",
        {"component": "body", "expected": 3, "received": 2},
    ),
    (
        "body one extra",
        STORED_POSITIONAL,
        [POSITIONAL_OK[0], {"type": "body", "parameters": text_params("a", "b", "c", "d")}, POSITIONAL_OK[2]],
        "POSITIONAL",
        {"component": "body", "expected": 3, "received": 4},
    ),
    (
        "header missing",
        STORED_POSITIONAL,
        POSITIONAL_OK[1:],
        "POSITIONAL",
        {"component": "header", "expected": 1, "received": 0},
    ),
    (
        "url button missing",
        STORED_POSITIONAL,
        POSITIONAL_OK[:2],
        "POSITIONAL",
        {"component": "button[1]", "expected": 1, "received": 0},
    ),
    (
        "media header missing",
        STORED_NAMED,
        [
            {
                "type": "body",
                "parameters": [
                    {"type": "text", "parameter_name": "first_name", "text": "a"},
                    {"type": "text", "parameter_name": "order_number", "text": "b"},
                ],
            }
        ],
        "NAMED",
        {"component": "header", "expected": 1, "received": 0},
    ),
    (
        "header not in template",
        [{"type": "BODY", "text": "hi"}],
        [{"type": "header", "parameters": text_params("x")}],
        "POSITIONAL",
        {"component": "header", "expected": 0, "received": 1},
    ),
    (
        "named sent to positional",
        [{"type": "BODY", "text": "hi {{1}}"}],
        [{"type": "body", "parameters": [{"type": "text", "parameter_name": "a", "text": "x"}]}],
        "POSITIONAL",
        {"component": "body", "expected": 1, "received": 1},
    ),
    (
        "positional sent to named",
        [{"type": "BODY", "text": "hi {{name}}"}],
        [{"type": "body", "parameters": text_params("x")}],
        "NAMED",
        {"component": "body", "expected": 1, "received": 1, "missing": ["name"], "unexpected": [None]},
    ),
    (
        "wrong name",
        [{"type": "BODY", "text": "hi {{name}}"}],
        [{"type": "body", "parameters": [{"type": "text", "parameter_name": "nome", "text": "x"}]}],
        "NAMED",
        {"component": "body", "expected": 1, "received": 1, "missing": ["name"], "unexpected": ["nome"]},
    ),
]


@pytest.mark.parametrize(
    ("case", "stored", "sent", "fmt", "details"), MISMATCHES, ids=[m[0] for m in MISMATCHES]
)
def test_variable_count_mismatch(
    case: str, stored: Any, sent: Any, fmt: str, details: dict[str, Any]
) -> None:
    with pytest.raises(ValidationFailed) as caught:
        check_variable_count(stored, sent, parameter_format=fmt)
    assert caught.value.code == "TEMPLATE_VARIABLE_COUNT_MISMATCH"
    assert caught.value.status_code == 400
    assert caught.value.details == details


@pytest.mark.parametrize(
    ("text", "params", "rendered"),
    [
        ("Hi {{1}}, order {{2}}", ["Ana", "860"], "Hi Ana, order 860"),
        ("Hi {{1}}, bye {{1}}", [{"type": "text", "text": "Ana"}], "Hi Ana, bye Ana"),
        ("Hi {{1}}, order {{2}}", ["Ana"], "Hi Ana, order {{2}}"),
        ("Total {{1}}", [{"type": "currency", "currency": {"fallback_value": "$1.00"}}], "Total $1.00"),
        ("On {{1}}", [{"type": "date_time", "date_time": {"fallback_value": "May 1"}}], "On May 1"),
        ("Hi {{ first_name }}!", {"first_name": "Ana"}, "Hi Ana!"),
        (
            "Hi {{first_name}} {{last}}",
            {"first_name": {"type": "text", "parameter_name": "first_name", "text": "Ana"}},
            "Hi Ana {{last}}",
        ),
        ("No vars", None, "No vars"),
        ("Img {{1}}", [{"type": "image", "image": {"id": "1"}}], "Img {{1}}"),
        ("n={{1}}", [3], "n=3"),
    ],
)
def test_render_template_text(text: str, params: Any, rendered: str) -> None:
    assert render_template_text(text, params) == rendered


def test_render_from_a_parsed_named_send() -> None:
    send = template_send({**BASE, "body_named_params": {"first_name": "Ana", "order_number": "7"}})
    params = send_component_params(send, "body")
    assert render_template_text(STORED_NAMED[1]["text"], params) == "Thank you, Ana! Your order number is 7."


def test_render_from_a_parsed_positional_send() -> None:
    send = template_send({**BASE, "components": POSITIONAL_OK})
    rendered = render_template_text(STORED_POSITIONAL[1]["text"], send_component_params(send, "body"))
    assert rendered == "Hi Ana, order 860 ships today. Thanks Ana!"


def test_template_variables_in_order_distinct() -> None:
    assert template_variables("{{2}} {{1}} {{2}} {{ name }}") == ["2", "1", "name"]


@pytest.mark.parametrize("status", ["APPROVED", "approved"])
def test_approved_template_is_sendable(status: str) -> None:
    assert ensure_template_sendable(status, name="t", language="en") is None


@pytest.mark.parametrize("status", ["PENDING", "REJECTED", "PAUSED", "DISABLED", "IN_APPEAL", None])
def test_non_approved_template_is_refused(status: str | None) -> None:
    with pytest.raises(ValidationFailed) as caught:
        ensure_template_sendable(status, name="order", language="en_US")
    assert caught.value.code == "TEMPLATE_NOT_APPROVED"
    assert caught.value.status_code == 400
    assert caught.value.details == {"template": "order", "language": "en_US", "status": status}
