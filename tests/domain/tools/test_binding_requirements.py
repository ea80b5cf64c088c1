"""What a declaration asks of its binding: warnings for always-infra negocio statuses, the base URL."""

from __future__ import annotations

from typing import Any

import pytest

from switchboard.domain.tools import (
    BindingNamespace,
    ContextNamespace,
    ToolCallClass,
    ToolDeclarationError,
    classify,
    declaration_warnings,
    render_request,
    uses_base_url,
    validate_declaration,
)
from tests.domain.tools.builders import patched

E = "declaration.errors.negocio"


@pytest.mark.parametrize(
    ("negocio", "fields"),
    [
        ([404, 409], []),
        ([401, 404, 429], [f"{E}[0]", f"{E}[2]"]),
        ({"403": "forbidden", "409": "taken", "503": "down"}, [f"{E}.403", f"{E}.503"]),
        ([500, 599], [f"{E}[0]", f"{E}[1]"]),
    ],
)
def test_always_infra_statuses_under_negocio_are_kept_and_warned(negocio: Any, fields: list[str]) -> None:
    normalized = validate_declaration(patched({"errors.negocio": negocio}))
    assert normalized["errors"]["negocio"] == negocio
    warnings = declaration_warnings(normalized)
    assert [w.field for w in warnings] == fields
    assert {w.code for w in warnings} <= {"NEGOCIO_ALWAYS_INFRA"}
    for warning in warnings:
        assert "always infra" in warning.message


@pytest.mark.parametrize("status", [401, 403, 429, 500, 503])
def test_always_infra_statuses_declared_negocio_classify_as_infra(status: int) -> None:
    normalized = validate_declaration(patched({"errors.negocio": {str(status): "a business hint"}}))
    result = classify(status, {"error": "x"}, normalized["errors"])
    assert result.call_class is ToolCallClass.INFRA
    assert result.escalates
    assert result.hint != "a business hint"


def test_a_status_in_both_lists_is_still_refused() -> None:
    with pytest.raises(ToolDeclarationError):
        validate_declaration(patched({"errors.negocio": [429], "errors.infra": [429]}))


JWT_LITERAL = {
    "type": "jwt_from_token_endpoint",
    "token_url": "https://auth.example.com/token",
    "token_response_path": "access_token",
    "expires_in_sec": 3600,
}


@pytest.mark.parametrize(
    ("declaration", "expected"),
    [
        (patched({}), True),
        (validate_declaration(patched({"request.auth": JWT_LITERAL})), True),
        ({"request": {"url": "{{ binding.base_url }}/x"}}, True),
        ({"request": {"url": "https://fixed.example/x", "body": {"cb": "{{binding.base_url}}/hook"}}}, True),
        ({"request": {"url": "https://fixed.example/x", "query": {"a": ["{{binding.params.x}}"]}}}, False),
        ({"request": {"url": "https://fixed.example/x"}, "description": "{{binding.base_url}}"}, False),
        ({}, False),
        ("not a declaration", False),
    ],
)
def test_uses_base_url(declaration: Any, expected: bool) -> None:
    assert uses_base_url(declaration) is expected


def test_a_binding_without_base_url_is_a_clear_declaration_error_at_run_time() -> None:
    with pytest.raises(ToolDeclarationError) as caught:
        render_request(
            patched({}),
            input={"patient_id": "p-1", "date": "2024-05-01"},
            binding=BindingNamespace(base_url="", secrets={"api_token": "t"}),
            context=ContextNamespace(),
        )
    assert caught.value.details["field"] == "binding.base_url"
    assert "no base_url" in caught.value.message
