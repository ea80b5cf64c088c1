from __future__ import annotations

import copy
from typing import Any

import pytest

from switchboard.domain.errors import ValidationFailed
from switchboard.domain.templates import (
    cloud_template_create_body,
    component_text,
    parse_upstream_template,
    validate_template_definition,
)

POSITIONAL: dict[str, Any] = {
    "name": "order_update",
    "language": "en_US",
    "category": "UTILITY",
    "components": [
        {"type": "HEADER", "format": "IMAGE", "example": {"header_handle": ["https://e.com/box.jpg"]}},
        {
            "type": "BODY",
            "text": "Hi {{1}}, order {{2}} is ready.",
            "example": {"body_text": [["Ana", "860"]]},
        },
        {"type": "FOOTER", "text": "Lucky Shrimp"},
        {"type": "BUTTONS", "buttons": [{"type": "QUICK_REPLY", "text": "Stop"}]},
    ],
}
NAMED: dict[str, Any] = {
    "name": "order_confirmation",
    "language": "en_US",
    "category": "utility",
    "parameter_format": "NAMED",
    "components": [
        {"type": "HEADER", "format": "TEXT", "text": "Order {{order_number}}"},
        {"type": "BODY", "text": "Thank you, {{first_name}}! Your order number is {{order_number}}."},
    ],
    "body_text_named_params": [
        {"param_name": "first_name", "example": "Pablo"},
        {"param_name": "order_number", "example": "860198-230332"},
    ],
    "header_text_named_params": [{"param_name": "order_number", "example": "860198"}],
}


def test_positional_definition_and_cloud_body() -> None:
    definition = validate_template_definition(POSITIONAL)
    assert definition.parameter_format == "POSITIONAL"
    assert cloud_template_create_body(definition) == {
        "name": "order_update",
        "language": "en_US",
        "category": "UTILITY",
        "parameter_format": "positional",
        "components": POSITIONAL["components"],
    }


def test_named_definition_places_examples_inside_components() -> None:
    definition = validate_template_definition(NAMED)
    assert definition.parameter_format == "NAMED"
    assert cloud_template_create_body(definition) == {
        "name": "order_confirmation",
        "language": "en_US",
        "category": "UTILITY",
        "parameter_format": "named",
        "components": [
            {
                "type": "HEADER",
                "format": "TEXT",
                "text": "Order {{order_number}}",
                "example": {
                    "header_text_named_params": [{"param_name": "order_number", "example": "860198"}]
                },
            },
            {
                "type": "BODY",
                "text": "Thank you, {{first_name}}! Your order number is {{order_number}}.",
                "example": {
                    "body_text_named_params": [
                        {"param_name": "first_name", "example": "Pablo"},
                        {"param_name": "order_number", "example": "860198-230332"},
                    ]
                },
            },
        ],
    }


def test_named_examples_may_sit_inside_the_component() -> None:
    body = copy.deepcopy(NAMED)
    body["components"][1]["example"] = {"body_text_named_params": body.pop("body_text_named_params")}
    definition = validate_template_definition(body)
    assert definition.components[1]["example"]["body_text_named_params"][0]["param_name"] == "first_name"


def test_lower_case_types_are_normalized_and_the_input_is_not_mutated() -> None:
    body = copy.deepcopy(POSITIONAL)
    body["components"][2]["type"] = "footer"
    definition = validate_template_definition(body)
    assert definition.components[2]["type"] == "FOOTER"
    assert body["components"][2]["type"] == "footer"


def changed(base: dict[str, Any], path: list[Any], value: Any) -> dict[str, Any]:
    body = copy.deepcopy(base)
    target = body
    for key in path[:-1]:
        target = target[key]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return body


_DELETE = object()

