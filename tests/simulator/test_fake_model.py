"""The simulator's FAKE model, spoken to through the official ``openai`` SDK, and the demo tools."""

from __future__ import annotations

import json
import os
from typing import Any

import openai
import pytest
from openai.types.chat import ChatCompletionFunctionToolParam, ChatCompletionMessageFunctionToolCall

from switchboard.activities.llm.openai_adapter import OpenAIAdapter
from switchboard.dev_demo import FAKE_MODEL_KEY, model_line
from switchboard.devstack import use_fake_model
from switchboard.domain.agents.prompt import parse_intent, router_prompt
from switchboard.models.llm import (
    AssistantMessage,
    LlmRequest,
    LlmTool,
    LlmToolCall,
    ToolResultMessage,
    UserMessage,
)
from switchboard.settings import Settings
from tests.simulator.support import Sim

MODEL = "gpt-4.1-mini"
INTENTS: list[dict[str, Any]] = [
    {"name": "pedir_turno", "description": "wants an appointment", "examples": ["quiero un turno"]},
    {"name": "cancelar_turno", "description": "wants to cancel one"},
]
FIND_SLOTS: ChatCompletionFunctionToolParam = {
    "type": "function",
    "function": {
        "name": "find_slots",
        "description": "Free appointment slots on a date",
        "parameters": {
            "type": "object",
            "properties": {
                "date": {"type": "string", "format": "date"},
                "shift": {"type": "string", "enum": ["morning", "afternoon"]},
                "people": {"type": "integer"},
                "note": {"type": "string"},
                "optional": {"type": "string"},
            },
            "required": ["date", "shift", "people", "note"],
        },
    },
}
GET_PRICES: ChatCompletionFunctionToolParam = {
    "type": "function",
    "function": {
        "name": "get_prices",
        "description": "Price list",
        "parameters": {"type": "object", "properties": {}},
    },
}


@pytest.fixture
def client(sim: Sim) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        api_key="sk-fake-model-dev", base_url=f"{sim.base_url}/_fake-model/v1", max_retries=0
    )


async def test_text_answer_echoes_the_user_with_usage(client: openai.AsyncOpenAI) -> None:
    completion = await client.chat.completions.create(
        model=MODEL,
        messages=[
            {"role": "system", "content": "You are the front desk."},
            {"role": "user", "content": "Hola, ¿qué tal?"},
        ],
    )
    choice = completion.choices[0]
    assert choice.message.content == "[fake model] You said: Hola, ¿qué tal?"
    assert choice.finish_reason == "stop"
    assert not choice.message.tool_calls
    assert completion.model == MODEL
    usage = completion.usage
    assert usage is not None
    assert usage.prompt_tokens > 5 and usage.completion_tokens > 5
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens


async def test_tools_offered_but_not_asked_for_give_text(client: openai.AsyncOpenAI) -> None:
    completion = await client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "hello"}], tools=[FIND_SLOTS]
    )
    assert completion.choices[0].message.content == "[fake model] You said: hello"


async def test_keyword_calls_the_first_tool_with_arguments_from_its_schema(
    client: openai.AsyncOpenAI,
) -> None:
    text = "¿Hay turnos libres?"
    completion = await client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": text}], tools=[FIND_SLOTS, GET_PRICES]
    )
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    (call,) = choice.message.tool_calls or []
    assert isinstance(call, ChatCompletionMessageFunctionToolCall)
    assert call.id.startswith("call_fake_")
    assert call.function.name == "find_slots"
    assert json.loads(call.function.arguments) == {
        "date": "2026-12-01",
        "shift": "morning",
        "people": 1,
        "note": text,
    }


async def test_a_named_slug_picks_that_tool(client: openai.AsyncOpenAI) -> None:
    completion = await client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": "please run get_prices"}],
        tools=[FIND_SLOTS, GET_PRICES],
    )
    (call,) = completion.choices[0].message.tool_calls or []
    assert isinstance(call, ChatCompletionMessageFunctionToolCall)
    assert call.function.name == "get_prices"
    assert json.loads(call.function.arguments) == {}


async def test_a_tool_result_is_summarised_in_text(client: openai.AsyncOpenAI) -> None:
    result = '{"date": "2026-12-01", "slots": ["09:00", "10:30"]}'
    completion = await client.chat.completions.create(
        model=MODEL,
        messages=[
            {"role": "user", "content": "turnos?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "find_slots", "arguments": "{}"},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": result},
        ],
        tools=[FIND_SLOTS],
    )
    choice = completion.choices[0]
    assert choice.message.content == f"[fake model] The tool answered: {result}"
    assert choice.finish_reason == "stop"


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("Hola, quiero pedir turno para mañana", "pedir_turno"),
        ("pedir_turno", "pedir_turno"),
        ("necesito CANCELAR-TURNO", "cancelar_turno"),
        ("¿a qué hora abren?", "catch_all"),
    ],
)
async def test_router_prompt_gets_the_first_declared_intent_in_the_text(
    client: openai.AsyncOpenAI, text: str, intent: str
) -> None:
    completion = await client.chat.completions.create(
        model=MODEL,
        messages=[
            {"role": "system", "content": router_prompt(INTENTS)},
            {"role": "user", "content": text},
        ],
        max_completion_tokens=32,
    )
    answer = completion.choices[0].message.content
    assert answer == intent
    assert parse_intent(answer, INTENTS) == intent


