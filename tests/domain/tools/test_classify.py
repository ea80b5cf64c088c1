"""Tool call classification: one row per rule of the spec's table and of our documented choices."""

from __future__ import annotations

from typing import Any

import pytest

from switchboard.domain.tools import (
    CONFIGURATION_PROBLEM_HINT,
    Classification,
    ToolCallClass,
    ToolDeclarationError,
    ToolInputError,
    ToolResponseExtractError,
    ToolSecurityError,
    classify,
    classify_failure,
    classify_transport_failure,
)

OK, NEGOCIO, SEMANTIC, INFRA = (
    ToolCallClass.OK,
    ToolCallClass.NEGOCIO,
    ToolCallClass.SEMANTIC,
    ToolCallClass.INFRA,
)

LIST_BLOCK: dict[str, Any] = {
    "negocio": [404, 409],
    "infra": [418],
    "semantic": {"NO_SLOTS": "No free slots", "7": "Code 7"},
}
HINT_BLOCK: dict[str, Any] = {
    "negocio": {"409": "That slot was just taken"},
    "infra": {"410": "gone"},
    "semantic": {},
}

ROWS = [
    # ok
    ("200 ok", 200, {"data": 1}, LIST_BLOCK, OK, None),
    ("201 ok", 201, None, LIST_BLOCK, OK, None),
    ("204 ok", 204, None, {}, OK, None),
    ("2xx with an unmapped status_code", 200, {"status_code": "FINE"}, LIST_BLOCK, OK, None),
    # semantic
    ("2xx body status_code maps", 200, {"status_code": "NO_SLOTS"}, LIST_BLOCK, SEMANTIC, "No free slots"),
    ("numeric status_code matches a string key", 200, {"status_code": 7}, LIST_BLOCK, SEMANTIC, "Code 7"),
    (
        "semantic wins over declared negocio",
        409,
        {"status_code": "NO_SLOTS"},
        LIST_BLOCK,
        SEMANTIC,
        "No free slots",
    ),
    (
        "semantic wins over declared infra",
        418,
        {"status_code": "NO_SLOTS"},
        LIST_BLOCK,
        SEMANTIC,
        "No free slots",
    ),
    (
        "semantic on an undeclared 4xx",
        422,
        {"status_code": "NO_SLOTS"},
        LIST_BLOCK,
        SEMANTIC,
        "No free slots",
    ),
    ("boolean status_code never matches", 200, {"status_code": True}, {"semantic": {"True": "x"}}, OK, None),
    ("status_code in a list body is ignored", 200, [{"status_code": "NO_SLOTS"}], LIST_BLOCK, OK, None),
    # negocio
    ("declared negocio, list form", 404, {"error": "nf"}, LIST_BLOCK, NEGOCIO, None),
    ("declared negocio, hint form", 409, None, HINT_BLOCK, NEGOCIO, "That slot was just taken"),
    ("undeclared 400 is negocio", 400, None, LIST_BLOCK, NEGOCIO, None),
    ("undeclared 422 is negocio", 422, None, {}, NEGOCIO, None),
    ("no errors block", 404, None, None, NEGOCIO, None),
    # infra: always
    ("401 always infra", 401, None, LIST_BLOCK, INFRA, None),
    ("403 always infra", 403, None, LIST_BLOCK, INFRA, None),
    ("429 always infra", 429, None, LIST_BLOCK, INFRA, None),
    ("500 always infra", 500, None, LIST_BLOCK, INFRA, None),
    ("503 always infra", 503, None, LIST_BLOCK, INFRA, None),
    ("599 always infra", 599, None, LIST_BLOCK, INFRA, None),
    ("401 infra even if declared negocio", 401, None, {"negocio": [401]}, INFRA, None),
    ("429 infra even with a semantic body", 429, {"status_code": "NO_SLOTS"}, LIST_BLOCK, INFRA, None),
    ("503 infra even with a semantic body", 503, {"status_code": "NO_SLOTS"}, LIST_BLOCK, INFRA, None),
    # infra: declared and undeclared
    ("declared infra, list form", 418, None, LIST_BLOCK, INFRA, None),
    ("declared infra, hint form", 410, None, HINT_BLOCK, INFRA, None),
    ("undeclared 3xx is infra", 302, None, LIST_BLOCK, INFRA, None),
    ("undeclared 1xx is infra", 101, None, LIST_BLOCK, INFRA, None),
]


@pytest.mark.parametrize(
    ("status", "body", "block", "call_class", "hint"),
    [(s, b, k, c, h) for _, s, b, k, c, h in ROWS],
    ids=[r[0] for r in ROWS],
)
def test_classify(status: int, body: Any, block: Any, call_class: ToolCallClass, hint: str | None) -> None:
    result = classify(status, body, block)
    assert result.call_class is call_class
    assert result.status_code == status
    assert result.escalates is (call_class is INFRA)
    if hint is not None:
        assert result.hint == hint
    if call_class is OK:
        assert (result.hint, result.error) == (None, None)
    else:
        assert result.hint and result.error
        assert result.hint != result.error
        assert f"HTTP {status}" in result.error


def test_generic_business_hint_names_the_status() -> None:
    result = classify(404, {"error": "nf"}, {"negocio": [404]})
    assert result.hint is not None and "404" in result.hint
    assert result.error is not None and '"nf"' in result.error


def test_infra_hint_does_not_leak_the_body() -> None:
    result = classify(500, {"trace": "db password wrong"}, {})
    assert result.hint is not None and "password" not in result.hint
    assert result.error is not None and "db password wrong" in result.error


def test_error_text_is_redacted_and_bounded() -> None:
    result = classify(500, {"echo": "sk-secret-1", "pad": "x" * 2000}, {}, redact=["sk-secret-1"])
    assert result.error is not None
    assert "sk-secret-1" not in result.error and "[redacted]" in result.error
    assert len(result.error) < 700


@pytest.mark.parametrize(
    "error",
    [
        ToolSecurityError("value has /", field="input.patient_id"),
        ToolDeclarationError("timeout_ms out of range", field="declaration.request.timeout_ms"),
        ToolResponseExtractError("expected an array", field="declaration.response.pick"),
    ],
    ids=["security", "declaration", "extract"],
)
def test_configuration_errors_escalate_with_a_generic_hint(error: Any) -> None:
    result = classify_failure(error)
    assert result == Classification(
        INFRA, CONFIGURATION_PROBLEM_HINT, result.error, error_code=type(error).__name__
    )
    assert result.escalates
    assert result.error is not None and error.message in result.error and error.field in result.error
    assert error.message not in CONFIGURATION_PROBLEM_HINT


def test_input_errors_go_back_to_the_model() -> None:
    result = classify_failure(ToolInputError("input.date: 'x' is not a 'date'", field="input.date"))
    assert result.call_class is NEGOCIO
    assert not result.escalates
    assert result.hint is not None and "is not a 'date'" in result.hint
    assert result.error_code == "ToolInputError"


def test_transport_failure_is_infra() -> None:
    result = classify_transport_failure(
        "timed out after 5000 ms calling https://api/x?k=s3cr3t", redact=["s3cr3t"]
    )
    assert result.call_class is INFRA and result.escalates
    assert result.error is not None and "s3cr3t" not in result.error
