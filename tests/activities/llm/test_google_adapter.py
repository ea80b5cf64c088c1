"""The Gemini adapter through the official google-genai SDK against a fake generateContent API."""

from __future__ import annotations

from typing import Any

from switchboard.activities.llm.google_adapter import GENERATED_ID_PREFIX
from switchboard.models.llm import LlmRequest, LlmTool, ToolResultMessage, UserMessage
from tests.activities.llm.harness import API_KEY, open_harness
from tests.fakes.scripting import FakeToolCall, TextReply, ToolCallReply

WEATHER = LlmTool(
    name="get_weather",
    description="Current weather of a city",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def _declaration_schema(declaration: dict[str, Any]) -> Any:
    # The SDK has sent both spellings across versions; the API accepts either.
    return declaration.get("parametersJsonSchema", declaration.get("parameters_json_schema"))


async def test_text_answer_takes_cached_content_out_of_the_prompt_count() -> None:
    raw_usage = {
        "promptTokenCount": 3000,
        "cachedContentTokenCount": 2048,
        "candidatesTokenCount": 40,
        "thoughtsTokenCount": 60,
        "totalTokenCount": 3100,
    }
    async with open_harness("google") as harness:
        harness.fake.script(TextReply("Olá", usage=raw_usage))
        response = await harness.adapter.complete(
            LlmRequest(
                model=harness.model, system="Be brief.", messages=[UserMessage(text="oi")], max_tokens=77
            )
        )
    sent = harness.fake.requests[0]
    assert sent.path == f"/v1beta/models/{harness.model}:generateContent"
    assert sent.headers["x-goog-api-key"] == API_KEY
    assert sent.body["contents"] == [{"role": "user", "parts": [{"text": "oi"}]}]
    assert sent.body["systemInstruction"]["parts"] == [{"text": "Be brief."}]
    assert sent.body["generationConfig"]["maxOutputTokens"] == 77
    assert (response.provider, response.text, response.stop_reason) == ("google", "Olá", "end_turn")
    usage = response.usage
    # Thoughts are billed as output; cached content is inside promptTokenCount.
    assert (usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens, usage.output_tokens) == (
        952,
        2048,
        0,
        100,
    )
    assert usage.raw == raw_usage


async def test_tool_call_round_trip_replays_the_thought_signature() -> None:
    async with open_harness("google") as harness:
        harness.fake.script(
            ToolCallReply(
                calls=[
                    FakeToolCall("get_weather", {"city": "Lima"}, thought_signature="c2lnbmF0dXJlLTE="),
                    FakeToolCall("get_weather", {"city": "Quito"}),
                ]
            ),
            TextReply("Lima 20°C."),
        )
        request = LlmRequest(model=harness.model, messages=[UserMessage(text="weather?")], tools=[WEATHER])
        first = await harness.adapter.complete(request)

        declarations = harness.fake.requests[0].body["tools"][0]["functionDeclarations"]
        assert [(item["name"], item["description"]) for item in declarations] == [
            ("get_weather", "Current weather of a city")
        ]
        assert _declaration_schema(declarations[0]) == WEATHER.parameters
        # Gemini says STOP even when it calls a tool.
        assert (first.stop_reason, first.provider_stop_reason) == ("tool_use", "STOP")
        assert [call.arguments for call in first.tool_calls] == [{"city": "Lima"}, {"city": "Quito"}]
        ids = [call.id for call in first.tool_calls]
        assert all(call_id.startswith(GENERATED_ID_PREFIX) for call_id in ids)
        assert len(set(ids)) == 2

        final = await harness.adapter.complete(
            request.model_copy(
                update={
                    "messages": [
                        *request.messages,
                        first.as_assistant_message(),
                        ToolResultMessage(
                            tool_call_id=ids[0], tool_name="get_weather", content='{"temp": 20}'
                        ),
                        ToolResultMessage(
                            tool_call_id=ids[1], tool_name="get_weather", content="down", is_error=True
                        ),
                    ]
                }
            )
        )

    contents = harness.fake.requests[1].body["contents"]
    assert contents[1] == {
        "role": "model",
        "parts": [
            {
                "functionCall": {"name": "get_weather", "args": {"city": "Lima"}},
                "thoughtSignature": "c2lnbmF0dXJlLTE=",
            },
            {"functionCall": {"name": "get_weather", "args": {"city": "Quito"}}},
        ],
    }
    # Both responses share one user turn; our generated ids are never sent.
    assert contents[2] == {
        "role": "user",
        "parts": [
            {"functionResponse": {"name": "get_weather", "response": {"output": '{"temp": 20}'}}},
            {"functionResponse": {"name": "get_weather", "response": {"error": "down"}}},
        ],
    }
    assert (final.text, final.stop_reason) == ("Lima 20°C.", "end_turn")


async def test_ids_given_by_gemini_are_kept_and_sent_back() -> None:
    async with open_harness("google") as harness:
        harness.fake.script(ToolCallReply(calls=[FakeToolCall("get_weather", {"city": "Lima"}, id="fc-1")]))
        request = LlmRequest(model=harness.model, messages=[UserMessage(text="weather?")], tools=[WEATHER])
        first = await harness.adapter.complete(request)
        await harness.adapter.complete(
            request.model_copy(
                update={
                    "messages": [
                        *request.messages,
                        first.as_assistant_message(),
                        ToolResultMessage(tool_call_id="fc-1", tool_name="get_weather", content="20"),
                    ]
                }
            )
        )
    assert first.tool_calls[0].id == "fc-1"
    response_part = harness.fake.last_body["contents"][2]["parts"][0]["functionResponse"]
    assert response_part == {"id": "fc-1", "name": "get_weather", "response": {"output": "20"}}


async def test_safety_finish_is_a_refusal() -> None:
    async with open_harness("google") as harness:
        harness.fake.script(TextReply("", stop_reason="SAFETY"))
        response = await harness.adapter.complete(
            LlmRequest(model=harness.model, messages=[UserMessage(text="x")])
        )
    assert (response.stop_reason, response.text) == ("refusal", None)
