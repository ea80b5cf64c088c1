"""The tool error classes carry a 422, their class name as code and the offending field."""

from __future__ import annotations

import pytest

from switchboard.domain.errors import Unprocessable
from switchboard.domain.tools import (
    ToolConfigurationError,
    ToolDeclarationError,
    ToolInputError,
    ToolResponseExtractError,
    ToolSecurityError,
)


@pytest.mark.parametrize(
    ("cls", "escalates"),
    [
        (ToolSecurityError, True),
        (ToolDeclarationError, True),
        (ToolResponseExtractError, True),
        (ToolInputError, False),
    ],
)
def test_error_shape(cls: type[Unprocessable], escalates: bool) -> None:
    error = cls("bad thing", field="declaration.request.url", extra_detail=1)  # type: ignore[call-arg]
    assert isinstance(error, Unprocessable)
    assert error.status_code == 422
    assert error.code == cls.__name__
    assert error.details == {"field": "declaration.request.url", "extra_detail": 1}
    assert error.message == "bad thing"
    assert isinstance(error, ToolConfigurationError) is escalates
