"""Mistral chat completions through the official ``mistralai`` SDK (3.x, ``mistralai.client``)."""

from __future__ import annotations

import json
from typing import Any

from mistralai.client import Mistral
from mistralai.client import errors as mistral_errors

from switchboard.activities.llm.base import (
    DEFAULT_TIMEOUT_SECONDS,
    parse_tool_arguments,
    read_response,
    stop_reason_for,
    transport_error,
)
from switchboard.activities.llm.chat_format import wire_messages, wire_tools
from switchboard.activities.llm.errors import (
    ProviderBadResponse,
    ProviderError,
    ProviderUnavailable,
    error_for_status,
)
from switchboard.activities.llm.usage import mistral_usage
from switchboard.models.llm import LlmRequest, LlmResponse, LlmToolCall, StopReason

PROVIDER = "mistral"

_STOP_REASONS: dict[str, StopReason] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "length": "max_tokens",
    "model_length": "max_tokens",
}


def _text(content: Any) -> str | None:
    # Content is a string, or a list of chunks of which only "text" ones are the answer.
    if content is None or isinstance(content, str):
        return content or None
    texts = [getattr(chunk, "text", "") for chunk in content if getattr(chunk, "type", None) == "text"]
    return "".join(texts) or None


def _response(completion: Any) -> LlmResponse:
    if not completion.choices:
        raise ProviderBadResponse("the completion has no choices", provider=PROVIDER)
    choice = completion.choices[0]
    calls: list[LlmToolCall] = []
    for index, call in enumerate(choice.message.tool_calls or []):
        arguments, invalid = parse_tool_arguments(call.function.arguments)
        calls.append(
            LlmToolCall(
                id=call.id or f"call{index}",
                name=call.function.name,
                arguments=arguments,
                invalid_arguments=invalid,
            )
        )
    raw_stop = str(choice.finish_reason) if choice.finish_reason is not None else None
    # cached_tokens is not a declared field of this SDK's UsageInfo; the dump keeps extras.
    usage = completion.usage.model_dump(mode="json") if completion.usage else {}
    return LlmResponse(
        provider=PROVIDER,
        model=completion.model or "",
        text=_text(choice.message.content),
        tool_calls=calls,
        stop_reason=stop_reason_for(
            has_tool_calls=bool(calls), mapped=_STOP_REASONS.get(raw_stop or "", "other")
        ),
        provider_stop_reason=raw_stop,
        usage=mistral_usage(usage),
    )


def _error_message(error: mistral_errors.MistralError) -> tuple[str, str | None]:
    try:
        body = json.loads(error.body)
    except (TypeError, ValueError):
        return error.body or error.message, None
    if not isinstance(body, dict):
        return error.body, None
    code = body.get("code") or body.get("type")
    return str(body.get("message") or body.get("detail") or error.body), None if code is None else str(code)


def _provider_error(error: mistral_errors.MistralError) -> ProviderError:
    if isinstance(error, mistral_errors.ResponseValidationError):
        return ProviderBadResponse(error.message, provider=PROVIDER, status_code=error.status_code)
    message, code = _error_message(error)
    return error_for_status(
        error.status_code, provider=PROVIDER, message=message, headers=error.headers, provider_code=code
    )


class MistralAdapter:
    """Calls ``POST {server_url}/v1/chat/completions``; the server URL carries no ``/v1``."""

    name = PROVIDER

    def __init__(
        self, api_key: str, base_url: str, *, timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    ) -> None:
        # The SDK retries only when given a retry_config; none is given because Temporal owns retries.
        self._client = Mistral(api_key=api_key, server_url=base_url, timeout_ms=int(timeout_seconds * 1000))

    async def complete(self, request: LlmRequest) -> LlmResponse:
        """One chat completion call, normalised."""
        kwargs: dict[str, Any] = {
            "model": request.model,
            "messages": wire_messages(request, name_tool_results=True),
            "max_tokens": request.max_tokens,
        }
        if request.tools:
            kwargs["tools"] = wire_tools(request)
        try:
            completion = await self._client.chat.complete_async(**kwargs)
        except mistral_errors.MistralError as error:
            raise _provider_error(error) from error
        except mistral_errors.NoResponseError as error:
            raise ProviderUnavailable(error.message, provider=PROVIDER) from error
        except Exception as error:
            mapped = transport_error(error, provider=PROVIDER)
            if mapped is None:
                raise
            raise mapped from error
        return read_response(_response, completion, provider=PROVIDER)

    async def aclose(self) -> None:
        """Close the SDK's connection pool."""
        await self._client.__aexit__(None, None, None)
