"""Builders for tool calls in tests: declarations, bindings with sealed secrets, a settable clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from switchboard.activities.tools import ToolBinding, ToolCallInput, ToolContext
from switchboard.domain.secrets_box import seal
from switchboard.settings import Settings

BINDING_ID = "agb_test_binding"
TENANT_ID = "ten_test"
SECRETS = {
    "api_token": "s3cr3t-token",
    "api_key": "k3y-value",
    "password": "pa55word",
    "client_secret": "cl13nt",
}


class FakeClock:
    """A settable UTC clock for token expiry."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def declaration(
    *,
    method: str = "GET",
    url: str = "{{binding.base_url}}/patients/{{input.patient_id}}",
    auth: dict[str, Any] | None = None,
    pick: str = "*",
    max_items: int = 10,
    errors: dict[str, Any] | None = None,
    timeout_ms: int = 5000,
    **request_extra: Any,
) -> dict[str, Any]:
    """A valid declaration with one string input, ``patient_id``."""
    request: dict[str, Any] = {"method": method, "url": url, "timeout_ms": timeout_ms, **request_extra}
    if auth is not None:
        request["auth"] = auth
    built: dict[str, Any] = {
        "description": "Looks up a patient.",
        "input_schema": {
            "type": "object",
            "properties": {"patient_id": {"type": "string"}},
            "required": ["patient_id"],
        },
        "request": request,
        "response": {"pick": pick, "max_items": max_items},
    }
    if errors is not None:
        built["errors"] = errors
    return built


def sealed_secrets(settings: Settings, *, binding_id: str = BINDING_ID) -> dict[str, str]:
    """The test secrets as a binding stores them."""
    key = settings.secrets_key_bytes
    return {name: seal(key, value, associated_data=binding_id) for name, value in SECRETS.items()}


def call(
    settings: Settings,
    base_url: str,
    decl: dict[str, Any],
    *,
    input: dict[str, Any] | None = None,
    tool_slug: str = "find_patient",
    tenant_id: str = TENANT_ID,
    params: dict[str, Any] | None = None,
) -> ToolCallInput:
    """A ToolCallInput for ``decl`` against ``base_url``."""
    return ToolCallInput(
        tenant_id=tenant_id,
        tool_slug=tool_slug,
        declaration=decl,
        input=input if input is not None else {"patient_id": "p-1"},
        binding=ToolBinding(
            binding_id=BINDING_ID,
            base_url=base_url,
            params=params or {"client_id": "switchboard"},
            sealed_secrets=sealed_secrets(settings),
        ),
        context=ToolContext(customer_id="cus_1", contact_phone="5491155550000", conversation_id="conv_1"),
    )


TOKEN_TTL = 300
JWT_AUTH: dict[str, Any] = {
    "type": "jwt_from_token_endpoint",
    "token_url": "{{binding.base_url}}/oauth/token",
    "token_body": {
        "grant_type": "client_credentials",
        "client_id": "{{binding.params.client_id}}",
        "client_secret": "{{binding.secret.client_secret}}",
    },
    "token_response_path": "access_token",
    "expires_in_sec": TOKEN_TTL,
}
