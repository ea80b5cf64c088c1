"""The Mistral adapter through the official SDK against a fake chat API."""

from __future__ import annotations

import json

from switchboard.models.llm import LlmRequest, LlmTool, ToolResultMessage, UserMessage
from tests.activities.llm.harness import API_KEY, open_harness
from tests.fakes.scripting import FakeToolCall, TextReply, ToolCallReply

WEATHER = LlmTool(
    name="get_weather",
    description="Current weather of a city",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


async def test_text_answer_takes_cached_tokens_out_of_prompt_tokens() -> None:
    raw_usage = {
        "prompt_tokens": 1500,
        "completion_tokens": 25,
        "total_tokens": 1525,
        "prompt_tokens_details": {"cached_tokens": 1024},
    }
    async with open_harness("mistral") as harness:
        harness.fake.script(TextReply("Bonjour", usage=raw_usage))
        response = await harness.adapter.complete(
            LlmRequest(
                model=harness.model, system="Sois bref.", messages=[UserMessage(text="salut")], max_tokens=50
            )
        )
    sent = harness.fake.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == f"Bearer {API_KEY}"
    assert sent.body["model"] == harness.model
    assert sent.body["max_tokens"] == 50
    assert sent.body["messages"] == [
        {"role": "system", "content": "Sois bref."},
        {"role": "user", "content": "salut"},
    ]
    assert (response.provider, response.text, response.stop_reason) == ("mistral", "Bonjour", "end_turn")
    usage = response.usage
    # cached_tokens is not a declared field of the SDK's UsageInfo; it must survive as an extra.
    assert (usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens, usage.output_tokens) == (
        476,
        1024,
        0,
        25,
    )
    assert usage.raw["prompt_tokens_details"] == {"cached_tokens": 1024}


async def test_tool_call_round_trip_with_object_arguments() -> None:
    async with open_harness("mistral") as harness:
        # Mistral may send arguments as an object rather than JSON text.
        harness.fake.script(
            ToolCallReply(calls=[FakeToolCall("get_weather", {"city": "Lyon"}, id="D681PevKs")]),
            TextReply("Lyon 12°C."),
        )
        request = LlmRequest(model=harness.model, messages=[UserMessage(text="météo?")], tools=[WEATHER])
        first = await harness.adapter.complete(request)

        tools = harness.fake.requests[0].body["tools"]
        assert tools == [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": "Current weather of a city",
                    "parameters": WEATHER.parameters,
                },
            }
        ]
        assert first.stop_reason == "tool_use"
        assert [(call.id, call.name, call.arguments) for call in first.tool_calls] == [
            ("D681PevKs", "get_weather", {"city": "Lyon"})
        ]

        final = await harness.adapter.complete(
            request.model_copy(
                update={
                    "messages": [
                        *request.messages,
                        first.as_assistant_message(),
                        ToolResultMessage(
                            tool_call_id="D681PevKs", tool_name="get_weather", content='{"temp": 12}'
                        ),
                    ]
                }
            )
        )

    messages = harness.fake.requests[1].body["messages"]
    assistant = messages[1]
    assert assistant["role"] == "assistant"
    assert assistant["tool_calls"][0]["id"] == "D681PevKs"
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"city": "Lyon"}
    tool_message = messages[2]
    assert {key: tool_message[key] for key in ("role", "tool_call_id", "name", "content")} == {
        "role": "tool",
        "tool_call_id": "D681PevKs",
        "name": "get_weather",
        "content": '{"temp": 12}',
    }
    assert (final.text, final.stop_reason) == ("Lyon 12°C.", "end_turn")


async def test_string_arguments_are_parsed() -> None:
    async with open_harness("mistral") as harness:
        harness.fake.script(
            ToolCallReply(calls=[FakeToolCall("get_weather", '{"city": "Nice"}', id="abcdefghi")])
        )
        response = await harness.adapter.complete(
            LlmRequest(model=harness.model, messages=[UserMessage(text="x")], tools=[WEATHER])
        )
    assert response.tool_calls[0].arguments == {"city": "Nice"}
    assert response.tool_calls[0].invalid_arguments is None
