"""AgentTool declarations: validation, interpolation, input checks, pick extraction and call classification.

Pure functions only; the executor activity sends what ``render_request`` returns and feeds the answer
to ``classify`` and ``extract``.
"""

from __future__ import annotations

from switchboard.domain.tools.auth import TokenRequest
from switchboard.domain.tools.classify import (
    CONFIGURATION_PROBLEM_HINT,
    Classification,
    ToolCallClass,
    classify,
    classify_failure,
    classify_transport_failure,
    redact_text,
)
from switchboard.domain.tools.declaration import declaration_warnings, uses_base_url, validate_declaration
from switchboard.domain.tools.errors import (
    ToolConfigurationError,
    ToolDeclarationError,
    ToolError,
    ToolInputError,
    ToolResponseExtractError,
    ToolSecurityError,
)
from switchboard.domain.tools.errors_block import DeclarationWarning
from switchboard.domain.tools.inputs import validate_input
from switchboard.domain.tools.interpolate import (
    BindingNamespace,
    ContextNamespace,
    Namespaces,
    render_template,
)
from switchboard.domain.tools.pick import Pick, extract, extract_token, parse_pick
from switchboard.domain.tools.request import RenderedRequest, render_request, render_url
from switchboard.domain.tools.urls import guard_path_segment

__all__ = [
    "CONFIGURATION_PROBLEM_HINT",
    "BindingNamespace",
    "Classification",
    "ContextNamespace",
    "DeclarationWarning",
    "Namespaces",
    "Pick",
    "RenderedRequest",
    "TokenRequest",
    "ToolCallClass",
    "ToolConfigurationError",
    "ToolDeclarationError",
    "ToolError",
    "ToolInputError",
    "ToolResponseExtractError",
    "ToolSecurityError",
    "classify",
    "classify_failure",
    "classify_transport_failure",
    "declaration_warnings",
    "extract",
    "extract_token",
    "guard_path_segment",
    "parse_pick",
    "redact_text",
    "render_request",
    "render_template",
    "render_url",
    "uses_base_url",
    "validate_declaration",
    "validate_input",
]
