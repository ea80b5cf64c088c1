"""A successful milestone tool (terminates_thread) ends the run: one closing reply, the history cleared.

Through the signed channel webhook and the public API, with a real worker; the providers, the upstream
and the tenant's tool API are fakes on loopback. In each case the loop, had it gone on after the booking,
would have handed the conversation to a person with no reply (a later infra error, an empty answer, the
last allowed turn); the run instead completes, the customer hears about the booking, and the thread
starts over.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from switchboard.workflows.agent_milestone import CLOSING_FALLBACK_TEXT
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
from tests.fakes.scripting import ErrorReply, FakeProvider, FakeToolCall, TextReply, ToolCallReply
from tests.fixtures.channel import USER_PHONE
from tests.support.fake_channel import FakeChannel
from tests.support.tenants import TenantFixture

BOOKED = "Listo, quedó reservado para el 1 de diciembre."
BOOK = tool_declaration(method="POST", path="/book", terminates_thread=True, errors={"negocio": [409]})
# A second tool the model asks for in the same answer as the booking; its API is down (503 is infra).
NOTIFY = tool_declaration(method="POST", path="/notify")
# What each provider's wire format calls a tool call or a tool result.
TOOL_BLOCKS = ("tool_use", "tool_result", "tool_calls", "tool_call_id", "functionCall", "functionResponse")


async def reply_bodies(channel: FakeChannel, count: int = 1) -> list[str]:
    """Wait until the customer got ``count`` replies; their texts."""

    async def sent() -> list[dict[str, Any]] | None:
        sends = channel.sends_to(USER_PHONE)
        return sends if len(sends) >= count else None

    return [send["text"]["body"] for send in await eventually(sent)]


async def thread_of(client: httpx.AsyncClient, tenant: TenantFixture, thread_id: str) -> dict[str, Any]:
    response = await client.get(f"/v1/agent-threads/{thread_id}", headers=tenant.headers())
    assert response.status_code == 200, response.text
    return dict(response.json())


async def auto_resets(
    client: httpx.AsyncClient, tenant: TenantFixture, thread_id: str
) -> list[dict[str, Any]]:
    response = await client.get(
        "/v1/agent-events",
        params={"thread_id": thread_id, "type": "thread.messages_auto_reset"},
        headers=tenant.headers(),
    )
    assert response.status_code == 200, response.text
    return list(response.json()["data"])


async def assert_completed_with_milestone(
    client: httpx.AsyncClient, tenant: TenantFixture, *, previous_message_count: int
) -> dict[str, Any]:
    """The one run completed, the thread's history is empty and the auto reset names ``book``; the run."""
    [run] = await finished_runs(client, tenant)
    detail = await run_detail(client, tenant, run["id"])
    assert detail["status"] == "completed", detail
    assert detail["errorMessage"] is None
    assert detail["reply_message_id"] is not None
    thread = await thread_of(client, tenant, run["thread_id"])
    assert thread["messages"] == [] and thread["message_count"] == 0
    assert thread["muted"] is False
    [event] = await auto_resets(client, tenant, run["thread_id"])
    assert event["run_id"] == run["id"]
    assert event["properties"] == {"milestone_tool": "book", "previous_message_count": previous_message_count}
    return detail


def milestone_step(detail: dict[str, Any]) -> dict[str, Any]:
    [step] = [step for step in detail["steps"] if step["kind"] == "milestone"]
    return dict(step)


def declares_tools(body: dict[str, Any]) -> bool:
    return bool(body.get("tools"))


@pytest.mark.parametrize("provider", ["anthropic", "openai", "google", "mistral"])
async def test_booking_then_a_failing_call_in_the_same_answer_completes_with_the_closing_reply(
    provider: str,
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools: ToolServer,
    tools_url: str,
) -> None:
    tools.script("/book", (200, {"data": {"id": "bk_1"}}))
    tools.script("/notify", (503, {"error": "down"}))
    fakes[provider].script(
        ToolCallReply(
            [
                FakeToolCall("book", {"date": "2026-12-01"}, id="call_book"),
                FakeToolCall("notify", {"date": "2026-12-01"}, id="call_notify"),
            ]
        ),
        TextReply(BOOKED),
    )
    await deploy_agent(
        app_client,
        bound_tenant,
        provider=provider,
        tool_base_url=tools_url,
        tools={"book": BOOK, "notify": NOTIFY},
    )

    await say(app_client, text_envelope("reservame el 1 de diciembre"))

    assert await reply_bodies(channel) == [BOOKED]
    # user, assistant (the two calls), book's result, the closing reply
    detail = await assert_completed_with_milestone(app_client, bound_tenant, previous_message_count=4)
    # The booking answered ok, so the notify call of the same answer was never made.
    assert [call["path"] for call in tools.calls] == ["/book"]
    assert milestone_step(detail)["status"] == "closing_reply"
    assert milestone_step(detail)["data"]["skipped_calls"] == ["notify"]
    closing = [step for step in detail["steps"] if step["kind"] == "model_call"][-1]
    assert closing["name"] == "closing" and closing["status"] == "ok"
    # The closing call declares no tools and its transcript holds no tool blocks, only their text.
    loop_body, closing_body = (request.body for request in fakes[provider].requests)
    assert declares_tools(loop_body) and not declares_tools(closing_body)
    wire = json.dumps(closing_body, ensure_ascii=False)
    assert not [block for block in TOOL_BLOCKS if block in wire], wire
    assert "bk_1" in wire and "book succeeded" in wire


