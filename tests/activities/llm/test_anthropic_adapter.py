"""The Anthropic adapter through the official SDK against a fake Messages API."""

from __future__ import annotations

from switchboard.models.llm import (
    AssistantMessage,
    LlmRequest,
    LlmTool,
    LlmToolCall,
    ToolResultMessage,
    UserMessage,
)
from tests.activities.llm.harness import API_KEY, open_harness
from tests.fakes.scripting import FakeToolCall, TextReply, ToolCallReply

WEATHER = LlmTool(
    name="get_weather",
    description="Current weather of a city",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


async def test_text_answer_normalises_cached_usage() -> None:
    raw_usage = {
        "input_tokens": 40,
        "output_tokens": 12,
        "cache_read_input_tokens": 2000,
        "cache_creation_input_tokens": 300,
        "cache_creation": {"ephemeral_5m_input_tokens": 300, "ephemeral_1h_input_tokens": 0},
    }
    async with open_harness("anthropic") as harness:
        harness.fake.script(TextReply("Hola", usage=raw_usage))
        response = await harness.adapter.complete(
            LlmRequest(
                model=harness.model, system="Be brief.", messages=[UserMessage(text="hi")], max_tokens=200
            )
        )
    sent = harness.fake.requests[0]
    assert sent.path == "/v1/messages"
    # The key travels as x-api-key or, in SDK 2.x, as a bearer token.
    assert API_KEY in (
        sent.headers.get("x-api-key"),
        sent.headers.get("authorization", "").removeprefix("Bearer "),
    )
    assert "anthropic-version" in sent.headers
    assert sent.body == {
        "model": harness.model,
        "max_tokens": 200,
        "system": "Be brief.",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    }
    assert (response.provider, response.text, response.stop_reason) == ("anthropic", "Hola", "end_turn")
    # Anthropic reports cache tokens beside input_tokens, so nothing is subtracted.
    usage = response.usage
    assert (usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens, usage.output_tokens) == (
        40,
        2000,
        300,
        12,
    )
    assert usage.raw == raw_usage


async def test_tool_call_round_trip_sends_all_results_in_one_user_turn() -> None:
    async with open_harness("anthropic") as harness:
        harness.fake.script(
            ToolCallReply(
                text="Let me check.",
                calls=[
                    FakeToolCall("get_weather", {"city": "Lima"}, id="toolu_A"),
                    FakeToolCall("get_weather", {"city": "Quito"}, id="toolu_B"),
                ],
            ),
            TextReply("Lima 20°C, Quito unknown."),
        )
        request = LlmRequest(model=harness.model, messages=[UserMessage(text="weather?")], tools=[WEATHER])
        first = await harness.adapter.complete(request)

        assert harness.fake.requests[0].body["tools"] == [
            {
                "name": "get_weather",
                "description": "Current weather of a city",
                "input_schema": WEATHER.parameters,
            }
        ]
        assert first.stop_reason == "tool_use"
        assert first.text == "Let me check."
        assert [(call.id, call.name, call.arguments) for call in first.tool_calls] == [
            ("toolu_A", "get_weather", {"city": "Lima"}),
            ("toolu_B", "get_weather", {"city": "Quito"}),
        ]

        follow_up = request.model_copy(
            update={
                "messages": [
                    *request.messages,
                    first.as_assistant_message(),
                    ToolResultMessage(
                        tool_call_id="toolu_A", tool_name="get_weather", content='{"temp": 20}'
                    ),
                    ToolResultMessage(
                        tool_call_id="toolu_B", tool_name="get_weather", content="timeout", is_error=True
                    ),
                ]
            }
        )
        final = await harness.adapter.complete(follow_up)

    messages = harness.fake.requests[1].body["messages"]
    assert messages[1] == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me check."},
            {"type": "tool_use", "id": "toolu_A", "name": "get_weather", "input": {"city": "Lima"}},
            {"type": "tool_use", "id": "toolu_B", "name": "get_weather", "input": {"city": "Quito"}},
        ],
    }
    assert messages[2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_A", "content": '{"temp": 20}', "is_error": False},
            {"type": "tool_result", "tool_use_id": "toolu_B", "content": "timeout", "is_error": True},
        ],
    }
    assert len(messages) == 3
    assert (final.text, final.stop_reason, final.tool_calls) == ("Lima 20°C, Quito unknown.", "end_turn", [])


async def test_thinking_blocks_are_replayed_before_the_tool_use() -> None:
    thinking = {"type": "thinking", "thinking": "need weather", "signature": "sig-1"}
    assistant = AssistantMessage(
        tool_calls=[LlmToolCall(id="toolu_A", name="get_weather", arguments={"city": "Lima"})],
        provider_native={"provider": "anthropic", "blocks": [thinking]},
    )
    async with open_harness("anthropic") as harness:
        await harness.adapter.complete(
            LlmRequest(
                model=harness.model,
                messages=[
                    UserMessage(text="weather?"),
                    assistant,
                    ToolResultMessage(tool_call_id="toolu_A", tool_name="get_weather", content="20"),
                ],
            )
        )
    content = harness.fake.last_body["messages"][1]["content"]
    assert content[0] == thinking
    assert content[1]["type"] == "tool_use"


async def test_stop_reasons_are_normalised() -> None:
    async with open_harness("anthropic") as harness:
        harness.fake.script(
            TextReply("cut", stop_reason="max_tokens"), TextReply("no", stop_reason="refusal")
        )
        request = LlmRequest(model=harness.model, messages=[UserMessage(text="x")])
        truncated = await harness.adapter.complete(request)
        refused = await harness.adapter.complete(request)
    assert (truncated.stop_reason, truncated.provider_stop_reason) == ("max_tokens", "max_tokens")
    assert refused.stop_reason == "refusal"
