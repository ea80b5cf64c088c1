"""The OpenAI adapter through the official SDK against a fake Chat Completions API."""

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
        "prompt_tokens": 2400,
        "completion_tokens": 30,
        "total_tokens": 2430,
        "prompt_tokens_details": {"cached_tokens": 2000, "cache_write_tokens": 300},
        "completion_tokens_details": {"reasoning_tokens": 10},
    }
    async with open_harness("openai") as harness:
        harness.fake.script(TextReply("Hello", usage=raw_usage))
        response = await harness.adapter.complete(
            LlmRequest(
                model=harness.model, system="Be brief.", messages=[UserMessage(text="hi")], max_tokens=99
            )
        )
    sent = harness.fake.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == f"Bearer {API_KEY}"
    assert sent.body == {
        "model": harness.model,
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}],
        "max_completion_tokens": 99,
    }
    assert (response.provider, response.text, response.stop_reason) == ("openai", "Hello", "end_turn")
    usage = response.usage
    # 2400 prompt tokens = 2000 read + 300 written + 100 uncached; reasoning is inside completion tokens.
    assert (usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens, usage.output_tokens) == (
        100,
        2000,
        300,
        30,
    )
    assert usage.raw == raw_usage


async def test_tool_call_round_trip_answers_each_call_id() -> None:
    async with open_harness("openai") as harness:
        harness.fake.script(
            ToolCallReply(
                calls=[
                    FakeToolCall("get_weather", {"city": "Lima"}, id="call_A"),
                    FakeToolCall("get_weather", {"city": "Quito"}, id="call_B"),
                ]
            ),
            TextReply("Lima 20°C."),
        )
        request = LlmRequest(model=harness.model, messages=[UserMessage(text="weather?")], tools=[WEATHER])
        first = await harness.adapter.complete(request)

        assert harness.fake.requests[0].body["tools"] == [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": "Current weather of a city",
                    "parameters": WEATHER.parameters,
                },
            }
        ]
        assert (first.stop_reason, first.provider_stop_reason) == ("tool_use", "tool_calls")
        assert [(call.id, call.arguments) for call in first.tool_calls] == [
            ("call_A", {"city": "Lima"}),
            ("call_B", {"city": "Quito"}),
        ]

        final = await harness.adapter.complete(
            request.model_copy(
                update={
                    "messages": [
                        *request.messages,
                        first.as_assistant_message(),
                        ToolResultMessage(
                            tool_call_id="call_A", tool_name="get_weather", content='{"temp": 20}'
                        ),
                        ToolResultMessage(
                            tool_call_id="call_B", tool_name="get_weather", content="down", is_error=True
                        ),
                    ]
                }
            )
        )

    messages = harness.fake.requests[1].body["messages"]
    assistant = messages[1]
    assert assistant["role"] == "assistant"
    assert [(call["id"], call["function"]["name"]) for call in assistant["tool_calls"]] == [
        ("call_A", "get_weather"),
        ("call_B", "get_weather"),
    ]
    # Chat Completions carries arguments as JSON text.
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"city": "Lima"}
    assert messages[2:] == [
        {"role": "tool", "tool_call_id": "call_A", "content": '{"temp": 20}'},
        {"role": "tool", "tool_call_id": "call_B", "content": "Error: down"},
    ]
    assert (final.text, final.stop_reason) == ("Lima 20°C.", "end_turn")


async def test_arguments_that_are_not_a_json_object_are_flagged() -> None:
    async with open_harness("openai") as harness:
        harness.fake.script(ToolCallReply(calls=[FakeToolCall("get_weather", '{"city": "Li', id="call_A")]))
        response = await harness.adapter.complete(
            LlmRequest(model=harness.model, messages=[UserMessage(text="weather?")], tools=[WEATHER])
        )
    call = response.tool_calls[0]
    assert call.arguments == {}
    assert call.invalid_arguments == '{"city": "Li'


async def test_length_finish_is_max_tokens() -> None:
    async with open_harness("openai") as harness:
        harness.fake.script(TextReply("cut", stop_reason="length"))
        response = await harness.adapter.complete(
            LlmRequest(model=harness.model, messages=[UserMessage(text="x")])
        )
    assert response.stop_reason == "max_tokens"
