"""An inbound message reaches a bound agent on each of the four providers, which replies through the channel."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import httpx
import pytest

from tests.e2e.agents.support import (
    ToolServer,
    deploy_agent,
    eventually,
    finished_runs,
    run_detail,
    say,
    text_envelope,
    tool_declaration,
)
from tests.fakes.scripting import FakeProvider, FakeToolCall, TextReply, ToolCallReply
from tests.fixtures.channel import USER_PHONE
from tests.support.fake_channel import FakeChannel
from tests.support.tenants import TenantFixture

# Each provider's wire usage with cached tokens, and what it normalises to (uncached input, output, read, write).
CACHED_USAGE: dict[str, tuple[dict[str, Any], dict[str, int]]] = {
    "anthropic": (
        {
            "input_tokens": 50,
            "output_tokens": 20,
            "cache_read_input_tokens": 1000,
            "cache_creation_input_tokens": 200,
        },
        {"input_tokens": 50, "output_tokens": 20, "cache_read_tokens": 1000, "cache_write_tokens": 200},
    ),
    "openai": (
        {
            "prompt_tokens": 1050,
            "completion_tokens": 20,
            "total_tokens": 1070,
            "prompt_tokens_details": {"cached_tokens": 1000},
        },
        {"input_tokens": 50, "output_tokens": 20, "cache_read_tokens": 1000, "cache_write_tokens": 0},
    ),
    "google": (
        {
            "promptTokenCount": 1050,
            "candidatesTokenCount": 20,
            "totalTokenCount": 1070,
            "cachedContentTokenCount": 1000,
        },
        {"input_tokens": 50, "output_tokens": 20, "cache_read_tokens": 1000, "cache_write_tokens": 0},
    ),
    "mistral": (
        {
            "prompt_tokens": 1050,
            "completion_tokens": 20,
            "total_tokens": 1070,
            "prompt_tokens_details": {"cached_tokens": 1000},
        },
        {"input_tokens": 50, "output_tokens": 20, "cache_read_tokens": 1000, "cache_write_tokens": 0},
    ),
}


async def _reply_text(channel: FakeChannel) -> str:
    async def sent() -> list[dict[str, Any]]:
        return channel.sends_to(USER_PHONE)

    sends = await eventually(sent)
    return str(sends[-1]["text"]["body"])


@pytest.mark.parametrize("provider", ["anthropic", "openai", "google", "mistral"])
async def test_text_reply_with_cached_usage_priced(
    provider: str,
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
) -> None:
    wire_usage, normalised = CACHED_USAGE[provider]
    fakes[provider].script(TextReply("¡Hola! ¿En qué te ayudo?", usage=wire_usage))
    await deploy_agent(app_client, bound_tenant, provider=provider, tool_base_url=tools_url)

    await say(app_client, text_envelope("hola, quería info"))

    assert await _reply_text(channel) == "¡Hola! ¿En qué te ayudo?"
    [run] = await finished_runs(app_client, bound_tenant)
    assert run["status"] == "completed", run
    assert run["usage"] == normalised
    assert Decimal(run["costUsd"]) > 0
    detail = await run_detail(app_client, bound_tenant, run["id"])
    [model_step] = [step for step in detail["steps"] if step["kind"] == "model_call"]
    assert model_step["costUsd"] == run["costUsd"]
    assert model_step["data"]["raw_usage"] == wire_usage
    sent_request = fakes[provider].requests[-1]
    assert "hola, quería info" in str(sent_request.body)
    threads = (await app_client.get("/v1/agent-threads", headers=bound_tenant.headers())).json()["data"]
    assert [entry["role"] for entry in threads[0]["messages"]] == ["user", "assistant"]
    assert threads[0]["costUsd"] == run["costUsd"]


@pytest.mark.parametrize("provider", ["anthropic", "openai", "google", "mistral"])
async def test_tool_round_trip(
    provider: str,
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools: ToolServer,
    tools_url: str,
) -> None:
    tools.script("/slots", (200, {"data": ["10:00", "11:30"]}))
    fakes[provider].script(
        ToolCallReply([FakeToolCall("slots", {"date": "2026-12-01"}, id="call_1")]),
        TextReply("Hay turnos a las 10:00 y 11:30."),
    )
    await deploy_agent(
        app_client,
        bound_tenant,
        provider=provider,
        tool_base_url=tools_url,
        tools={"slots": tool_declaration()},
    )

    await say(app_client, text_envelope("¿hay turno el 1 de diciembre?"))

    assert await _reply_text(channel) == "Hay turnos a las 10:00 y 11:30."
    assert tools.calls[0]["query"] == {"date": "2026-12-01"}
    [run] = await finished_runs(app_client, bound_tenant)
    assert run["status"] == "completed", run
    detail = await run_detail(app_client, bound_tenant, run["id"])
    kinds = [step["kind"] for step in detail["steps"]]
    assert kinds.count("model_call") == 2 and "tool_call" in kinds and kinds[-1] == "reply"
    [tool_step] = [step for step in detail["steps"] if step["kind"] == "tool_call"]
    assert tool_step["name"] == "slots" and tool_step["status"] == "ok"
    assert tool_step["data"]["status_code"] == 200 and tool_step["latency_ms"] is not None
    # The second model call saw the picked tool result.
    assert "11:30" in str(fakes[provider].requests[-1].body)
