"""OpenAI Chat Completions through the official ``openai`` SDK."""

from __future__ import annotations

from typing import Any

import openai

from switchboard.activities.llm.base import (
    DEFAULT_CONNECT_TIMEOUT_SECONDS,
    DEFAULT_TIMEOUT_SECONDS,
    parse_tool_arguments,
    read_response,
    stop_reason_for,
)
from switchboard.activities.llm.chat_format import wire_messages, wire_tools
from switchboard.activities.llm.errors import (
    ProviderBadResponse,
    ProviderError,
    ProviderTimeout,
    ProviderUnavailable,
    error_for_status,
)
from switchboard.activities.llm.usage import openai_usage
from switchboard.models.llm import LlmRequest, LlmResponse, LlmToolCall, StopReason

PROVIDER = "openai"

_STOP_REASONS: dict[str, StopReason] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}


def _response(completion: Any) -> LlmResponse:
    if not completion.choices:
        raise ProviderBadResponse("the completion has no choices", provider=PROVIDER)
    choice = completion.choices[0]
    calls: list[LlmToolCall] = []
    for call in choice.message.tool_calls or []:
        function = getattr(call, "function", None)
        if function is None:
            continue
        arguments, invalid = parse_tool_arguments(function.arguments)
        calls.append(
            LlmToolCall(id=call.id, name=function.name, arguments=arguments, invalid_arguments=invalid)
        )
    raw_stop = choice.finish_reason
    usage = completion.usage.model_dump(mode="json", exclude_none=True) if completion.usage else {}
    return LlmResponse(
        provider=PROVIDER,
        model=completion.model,
        text=choice.message.content or None,
        tool_calls=calls,
        stop_reason=stop_reason_for(
            has_tool_calls=bool(calls), mapped=_STOP_REASONS.get(raw_stop or "", "other")
        ),
        provider_stop_reason=raw_stop,
        usage=openai_usage(usage),
    )


def _provider_error(error: openai.OpenAIError) -> ProviderError:
    if isinstance(error, openai.APIStatusError):
        body = error.body if isinstance(error.body, dict) else {}
        return error_for_status(
            error.status_code,
            provider=PROVIDER,
            message=str(body.get("message") or error.message),
            headers=error.response.headers,
            provider_code=error.code or error.type,
        )
    if isinstance(error, openai.APITimeoutError):
        return ProviderTimeout(str(error), provider=PROVIDER)
    if isinstance(error, openai.APIConnectionError):
        return ProviderUnavailable(str(error), provider=PROVIDER)
    return ProviderBadResponse(str(error), provider=PROVIDER)


class OpenAIAdapter:
    """Calls ``POST {base_url}/chat/completions``; the base URL includes ``/v1``."""

    name = PROVIDER

    def __init__(
        self, api_key: str, base_url: str, *, timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    ) -> None:
        self._client = openai.AsyncOpenAI(
            api_key=api_key,
            base_url=base_url,
            # Temporal owns retries; SDK retries would multiply them.
            max_retries=0,
            timeout=openai.Timeout(
                timeout_seconds, connect=min(timeout_seconds, DEFAULT_CONNECT_TIMEOUT_SECONDS)
            ),
        )

    async def complete(self, request: LlmRequest) -> LlmResponse:
        """One Chat Completions call, normalised."""
        kwargs: dict[str, Any] = {
            "model": request.model,
            "messages": wire_messages(request),
            # max_tokens is refused by reasoning models; max_completion_tokens works for all.
            "max_completion_tokens": request.max_tokens,
        }
        if request.tools:
            kwargs["tools"] = wire_tools(request)
        try:
            completion = await self._client.chat.completions.create(**kwargs)
        except openai.OpenAIError as error:
            raise _provider_error(error) from error
        return read_response(_response, completion, provider=PROVIDER)

    async def aclose(self) -> None:
        """Close the SDK's connection pool."""
        await self._client.close()