async def test_the_runtime_adapter_reads_tool_calls_and_usage(sim: Sim) -> None:
    adapter = OpenAIAdapter("sk-fake-model-dev", f"{sim.base_url}/_fake-model/v1")
    try:
        tool = LlmTool(
            name="find_slots",
            description="slots",
            parameters=dict(FIND_SLOTS["function"].get("parameters") or {}),
        )
        first = await adapter.complete(
            LlmRequest(
                model=MODEL, system="Front desk", messages=[UserMessage(text="un turno")], tools=[tool]
            )
        )
        assert first.stop_reason == "tool_use"
        (call,) = first.tool_calls
        assert call.name == "find_slots" and call.arguments["date"] == "2026-12-01"
        assert first.usage.input_tokens > 0 and first.usage.output_tokens > 0
        second = await adapter.complete(
            LlmRequest(
                model=MODEL,
                system="Front desk",
                messages=[
                    UserMessage(text="un turno"),
                    AssistantMessage(
                        tool_calls=[LlmToolCall(id=call.id, name=call.name, arguments=call.arguments)]
                    ),
                    ToolResultMessage(tool_call_id=call.id, tool_name=call.name, content='["09:00"]'),
                ],
                tools=[tool],
            )
        )
        assert second.text == '[fake model] The tool answered: ["09:00"]'
        assert second.stop_reason == "end_turn"
    finally:
        await adapter.aclose()


async def test_missing_token_and_bad_bodies_answer_openai_errors(sim: Sim) -> None:
    url = "/_fake-model/v1/chat/completions"
    unauthenticated = await sim.client.post(url, json={"model": MODEL, "messages": []})
    assert unauthenticated.status_code == 401
    assert unauthenticated.json()["error"]["type"] == "invalid_api_key"
    auth = {"Authorization": "Bearer anything"}
    for body in ({"model": MODEL, "messages": []}, {"messages": [{"role": "user", "content": "x"}]}):
        answer = await sim.client.post(url, json=body, headers=auth)
        assert answer.status_code == 400
        assert answer.json()["error"]["type"] == "invalid_request_error"
    streaming = {"model": MODEL, "stream": True, "messages": [{"role": "user", "content": "x"}]}
    assert (await sim.client.post(url, json=streaming, headers=auth)).status_code == 400
    assert (await sim.client.get("/_fake-model/v1/nothing-here")).status_code == 404


async def test_demo_tools_answer_slots_and_bookings(sim: Sim) -> None:
    slots = await sim.client.get("/_demo-tools/slots", params={"date": "2026-12-01"})
    assert slots.json() == {"data": {"date": "2026-12-01", "slots": ["09:00", "10:30", "16:00"]}}
    assert (await sim.client.get("/_demo-tools/slots", params={"date": "tomorrow"})).status_code == 400
    booked = await sim.client.post("/_demo-tools/bookings", json={"date": "2026-12-01", "time": "09:00"})
    assert booked.status_code == 201
    booking = booked.json()["data"]["booking"]
    assert booking["id"].startswith("bk_") and booking["time"] == "09:00"
    taken = await sim.client.post("/_demo-tools/bookings", json={"date": "2026-12-01", "time": "13:00"})
    assert taken.status_code == 409 and taken.json()["error"] == "slot_taken"


def _clear_openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Remove the OpenAI variables; setting each first makes monkeypatch restore the original state,
    including variables use_fake_model sets itself."""
    names = {"OPENAI_API_KEY", "OPENAI_BASE_URL"} | {n for n in os.environ if n.upper().startswith("OPENAI_")}
    for name in names:
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)


def test_dev_points_openai_at_the_fake_model_without_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    _clear_openai_env(monkeypatch)
    assert use_fake_model(8100) == "http://127.0.0.1:8100/_fake-model/v1"
    settings = Settings()
    assert settings.openai_api_key == FAKE_MODEL_KEY
    assert settings.openai_base_url == "http://127.0.0.1:8100/_fake-model/v1"
    assert "FAKE model" in model_line(settings.openai_base_url, sim="http://127.0.0.1:8100")


def test_a_real_key_in_the_environment_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    _clear_openai_env(monkeypatch)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real")
    assert use_fake_model(8100) is None
    settings = Settings()
    assert settings.openai_api_key == "sk-real" and settings.openai_base_url is None
    assert "real API" in model_line(None, sim="http://127.0.0.1:8100")


def test_an_own_base_url_is_kept_with_the_dummy_key(monkeypatch: pytest.MonkeyPatch) -> None:
    _clear_openai_env(monkeypatch)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9999/v1")
    assert use_fake_model(8100) == "http://127.0.0.1:9999/v1"
    assert Settings().openai_api_key == FAKE_MODEL_KEY
    assert "FAKE" not in model_line("http://127.0.0.1:9999/v1", sim="http://127.0.0.1:8100")