async def test_an_empty_closing_answer_sends_the_fallback_confirmation(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools: ToolServer,
    tools_url: str,
) -> None:
    tools.script("/book", (200, {"data": {"id": "bk_2"}}))
    fakes["anthropic"].script(
        ToolCallReply([FakeToolCall("book", {"date": "2026-12-01"}, id="toolu_1")]), TextReply("")
    )
    await deploy_agent(
        app_client, bound_tenant, provider="anthropic", tool_base_url=tools_url, tools={"book": BOOK}
    )

    await say(app_client, text_envelope("reservame el 1 de diciembre"))

    assert await reply_bodies(channel) == [CLOSING_FALLBACK_TEXT]
    detail = await assert_completed_with_milestone(app_client, bound_tenant, previous_message_count=4)
    step = milestone_step(detail)
    assert step["status"] == "fallback"
    assert "no text" in step["data"]["reason"]
    assert len(fakes["anthropic"].requests) == 2


async def test_a_failed_closing_call_sends_the_fallback_confirmation(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools: ToolServer,
    tools_url: str,
) -> None:
    tools.script("/book", (200, {"data": {"id": "bk_3"}}))
    fakes["openai"].script(
        ToolCallReply([FakeToolCall("book", {"date": "2026-12-01"}, id="call_1")]),
        ErrorReply(400, "invalid request"),
    )
    await deploy_agent(
        app_client, bound_tenant, provider="openai", tool_base_url=tools_url, tools={"book": BOOK}
    )

    await say(app_client, text_envelope("reservame el 1 de diciembre"))

    assert await reply_bodies(channel) == [CLOSING_FALLBACK_TEXT]
    detail = await assert_completed_with_milestone(app_client, bound_tenant, previous_message_count=4)
    assert "the closing call failed" in milestone_step(detail)["data"]["reason"]


async def test_a_booking_on_the_last_allowed_turn_still_gets_its_closing_reply(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools: ToolServer,
    tools_url: str,
) -> None:
    tools.script("/book", (200, {"data": {"id": "bk_4"}}))
    fakes["anthropic"].script(
        ToolCallReply([FakeToolCall("book", {"date": "2026-12-01"}, id="toolu_1")]), TextReply(BOOKED)
    )
    await deploy_agent(
        app_client,
        bound_tenant,
        provider="anthropic",
        tool_base_url=tools_url,
        tools={"book": BOOK},
        guardrails_config={"capExecucion": 1},
    )

    await say(app_client, text_envelope("reservame el 1 de diciembre"))

    assert await reply_bodies(channel) == [BOOKED]
    detail = await assert_completed_with_milestone(app_client, bound_tenant, previous_message_count=4)
    assert not [step for step in detail["steps"] if step["name"] == "capExecucion"]
    assert [step["name"] for step in detail["steps"] if step["kind"] == "model_call"] == ["loop", "closing"]


async def test_a_failed_milestone_call_keeps_the_loop_going_and_a_later_success_ends_it(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools: ToolServer,
    tools_url: str,
) -> None:
    tools.script("/book", (409, {"error": "taken"}), (200, {"data": {"id": "bk_5"}}))
    fakes["anthropic"].script(
        ToolCallReply([FakeToolCall("book", {"date": "2026-12-01"}, id="toolu_1")]),
        ToolCallReply([FakeToolCall("book", {"date": "2026-12-02"}, id="toolu_2")]),
        TextReply("Listo, quedó reservado para el 2 de diciembre."),
    )
    await deploy_agent(
        app_client, bound_tenant, provider="anthropic", tool_base_url=tools_url, tools={"book": BOOK}
    )

    await say(app_client, text_envelope("reservame el 1 o el 2 de diciembre"))

    assert await reply_bodies(channel) == ["Listo, quedó reservado para el 2 de diciembre."]
    # user, call, 409 result, call, ok result, the closing reply
    detail = await assert_completed_with_milestone(app_client, bound_tenant, previous_message_count=6)
    assert [step["status"] for step in detail["steps"] if step["kind"] == "tool_call"] == ["negocio", "ok"]
    # After the negocio answer the loop took its next turn as usual, tools declared; after the ok, none.
    assert [declares_tools(request.body) for request in fakes["anthropic"].requests] == [True, True, False]


async def test_a_failed_milestone_call_alone_keeps_the_history(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools: ToolServer,
    tools_url: str,
) -> None:
    tools.script("/book", (409, {"error": "taken"}))
    fakes["anthropic"].script(
        ToolCallReply([FakeToolCall("book", {"date": "2026-12-01"}, id="toolu_1")]),
        TextReply("Ese día no hay lugar, ¿probamos otro?"),
    )
    await deploy_agent(
        app_client, bound_tenant, provider="anthropic", tool_base_url=tools_url, tools={"book": BOOK}
    )

    await say(app_client, text_envelope("reservame el 1 de diciembre"))

    assert await reply_bodies(channel) == ["Ese día no hay lugar, ¿probamos otro?"]
    [run] = await finished_runs(app_client, bound_tenant)
    detail = await run_detail(app_client, bound_tenant, run["id"])
    assert detail["status"] == "completed"
    assert not [step for step in detail["steps"] if step["kind"] == "milestone"]
    thread = await thread_of(app_client, bound_tenant, run["thread_id"])
    assert [entry["role"] for entry in thread["messages"]] == ["user", "assistant", "tool", "assistant"]
    assert await auto_resets(app_client, bound_tenant, run["thread_id"]) == []
    assert [declares_tools(request.body) for request in fakes["anthropic"].requests] == [True, True]