INVALID: list[tuple[str, dict[str, Any], str, str]] = [
    ("body not object", [], "VALIDATION_FAILED", "body"),  # type: ignore[list-item]
    ("no name", changed(POSITIONAL, ["name"], _DELETE), "MISSING_REQUIRED_FIELD", "name"),
    ("name upper", changed(POSITIONAL, ["name"], "Order"), "VALIDATION_FAILED", "name"),
    ("name with dash", changed(POSITIONAL, ["name"], "order-update"), "VALIDATION_FAILED", "name"),
    ("no language", changed(POSITIONAL, ["language"], _DELETE), "MISSING_REQUIRED_FIELD", "language"),
    ("language odd", changed(POSITIONAL, ["language"], "English"), "VALIDATION_FAILED", "language"),
    ("no category", changed(POSITIONAL, ["category"], _DELETE), "MISSING_REQUIRED_FIELD", "category"),
    ("bad category", changed(POSITIONAL, ["category"], "PROMO"), "VALIDATION_FAILED", "category"),
    (
        "bad parameter_format",
        changed(POSITIONAL, ["parameter_format"], "MIXED"),
        "VALIDATION_FAILED",
        "parameter_format",
    ),
    ("no components", changed(POSITIONAL, ["components"], _DELETE), "MISSING_REQUIRED_FIELD", "components"),
    (
        "no body",
        changed(POSITIONAL, ["components"], [{"type": "FOOTER", "text": "x"}]),
        "MISSING_REQUIRED_FIELD",
        "components",
    ),
    (
        "unknown component",
        changed(POSITIONAL, ["components", 2, "type"], "CAROUSEL"),
        "VALIDATION_FAILED",
        "components[2].type",
    ),
    (
        "two bodies",
        changed(POSITIONAL, ["components", 2], {"type": "BODY", "text": "x"}),
        "VALIDATION_FAILED",
        "components[2].type",
    ),
    (
        "header no format",
        changed(POSITIONAL, ["components", 0, "format"], _DELETE),
        "MISSING_REQUIRED_FIELD",
        "components[0].format",
    ),
    (
        "header bad format",
        changed(POSITIONAL, ["components", 0, "format"], "GIFV"),
        "VALIDATION_FAILED",
        "components[0].format",
    ),
    (
        "image header no handle",
        changed(POSITIONAL, ["components", 0, "example"], {}),
        "MISSING_REQUIRED_FIELD",
        "components[0].example.header_handle",
    ),
    (
        "text header no text",
        changed(POSITIONAL, ["components", 0], {"type": "HEADER", "format": "TEXT"}),
        "MISSING_REQUIRED_FIELD",
        "components[0].text",
    ),
    (
        "text header two vars",
        changed(POSITIONAL, ["components", 0], {"type": "HEADER", "format": "TEXT", "text": "{{1}} {{2}}"}),
        "VALIDATION_FAILED",
        "components[0].text",
    ),
    (
        "header too long",
        changed(POSITIONAL, ["components", 0], {"type": "HEADER", "format": "TEXT", "text": "x" * 61}),
        "VALIDATION_FAILED",
        "components[0].text",
    ),
    (
        "body no text",
        changed(POSITIONAL, ["components", 1, "text"], _DELETE),
        "MISSING_REQUIRED_FIELD",
        "components[1].text",
    ),
    (
        "body too long",
        changed(POSITIONAL, ["components", 1, "text"], "x" * 1025),
        "VALIDATION_FAILED",
        "components[1].text",
    ),
    (
        "footer with var",
        changed(POSITIONAL, ["components", 2, "text"], "Hi {{1}}"),
        "VALIDATION_FAILED",
        "components[2].text",
    ),
    (
        "positional gap",
        changed(POSITIONAL, ["components", 1, "text"], "{{1}} and {{3}}"),
        "VALIDATION_FAILED",
        "components[1].text",
    ),
    (
        "positional example count",
        changed(POSITIONAL, ["components", 1, "example"], {"body_text": [["Ana"]]}),
        "VALIDATION_FAILED",
        "components[1].example.body_text",
    ),
    (
        "named var in positional",
        changed(POSITIONAL, ["components", 1, "text"], "Hi {{name}}"),
        "VALIDATION_FAILED",
        "components[1].text",
    ),
    (
        "camelCase var",
        changed(NAMED, ["components", 1, "text"], "Hi {{firstName}}"),
        "VALIDATION_FAILED",
        "components[1].text",
    ),
    (
        "mixed in named",
        changed(NAMED, ["components", 1, "text"], "Hi {{first_name}} {{1}}"),
        "VALIDATION_FAILED",
        "components[1].text",
    ),
    (
        "named params missing",
        changed(NAMED, ["body_text_named_params"], _DELETE),
        "MISSING_REQUIRED_FIELD",
        "components[1].example.body_text_named_params",
    ),
    (
        "named params mismatch",
        changed(NAMED, ["body_text_named_params", 1, "param_name"], "order_id"),
        "VALIDATION_FAILED",
        "body_text_named_params",
    ),
    (
        "named params extra",
        changed(
            NAMED,
            ["body_text_named_params"],
            [*NAMED["body_text_named_params"], {"param_name": "x", "example": "y"}],
        ),
        "VALIDATION_FAILED",
        "body_text_named_params",
    ),
    (
        "named param no example",
        changed(NAMED, ["body_text_named_params", 0, "example"], _DELETE),
        "MISSING_REQUIRED_FIELD",
        "body_text_named_params[0].example",
    ),
    (
        "named params not array",
        changed(NAMED, ["body_text_named_params"], {"first_name": "Pablo"}),
        "VALIDATION_FAILED",
        "body_text_named_params",
    ),
    (
        "header named missing",
        changed(NAMED, ["header_text_named_params"], _DELETE),
        "MISSING_REQUIRED_FIELD",
        "components[0].example.header_text_named_params",
    ),
    (
        "no buttons",
        changed(POSITIONAL, ["components", 3, "buttons"], []),
        "MISSING_REQUIRED_FIELD",
        "components[3].buttons",
    ),
    (
        "bad button type",
        changed(POSITIONAL, ["components", 3, "buttons", 0, "type"], "LINK"),
        "VALIDATION_FAILED",
        "components[3].buttons[0].type",
    ),
    (
        "quick reply no text",
        changed(POSITIONAL, ["components", 3, "buttons", 0, "text"], _DELETE),
        "MISSING_REQUIRED_FIELD",
        "components[3].buttons[0].text",
    ),
    (
        "quick reply too long",
        changed(POSITIONAL, ["components", 3, "buttons", 0, "text"], "x" * 26),
        "VALIDATION_FAILED",
        "components[3].buttons[0].text",
    ),
    (
        "url button no url",
        changed(POSITIONAL, ["components", 3, "buttons", 0], {"type": "URL", "text": "Go"}),
        "MISSING_REQUIRED_FIELD",
        "components[3].buttons[0].url",
    ),
    (
        "phone button no number",
        changed(POSITIONAL, ["components", 3, "buttons", 0], {"type": "PHONE_NUMBER", "text": "Call"}),
        "MISSING_REQUIRED_FIELD",
        "components[3].buttons[0].phone_number",
    ),
    (
        "eleven buttons",
        changed(
            POSITIONAL,
            ["components", 3, "buttons"],
            [{"type": "QUICK_REPLY", "text": str(i)} for i in range(11)],
        ),
        "VALIDATION_FAILED",
        "components[3].buttons",
    ),
]


