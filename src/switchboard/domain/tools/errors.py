"""Errors raised by tool declaration checks, interpolation, input validation and pick extraction.

Every error names the offending field in ``details["field"]`` with a dotted path
(``declaration.request.auth.token``, ``input.patient_id``, ``binding.secret.api_key``)
so a tenant can find the mistake without reading our code.
"""

from __future__ import annotations

from typing import Any

from switchboard.domain.errors import Unprocessable


class ToolError(Unprocessable):
    """Base of every tool error: a 422 whose ``code`` is the class name."""

    details: dict[str, Any]

    def __init__(self, message: str, *, field: str, **details: Any) -> None:
        super().__init__(message, code=type(self).__name__, details={"field": field, **details})
        self.field = field


class ToolConfigurationError(ToolError):
    """A failure the model must never see: the run escalates with a generic configuration hint."""


class ToolSecurityError(ToolConfigurationError):
    """Untrusted input in a forbidden place, a secret where it could leak, or an unsafe value."""


class ToolDeclarationError(ToolConfigurationError):
    """A declaration that breaks a rule (shape, range, namespace) or a binding value it needs is missing."""


class ToolResponseExtractError(ToolConfigurationError):
    """The response does not have the shape ``response.pick`` expects."""


class ToolInputError(ToolError):
    """The model's arguments do not satisfy ``input_schema``; the model is told and may call again."""
