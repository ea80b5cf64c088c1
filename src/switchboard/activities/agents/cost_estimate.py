"""The honest estimate of one model call, reserved against the cost caps before the call is made.

The request is measured (prose and JSON characters, messages, tools), the
thread's recent calls supply the calibration and the expected output
(store.agents.budget.recent_calls), and domain.agents.cost turns that into
tokens and USD at the rate card in effect. The estimate is recorded on the
call's step, so the next call can calibrate against the provider's reported
usage and an operator can compare the two.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from switchboard.domain.agents.cost import (
    PromptSize,
    calibration,
    call_estimate_usd,
    estimated_prompt_tokens,
    expected_output_tokens,
)
from switchboard.domain.pricing import RateCard
from switchboard.models.llm import AssistantMessage, LlmRequest, ToolResultMessage, UserMessage
from switchboard.store.agents.budget import ThreadCalls


def _compact(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str))


def _looks_like_json(text: str) -> bool:
    return text.lstrip()[:1] in ("{", "[")


def prompt_size(request: LlmRequest) -> PromptSize:
    """What the request sends the model, by kind of content (opaque provider blobs are not counted)."""
    prose = len(request.system or "")
    structured = 0
    for message in request.messages:
        if isinstance(message, UserMessage):
            prose += len(message.text)
        elif isinstance(message, AssistantMessage):
            prose += len(message.text or "")
            for call in message.tool_calls:
                structured += len(call.name) + _compact(call.arguments)
        elif isinstance(message, ToolResultMessage):
            if _looks_like_json(message.content):
                structured += len(message.content)
            else:
                prose += len(message.content)
    for tool in request.tools:
        prose += len(tool.description)
        structured += len(tool.name) + _compact(tool.parameters)
    return PromptSize(
        prose_chars=prose, json_chars=structured, messages=len(request.messages), tools=len(request.tools)
    )


@dataclass(frozen=True)
class CallEstimate:
    """A call's expected tokens and cost, as reserved and as recorded on its step."""

    uncalibrated_prompt_tokens: int
    calibration: Decimal
    prompt_tokens: int
    output_tokens: int
    usd: Decimal

    def as_data(self) -> dict[str, Any]:
        """The estimate for the step's ``data`` (USD as an exact string)."""
        return {
            "uncalibrated_prompt_tokens": self.uncalibrated_prompt_tokens,
            "calibration": str(self.calibration),
            "prompt_tokens": self.prompt_tokens,
            "output_tokens": self.output_tokens,
            "usd": str(self.usd),
        }


def estimate_call(request: LlmRequest, card: RateCard, recent: ThreadCalls) -> CallEstimate:
    """The honest estimate of one call: calibrated prompt tokens and expected output at the card's prices."""
    size = prompt_size(request)
    raw = estimated_prompt_tokens(size)
    ratio = Decimal(1)
    if recent.last_prompt is not None:
        reported, estimated = recent.last_prompt
        ratio = calibration(reported_prompt_tokens=reported, estimated_prompt_tokens=estimated)
    prompt = estimated_prompt_tokens(size, calibration=ratio)
    output = expected_output_tokens(max_tokens=request.max_tokens, observed=recent.outputs)
    prices = card.prices_for(prompt)
    usd = call_estimate_usd(
        prompt_tokens=prompt,
        output_tokens=output,
        input_per_mtok=prices.input,
        output_per_mtok=prices.output,
    )
    return CallEstimate(
        uncalibrated_prompt_tokens=raw,
        calibration=ratio,
        prompt_tokens=prompt,
        output_tokens=output,
        usd=usd,
    )
