"""What crosses the Temporal boundary for one tool call: ``ToolCallInput`` in, ``ToolCallResult`` out.

Cleartext secrets never enter workflow history: the input carries the binding's secrets exactly as they
are stored (each sealed with ``seal(key, value, associated_data=binding_id)``), and the activity opens
them in memory with ``SWITCHBOARD_SECRETS_KEY``. Fetched tokens never leave the activity either.

Workflows may import this module (pydantic only, no I/O) through ``imports_passed_through``.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Literal

from pydantic import BaseModel, Field

CallClass = Literal["ok", "negocio", "semantic", "infra"]
TokenUse = Literal["none", "fetched", "reused", "refetched"]
# A token fetcher's lease lasts the request timeout plus this margin (see token_cache).
LEASE_MARGIN_SECONDS = 5.0


class ToolBinding(BaseModel):
    """The ``{{binding.*}}`` namespace: deployment values of the AgentBinding that runs the tool."""

    binding_id: str
    base_url: str
    params: dict[str, Any] = Field(default_factory=dict)
    sealed_secrets: dict[str, str] = Field(default_factory=dict, repr=False)


class ToolContext(BaseModel):
    """The ``{{context.*}}`` namespace: conversation values the model cannot forge."""

    customer_id: str | None = None
    contact_phone: str | None = None
    conversation_id: str | None = None


class ToolCallInput(BaseModel):
    """One tool call: the current declaration of the tool, the model's arguments, binding and context."""

    tenant_id: str
    tool_slug: str
    declaration: dict[str, Any]
    input: dict[str, Any] = Field(default_factory=dict)
    binding: ToolBinding
    context: ToolContext = Field(default_factory=ToolContext)


class ToolCallResult(BaseModel):
    """The classified outcome. ``data`` (ok) or ``hint`` (otherwise) is for the model; ``error`` is
    internal text for AgentRun.errorMessage (secrets redacted) and must never be shown to the model."""

    call_class: CallClass
    data: Any = None
    hint: str | None = None
    error: str | None = None
    error_code: str | None = None
    status_code: int | None = None
    latency_ms: int = 0
    escalates: bool = False
    token: TokenUse = "none"
    terminates_thread: bool = False

    def for_model(self) -> dict[str, Any]:
        """The JSON the model receives as the tool result."""
        if self.call_class == "ok":
            return {"ok": True, "data": self.data}
        return {"ok": False, "class": self.call_class, "message": self.hint}


def start_to_close_timeout(timeout_ms: int) -> timedelta:
    """An activity timeout that covers the worst case, each step bounded by ``timeout_ms``: a wait for
    another worker's token lease and a fetch of our own, the request, then after a 401 the same again."""
    return timedelta(milliseconds=6 * timeout_ms) + timedelta(seconds=2 * LEASE_MARGIN_SECONDS + 5)
