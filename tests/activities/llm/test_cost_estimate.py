"""The honest estimate of a model call: what a request is measured as, and how the thread calibrates it."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal

from switchboard.activities.agents.cost_estimate import estimate_call, prompt_size
from switchboard.activities.llm.rate_cards import load_rate_cards
from switchboard.domain.agents.cost import PromptSize
from switchboard.models.llm import (
    AssistantMessage,
    LlmRequest,
    LlmTool,
    LlmToolCall,
    ToolResultMessage,
    UserMessage,
)
from switchboard.store.agents.budget import ThreadCalls

SLOTS = json.dumps({"data": [{"id": "s1", "start": "2026-12-02T10:30:00-03:00"}]})
TOOL = LlmTool(
    name="slots",
    description="Busca turnos.",
    parameters={"type": "object", "properties": {"date": {"type": "string"}}},
)
REQUEST = LlmRequest(
    model="claude-haiku-4-5",
    system="Sos el asistente.",  # 17
    messages=[
        UserMessage(text="hola, ¿hay turno?"),  # 17
        AssistantMessage(
            text=None,
            tool_calls=[LlmToolCall(id="c1", name="slots", arguments={"date": "2026-12-02"})],
            provider_native={"signature": "x" * 5_000},  # opaque: not sent as tokens we price
        ),
        ToolResultMessage(tool_call_id="c1", tool_name="slots", content=SLOTS),
        ToolResultMessage(tool_call_id="c2", tool_name="slots", content="no hay turnos"),  # 13, prose
        AssistantMessage(text="Hay a las 10:30."),  # 16
    ],
    tools=[TOOL],
    max_tokens=1_024,
)
CARD = load_rate_cards(None).card_for("anthropic", "claude-haiku-4-5", datetime(2026, 12, 1, tzinfo=UTC))


def test_a_request_is_measured_by_kind_of_content() -> None:
    arguments = len('{"date":"2026-12-02"}')
    schema = len('{"type":"object","properties":{"date":{"type":"string"}}}')
    assert prompt_size(REQUEST) == PromptSize(
        prose_chars=17 + 17 + 13 + 16 + len("Busca turnos."),
        json_chars=len("slots") + arguments + len(SLOTS) + len("slots") + schema,
        messages=5,
        tools=1,
    )


def test_a_new_thread_estimates_uncalibrated_with_max_tokens_of_output() -> None:
    estimate = estimate_call(REQUEST, CARD, ThreadCalls(outputs=[], last_prompt=None))
    assert estimate.calibration == 1 and estimate.prompt_tokens == estimate.uncalibrated_prompt_tokens
    assert estimate.output_tokens == 1_024
    # claude-haiku-4-5: 1 USD in, 5 USD out per million tokens.
    assert estimate.usd == (Decimal(estimate.prompt_tokens) * 1 + Decimal(1_024) * 5) / 10**6


def test_the_threads_previous_call_calibrates_the_next() -> None:
    uncalibrated = estimate_call(REQUEST, CARD, ThreadCalls(outputs=[], last_prompt=None)).prompt_tokens
    # The provider reported 20 % fewer prompt tokens than we estimated for the previous call,
    # whose largest recent output was 150 tokens.
    recent = ThreadCalls(outputs=[90, 150], last_prompt=(800, 1_000))
    estimate = estimate_call(REQUEST, CARD, recent)
    assert estimate.calibration == Decimal("0.8")
    assert abs(estimate.prompt_tokens - uncalibrated * 0.8) <= 1
    assert estimate.output_tokens == 150
    assert estimate.as_data() == {
        "uncalibrated_prompt_tokens": uncalibrated,
        "calibration": "0.8000",
        "prompt_tokens": estimate.prompt_tokens,
        "output_tokens": 150,
        "usd": str(estimate.usd),
    }
