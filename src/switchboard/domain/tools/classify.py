"""Tool call classification: ok, negocio, semantic or infra, with the model's hint kept apart from the
internal error text that goes to AgentRun.errorMessage.

Order of the rules for an HTTP answer:

1. 401, 403, 429 and every 5xx are infra, whatever the declaration or the body says.
2. A JSON object body whose ``status_code`` equals a key of ``errors.semantic`` is semantic
   (this wins over 2xx and over the declared lists: it is the most specific thing the tenant said).
3. A status in ``errors.negocio`` is negocio, with its declared hint or a generic one.
4. A status in ``errors.infra`` is infra.
5. Any other 2xx is ok; any other 4xx is negocio with a generic hint; anything else (1xx, 3xx) is infra.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from switchboard.domain.tools.errors import ToolConfigurationError, ToolInputError
from switchboard.domain.tools.errors_block import declared_statuses, is_always_infra

CONFIGURATION_PROBLEM_HINT = (
    "The tool has a configuration problem and cannot be used right now. "
    "Do not retry it; a person from the team will follow up."
)
INFRA_HINT = "The tool is unavailable right now. Do not retry it; a person from the team will follow up."
_ERROR_TEXT_LIMIT = 500


class ToolCallClass(StrEnum):
    """The four outcomes of a tool call."""

    OK = "ok"
    NEGOCIO = "negocio"
    SEMANTIC = "semantic"
    INFRA = "infra"


@dataclass(frozen=True)
class Classification:
    """The outcome of one tool call: ``hint`` is for the model, ``error`` for AgentRun.errorMessage."""

    call_class: ToolCallClass
    hint: str | None = None
    error: str | None = None
    status_code: int | None = None
    error_code: str | None = None

    @property
    def escalates(self) -> bool:
        """Infra stops the loop and hands the conversation to a human."""
        return self.call_class is ToolCallClass.INFRA


def classify(
    status_code: int, body: Any, errors_block: dict[str, Any] | None, *, redact: Collection[str] = ()
) -> Classification:
    """Classify an HTTP answer of a tool against its declaration's ``errors`` block.

    ``redact`` lists values (the binding's secrets) blanked out of the internal error text.
    """
    block = errors_block or {}
    summary = redact_text(f"HTTP {status_code}{_body_excerpt(body)}", redact)
    if is_always_infra(status_code):
        return Classification(ToolCallClass.INFRA, INFRA_HINT, f"{summary} (always infra)", status_code)
    semantic = _semantic_hint(body, block.get("semantic") or {})
    if semantic is not None:
        key, hint = semantic
        return Classification(
            ToolCallClass.SEMANTIC, hint, f"{summary} (semantic status_code {key})", status_code
        )
    negocio = declared_statuses(block.get("negocio"))
    if status_code in negocio:
        hint = negocio[status_code] or _generic_business_hint(status_code)
        return Classification(ToolCallClass.NEGOCIO, hint, f"{summary} (declared negocio)", status_code)
    if status_code in declared_statuses(block.get("infra")):
        return Classification(ToolCallClass.INFRA, INFRA_HINT, f"{summary} (declared infra)", status_code)
    if 200 <= status_code <= 299:
        return Classification(ToolCallClass.OK, status_code=status_code)
    if 400 <= status_code <= 499:
        return Classification(
            ToolCallClass.NEGOCIO,
            _generic_business_hint(status_code),
            f"{summary} (undeclared 4xx)",
            status_code,
        )
    return Classification(ToolCallClass.INFRA, INFRA_HINT, f"{summary} (undeclared status)", status_code)


def classify_failure(error: ToolConfigurationError | ToolInputError) -> Classification:
    """Classify a tool error raised before or after the request (declaration, security, input, pick)."""
    text = f"{error.code}: {error.message} (field {error.field})"
    if isinstance(error, ToolInputError):
        hint = f"The arguments were not valid: {error.message}. Correct them and call the tool again."
        return Classification(ToolCallClass.NEGOCIO, hint, text, error_code=error.code)
    return Classification(ToolCallClass.INFRA, CONFIGURATION_PROBLEM_HINT, text, error_code=error.code)


def classify_transport_failure(description: str, *, redact: Collection[str] = ()) -> Classification:
    """Classify a request that got no HTTP answer (timeout, refused connection, blocked egress)."""
    return Classification(
        ToolCallClass.INFRA, INFRA_HINT, redact_text(description, redact)[:_ERROR_TEXT_LIMIT]
    )


def redact_text(text: str, secrets: Collection[str]) -> str:
    """Replace every occurrence of each secret value with ``[redacted]`` (longest first)."""
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        text = text.replace(secret, "[redacted]")
    return text


def _semantic_hint(body: Any, semantic: dict[str, str]) -> tuple[str, str] | None:
    if not isinstance(body, dict) or "status_code" not in body:
        return None
    value = body["status_code"]
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    key = str(value)
    return (key, semantic[key]) if key in semantic else None


def _generic_business_hint(status_code: int) -> str:
    return (
        f"The service rejected the request (HTTP {status_code}). Tell the user it could not be done "
        "or ask for different details; do not say it succeeded."
    )


def _body_excerpt(body: Any) -> str:
    if body is None:
        return ""
    text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False, default=str)
    if len(text) > _ERROR_TEXT_LIMIT:
        text = text[:_ERROR_TEXT_LIMIT] + "..."
    return f": {text}"
