"""What every provider adapter offers, and the small helpers they share."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol

import httpx
import httpx2

from switchboard.activities.llm.errors import (
    ProviderBadResponse,
    ProviderError,
    ProviderTimeout,
    ProviderUnavailable,
)
from switchboard.models.llm import LlmRequest, LlmResponse, StopReason

DEFAULT_TIMEOUT_SECONDS = 60.0
DEFAULT_CONNECT_TIMEOUT_SECONDS = 5.0


class ProviderAdapter(Protocol):
    """One model provider behind its official SDK."""

    name: str

    async def complete(self, request: LlmRequest) -> LlmResponse:
        """Send one normalised request and return the normalised answer, or raise a ProviderError."""
        ...

    async def aclose(self) -> None:
        """Release the SDK's HTTP connections."""
        ...


def parse_tool_arguments(raw: Any) -> tuple[dict[str, Any], str | None]:
    """Tool-call arguments as a dict, plus the raw text when it was not a JSON object."""
    if raw is None or raw == "":
        return {}, None
    if isinstance(raw, dict):
        return raw, None
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw)
        except ValueError:
            return {}, raw
        if isinstance(parsed, dict):
            return parsed, None
        return {}, raw
    return {}, json.dumps(raw, default=str)


def stop_reason_for(*, has_tool_calls: bool, mapped: StopReason) -> StopReason:
    """Tool calls win over the provider's reason: Gemini, for one, says STOP when it calls a tool."""
    return "tool_use" if has_tool_calls else mapped


def transport_error(error: Exception, *, provider: str) -> ProviderError | None:
    """The typed error for an HTTP transport failure (timeout, refused connection), if it is one."""
    if isinstance(error, httpx2.TimeoutException | httpx.TimeoutException):
        return ProviderTimeout(f"timed out: {error}", provider=provider)
    if isinstance(error, httpx2.TransportError | httpx.TransportError):
        return ProviderUnavailable(f"could not reach the provider: {error}", provider=provider)
    return None


def read_response(parse: Callable[[Any], LlmResponse], payload: Any, *, provider: str) -> LlmResponse:
    """Normalise an SDK response object; a body missing required parts becomes ProviderBadResponse."""
    try:
        return parse(payload)
    except (AttributeError, TypeError, KeyError, ValueError) as error:
        # SDKs build response objects leniently, so a malformed body surfaces here, not in the SDK.
        raise ProviderBadResponse(f"unreadable response: {error}", provider=provider) from error
