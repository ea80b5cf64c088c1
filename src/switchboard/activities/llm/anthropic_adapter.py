"""Anthropic Messages API through the official ``anthropic`` SDK."""

from __future__ import annotations

from typing import Any

import anthropic

from switchboard.activities.llm.base import (
    DEFAULT_CONNECT_TIMEOUT_SECONDS,
    DEFAULT_TIMEOUT_SECONDS,
    read_response,
    stop_reason_for,
)
from switchboard.activities.llm.errors import (
    ProviderBadResponse,
    ProviderError,
    ProviderTimeout,
    ProviderUnavailable,
    error_for_status,
)
from switchboard.activities.llm.usage import anthropic_usage
from switchboard.models.llm import (
    AssistantMessage,
    LlmMessage,
    LlmRequest,
    LlmResponse,
    LlmToolCall,
    StopReason,
    ToolResultMessage,
    UserMessage,
)

PROVIDER = "anthropic"

_STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "stop_sequence": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "model_context_window_exceeded": "max_tokens",
    "refusal": "refusal",
}

# Thinking blocks must go back unchanged with the tool results of the same turn.
_REPLAYED_BLOCK_TYPES = ("thinking", "redacted_thinking")


def _assistant_blocks(message: AssistantMessage) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    native = message.provider_native or {}
    if native.get("provider") == PROVIDER:
        blocks.extend(
            block for block in native.get("blocks", []) if block.get("type") in _REPLAYED_BLOCK_TYPES
        )
    if message.text:
        blocks.append({"type": "text", "text": message.text})
    for call in message.tool_calls:
        blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments})
    return blocks


def _wire_messages(messages: list[LlmMessage]) -> list[dict[str, Any]]:
    wire: list[dict[str, Any]] = []
    for message in messages:
        role = "assistant" if isinstance(message, AssistantMessage) else "user"
        if isinstance(message, UserMessage):
            blocks: list[dict[str, Any]] = [{"type": "text", "text": message.text}]
        elif isinstance(message, ToolResultMessage):
            blocks = [
                {
                    "type": "tool_result",
                    "tool_use_id": message.tool_call_id,
                    "content": message.content,
                    "is_error": message.is_error,
                }
            ]
        else:
            blocks = _assistant_blocks(message)
        if not blocks:
            continue
        # Roles must alternate, and every result of a parallel batch belongs in one user turn.
        if wire and wire[-1]["role"] == role:
            wire[-1]["content"].extend(blocks)
        else:
            wire.append({"role": role, "content": blocks})
    return wire


def _request_kwargs(request: LlmRequest) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "model": request.model,
        "max_tokens": request.max_tokens,
        "messages": _wire_messages(request.messages),
    }
    if request.system:
        kwargs["system"] = request.system
    if request.tools:
        kwargs["tools"] = [
            {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}
            for tool in request.tools
        ]
    return kwargs


def _response(message: Any) -> LlmResponse:
    texts: list[str] = []
    calls: list[LlmToolCall] = []
    replayed: list[dict[str, Any]] = []
    for block in message.content:
        if block.type == "text":
            texts.append(block.text)
        elif block.type == "tool_use":
            arguments = block.input if isinstance(block.input, dict) else {}
            calls.append(LlmToolCall(id=block.id, name=block.name, arguments=arguments))
        elif block.type in _REPLAYED_BLOCK_TYPES:
            replayed.append(block.model_dump(mode="json", exclude_none=True))
    raw_stop = message.stop_reason
    usage = getattr(message, "usage", None)
    return LlmResponse(
        provider=PROVIDER,
        model=message.model,
        text="".join(texts) or None,
        tool_calls=calls,
        stop_reason=stop_reason_for(
            has_tool_calls=bool(calls), mapped=_STOP_REASONS.get(raw_stop or "", "other")
        ),
        provider_stop_reason=raw_stop,
        usage=anthropic_usage(usage.model_dump(mode="json", exclude_none=True) if usage else {}),
        provider_native={"provider": PROVIDER, "blocks": replayed} if replayed else None,
    )


def _provider_error(error: anthropic.AnthropicError) -> ProviderError:
    if isinstance(error, anthropic.APIStatusError):
        return error_for_status(
            error.status_code,
            provider=PROVIDER,
            message=error.api_message or error.message,
            headers=error.response.headers,
            provider_code=error.type,
        )
    if isinstance(error, anthropic.APITimeoutError):
        return ProviderTimeout(str(error), provider=PROVIDER)
    if isinstance(error, anthropic.APIConnectionError):
        return ProviderUnavailable(str(error), provider=PROVIDER)
    return ProviderBadResponse(str(error), provider=PROVIDER)


class AnthropicAdapter:
    """Calls ``POST {base_url}/v1/messages``; the base URL carries no ``/v1``."""

    name = PROVIDER

    def __init__(
        self, api_key: str, base_url: str, *, timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    ) -> None:
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key,
            base_url=base_url,
            # Temporal owns retries; SDK retries would multiply them.
            max_retries=0,
            timeout=anthropic.Timeout(
                timeout_seconds, connect=min(timeout_seconds, DEFAULT_CONNECT_TIMEOUT_SECONDS)
            ),
        )

    async def complete(self, request: LlmRequest) -> LlmResponse:
        """One Messages API call, normalised."""
        try:
            message = await self._client.messages.create(**_request_kwargs(request))
        except anthropic.AnthropicError as error:
            raise _provider_error(error) from error
        return read_response(_response, message, provider=PROVIDER)

    async def aclose(self) -> None:
        """Close the SDK's connection pool."""
        await self._client.close()
