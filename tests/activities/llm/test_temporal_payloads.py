"""The normalised request and response cross the Temporal boundary unchanged."""

from __future__ import annotations

import json

from temporalio.contrib.pydantic import pydantic_data_converter

from switchboard.models.llm import (
    AssistantMessage,
    LlmRequest,
    LlmResponse,
    LlmTool,
    LlmToolCall,
    LlmUsage,
    ToolResultMessage,
    UserMessage,
)

CALL = LlmToolCall(id="c1", name="book", arguments={"day": "mon", "slots": [1, 2]})

REQUEST = LlmRequest(
    model="claude-haiku-4-5",
    system="You book appointments.",
    messages=[
        UserMessage(text="book monday"),
        AssistantMessage(
            text=None, tool_calls=[CALL], provider_native={"provider": "google", "content": {"x": 1}}
        ),
        ToolResultMessage(tool_call_id="c1", tool_name="book", content='{"ok": true}', is_error=False),
    ],
    tools=[LlmTool(name="book", description="Book a slot", parameters={"type": "object", "properties": {}})],
    max_tokens=300,
)

RESPONSE = LlmResponse(
    provider="anthropic",
    model="claude-haiku-4-5",
    text="Booked.",
    stop_reason="end_turn",
    provider_stop_reason="end_turn",
    usage=LlmUsage(input_tokens=5, output_tokens=3, cache_read_tokens=100, raw={"input_tokens": 5}),
)


async def test_request_and_response_round_trip_through_the_pydantic_converter() -> None:
    converter = pydantic_data_converter
    payloads = await converter.encode([REQUEST, RESPONSE])
    decoded_request, decoded_response = await converter.decode(payloads, [LlmRequest, LlmResponse])
    assert decoded_request == REQUEST
    assert isinstance(decoded_request.messages[1], AssistantMessage)
    assert decoded_response == RESPONSE
    assert decoded_response.usage.prompt_tokens == 105


def test_the_payloads_are_plain_json() -> None:
    data = json.loads(REQUEST.model_dump_json())
    assert [message["role"] for message in data["messages"]] == ["user", "assistant", "tool"]
    assert LlmRequest.model_validate(data) == REQUEST
