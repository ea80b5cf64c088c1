"""Gemini ``generateContent`` through the official ``google-genai`` SDK."""

from __future__ import annotations

import json
import uuid
from functools import partial

from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from switchboard.activities.llm.base import (
    DEFAULT_TIMEOUT_SECONDS,
    read_response,
    stop_reason_for,
    transport_error,
)
from switchboard.activities.llm.errors import ProviderBadResponse, ProviderError, error_for_status
from switchboard.activities.llm.usage import google_usage
from switchboard.models.llm import (
    AssistantMessage,
    LlmRequest,
    LlmResponse,
    LlmToolCall,
    StopReason,
    ToolResultMessage,
    UserMessage,
)

PROVIDER = "google"
API_VERSION = "v1beta"
# Gemini may omit call ids; ours carry this prefix and are never sent back, since
# the API pairs a functionResponse with its functionCall by name and order then.
GENERATED_ID_PREFIX = "gcall_"

_STOP_REASONS: dict[str, StopReason] = {
    "STOP": "end_turn",
    "MAX_TOKENS": "max_tokens",
    "SAFETY": "refusal",
    "RECITATION": "refusal",
    "BLOCKLIST": "refusal",
    "PROHIBITED_CONTENT": "refusal",
    "SPII": "refusal",
    "IMAGE_SAFETY": "refusal",
}


def _wire_id(call_id: str) -> str | None:
    return None if call_id.startswith(GENERATED_ID_PREFIX) else call_id


def _model_content(message: AssistantMessage) -> types.Content | None:
    native = message.provider_native or {}
    if native.get("provider") == PROVIDER and native.get("content"):
        # Replayed verbatim: Gemini 3+ rejects a functionCall part without its thoughtSignature.
        return types.Content.model_validate_json(json.dumps(native["content"]))
    parts: list[types.Part] = []
    if message.text:
        parts.append(types.Part(text=message.text))
    for call in message.tool_calls:
        parts.append(
            types.Part(
                function_call=types.FunctionCall(id=_wire_id(call.id), name=call.name, args=call.arguments)
            )
        )
    return types.Content(role="model", parts=parts) if parts else None


def _tool_result_part(message: ToolResultMessage) -> types.Part:
    # The API documents "output" for results and "error" for failures.
    key = "error" if message.is_error else "output"
    return types.Part(
        function_response=types.FunctionResponse(
            id=_wire_id(message.tool_call_id), name=message.tool_name, response={key: message.content}
        )
    )


def _wire_contents(request: LlmRequest) -> list[types.Content]:
    contents: list[types.Content] = []
    for message in request.messages:
        if isinstance(message, AssistantMessage):
            content = _model_content(message)
            if content is not None:
                contents.append(content)
            continue
        part = (
            types.Part(text=message.text) if isinstance(message, UserMessage) else _tool_result_part(message)
        )
        # All responses to one batch of calls (and any text after them) share one user turn.
        if contents and contents[-1].role == "user":
            contents[-1].parts = [*(contents[-1].parts or []), part]
        else:
            contents.append(types.Content(role="user", parts=[part]))
    return contents


def _config(request: LlmRequest) -> types.GenerateContentConfig:
    config = types.GenerateContentConfig(
        max_output_tokens=request.max_tokens,
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    if request.system:
        config.system_instruction = request.system
    if request.tools:
        config.tools = [
            types.Tool(
                function_declarations=[
                    types.FunctionDeclaration(
                        name=tool.name, description=tool.description, parameters_json_schema=tool.parameters
                    )
                    for tool in request.tools
                ]
            )
        ]
    return config


def _response(response: types.GenerateContentResponse, *, model: str) -> LlmResponse:
    usage_raw = (
        response.usage_metadata.model_dump(mode="json", by_alias=True, exclude_none=True)
        if response.usage_metadata
        else {}
    )
    if not response.candidates:
        raise ProviderBadResponse("the response has no candidates", provider=PROVIDER)
    candidate = response.candidates[0]
    texts: list[str] = []
    calls: list[LlmToolCall] = []
    parts = candidate.content.parts if candidate.content and candidate.content.parts else []
    for part in parts:
        if part.function_call is not None:
            call = part.function_call
            calls.append(
                LlmToolCall(
                    id=call.id or f"{GENERATED_ID_PREFIX}{uuid.uuid4().hex[:24]}",
                    name=call.name or "",
                    arguments=dict(call.args or {}),
                )
            )
        elif part.text and not part.thought:
            texts.append(part.text)
    raw_stop = candidate.finish_reason.value if candidate.finish_reason else None
    native = None
    if candidate.content is not None and parts:
        native = {
            "provider": PROVIDER,
            "content": candidate.content.model_dump(mode="json", exclude_none=True),
        }
    return LlmResponse(
        provider=PROVIDER,
        model=response.model_version or model,
        text="".join(texts) or None,
        tool_calls=calls,
        stop_reason=stop_reason_for(
            has_tool_calls=bool(calls), mapped=_STOP_REASONS.get(raw_stop or "", "other")
        ),
        provider_stop_reason=raw_stop,
        usage=google_usage(usage_raw),
        provider_native=native,
    )


def _provider_error(error: genai_errors.APIError) -> ProviderError:
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    return error_for_status(
        int(error.code or 0),
        provider=PROVIDER,
        message=error.message or str(error),
        headers=headers,
        provider_code=error.status,
    )


class GoogleAdapter:
    """Calls ``POST {base_url}/v1beta/models/{model}:generateContent`` with ``x-goog-api-key``."""

    name = PROVIDER

    def __init__(
        self, api_key: str, base_url: str, *, timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    ) -> None:
        self._client = genai.Client(
            api_key=api_key,
            # Explicit, so GOOGLE_GENAI_USE_VERTEXAI in the environment cannot switch backends.
            vertexai=False,
            http_options=types.HttpOptions(
                base_url=base_url,
                api_version=API_VERSION,
                timeout=int(timeout_seconds * 1000),
                # One attempt: Temporal owns retries.
                retry_options=types.HttpRetryOptions(attempts=1),
            ),
        )

    async def complete(self, request: LlmRequest) -> LlmResponse:
        """One generateContent call, normalised."""
        try:
            response = await self._client.aio.models.generate_content(
                model=request.model, contents=_wire_contents(request), config=_config(request)
            )
        except genai_errors.APIError as error:
            raise _provider_error(error) from error
        except Exception as error:
            mapped = transport_error(error, provider=PROVIDER)
            if mapped is None:
                raise
            raise mapped from error
        return read_response(partial(_response, model=request.model), response, provider=PROVIDER)

    async def aclose(self) -> None:
        """Close the SDK's connection pool."""
        await self._client.aio.aclose()