@pytest.mark.parametrize(("case", "body", "code", "field"), INVALID, ids=[c[0] for c in INVALID])
def test_invalid_definitions(case: str, body: Any, code: str, field: str) -> None:
    with pytest.raises(ValidationFailed) as caught:
        validate_template_definition(body)
    assert caught.value.status_code == 400
    assert caught.value.code == code
    assert caught.value.details is not None and caught.value.details["field"] == field


@pytest.mark.parametrize(
    "button",
    [
        {"type": "REQUEST_CONTACT_INFO"},
        {"type": "url", "text": "Track", "url": "https://e.com/t/{{1}}", "example": ["https://e.com/t/a"]},
        {"type": "PHONE_NUMBER", "text": "Call", "phone_number": "+15550783881"},
        {"type": "COPY_CODE", "text": "Copy", "example": "CODE1"},
    ],
)
def test_button_kinds(button: dict[str, Any]) -> None:
    body = changed(POSITIONAL, ["components", 3, "buttons"], [button])
    definition = validate_template_definition(body)
    assert definition.components[3]["buttons"][0]["type"] == button["type"].upper()


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        (
            {
                "name": "order_confirmation",
                "status": "APPROVED",
                "category": "UTILITY",
                "language": "en_US",
                "parameter_format": "NAMED",
                "components": [{"type": "BODY", "text": "Hi {{first_name}}"}],
                "id": "594425479261596",
            },
            {
                "upstream_id": "594425479261596",
                "name": "order_confirmation",
                "language": "en_US",
                "category": "UTILITY",
                "status": "APPROVED",
                "parameter_format": "NAMED",
                "components": [{"type": "BODY", "text": "Hi {{first_name}}"}],
                "rejected_reason": None,
            },
        ),
        (
            {
                "name": "old",
                "status": "rejected",
                "category": "marketing",
                "language": "es",
                "id": 7,
                "rejected_reason": "SCAM",
            },
            {
                "upstream_id": "7",
                "name": "old",
                "language": "es",
                "category": "MARKETING",
                "status": "REJECTED",
                "parameter_format": "POSITIONAL",
                "components": [],
                "rejected_reason": "SCAM",
            },
        ),
        (
            {
                "name": "p",
                "status": "PAUSED",
                "language": "pt_BR",
                "parameter_format": "positional",
                "components": "bad",
            },
            {
                "upstream_id": None,
                "name": "p",
                "language": "pt_BR",
                "category": None,
                "status": "PAUSED",
                "parameter_format": "POSITIONAL",
                "components": [],
                "rejected_reason": None,
            },
        ),
    ],
)
def test_parse_upstream_template(entry: dict[str, Any], expected: dict[str, Any]) -> None:
    assert parse_upstream_template(entry).model_dump() == expected


def test_component_text() -> None:
    components = NAMED["components"]
    assert component_text(components, "BODY") == NAMED["components"][1]["text"]
    assert component_text(components, "header") == "Order {{order_number}}"
    assert component_text(components, "FOOTER") is None
