"""The agent runtime's read and operator API: threads, runs, agent events, reactivate and reset-messages,
and agent events reaching tenant webhooks.

Threads come from real turns (signed channel webhook, a real worker, fake providers on loopback): one
conversation answered, one escalated (muted as handoff).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

import httpx
import pytest

from switchboard.domain.signatures import verify_service_signature
from tests.e2e.agents.support import (
    ADMIN,
    deploy_agent,
    eventually,
    finished_runs,
    run_detail,
    say,
    text_envelope,
)
from tests.fakes.scripting import ErrorReply, FakeProvider, FakeToolCall, TextReply, ToolCallReply
from tests.fixtures.channel import PHONE_NUMBER_ID, USER_PHONE
from tests.support.fake_channel import FakeChannel
from tests.support.http_server import serve_app
from tests.support.tenants import TenantFixture
from tests.workflows.test_webhook_support import Receiver

OTHER_PHONE = "16505559876"
OTHER_BSUID = "US.55555555555555555555"
ENVELOPE_KEYS = {"data", "page", "per_page", "total", "has_more"}
MONEY = re.compile(r"^\d+\.\d{10}$")


@dataclass
class Threads:
    """Two conversations of one binding: ``active`` was answered, ``muted`` escalated."""

    binding: dict[str, Any]
    active: dict[str, Any]
    muted: dict[str, Any]
    active_run: dict[str, Any]
    muted_run: dict[str, Any]


def other_user_envelope(text: str) -> bytes:
    """A text from a second customer (their own phone and BSUID: a conversation of its own)."""
    envelope = json.loads(text_envelope(text, from_phone=OTHER_PHONE))
    contact = envelope["entry"][0]["changes"][0]["value"]["contacts"][0]
    contact["user_id"] = OTHER_BSUID
    contact.pop("parent_user_id", None)
    return json.dumps(envelope).encode()


async def get_ok(client: httpx.AsyncClient, tenant: TenantFixture, path: str, **params: Any) -> Any:
    response = await client.get(path, params=params, headers=tenant.headers())
    assert response.status_code == 200, response.text
    return response.json()


async def thread(client: httpx.AsyncClient, tenant: TenantFixture, thread_id: str) -> dict[str, Any]:
    return dict(await get_ok(client, tenant, f"/v1/agent-threads/{thread_id}"))


async def events(
    client: httpx.AsyncClient, tenant: TenantFixture, thread_id: str, event_type: str | None = None
) -> list[dict[str, Any]]:
    params = {"thread_id": thread_id, **({"type": event_type} if event_type else {})}
    return list((await get_ok(client, tenant, "/v1/agent-events", **params))["data"])


def assert_envelope(body: Any, *, total: int, page: int = 1, per_page: int = 20) -> list[dict[str, Any]]:
    """CONTRACTS 6: the list envelope; its data."""
    assert set(body) == ENVELOPE_KEYS, body
    assert body["page"] == page and body["per_page"] == per_page and body["total"] == total
    assert body["has_more"] is (page * per_page < total)
    return list(body["data"])


def assert_error(response: httpx.Response, status: int, code: str | None = None) -> dict[str, Any]:
    """The spec's error body: statusCode, message, error (status text), optional details and code."""
    assert response.status_code == status, response.text
    body = dict(response.json())
    assert body["statusCode"] == status
    assert isinstance(body["message"], str) and body["message"]
    assert isinstance(body["error"], str) and body["error"]
    if code is not None:
        assert body["code"] == code, body
    return body


def assert_instant(value: Any) -> None:
    """An ISO 8601 timestamp with its zone (a bare local time is ambiguous)."""
    assert isinstance(value, str), value
    assert datetime.fromisoformat(value.replace("Z", "+00:00")).tzinfo is not None, value


async def new_key(client: httpx.AsyncClient, tenant: TenantFixture, role: str) -> dict[str, Any]:
    """A live key of ``role`` whose id we know (the fallback of reactivated_by_user_id / reset_by_user_id)."""
    response = await client.post(
        f"/v1/admin/tenants/{tenant.id}/api-keys", json={"mode": "live", "role": role}, headers=ADMIN
    )
    assert response.status_code == 201, response.text
    return dict(response.json())


@pytest.fixture
async def threads(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
) -> Threads:
    """USER_PHONE's conversation answered; OTHER_PHONE's escalated (after one priced model call)."""
    fakes["anthropic"].script(
        TextReply("¡Hola! ¿En qué te ayudo?"),
        ToolCallReply([FakeToolCall("no_such_tool", {}, id="toolu_1")]),
    )
    binding = await deploy_agent(app_client, bound_tenant, provider="anthropic", tool_base_url=tools_url)

    await say(app_client, text_envelope("hola"))
    [active_run] = await finished_runs(app_client, bound_tenant)

    async def replied() -> list[dict[str, Any]]:
        return channel.sends_to(USER_PHONE)

    await eventually(replied)
    await say(app_client, other_user_envelope("hola, ¿están?"))
    muted_run, _ = await finished_runs(app_client, bound_tenant, count=2)
    assert active_run["status"] == "completed", active_run
    assert muted_run["status"] == "escalated", muted_run
    return Threads(
        binding=binding,
        active=await thread(app_client, bound_tenant, active_run["thread_id"]),
        muted=await thread(app_client, bound_tenant, muted_run["thread_id"]),
        active_run=active_run,
        muted_run=muted_run,
    )


# --------------------------------------------------------------------------- reading


async def test_threads_list_shape_and_filters(
    app_client: httpx.AsyncClient, bound_tenant: TenantFixture, threads: Threads
) -> None:
    listed = assert_envelope(await get_ok(app_client, bound_tenant, "/v1/agent-threads"), total=2)
    assert {t["id"] for t in listed} == {threads.active["id"], threads.muted["id"]}
    first_page = await get_ok(app_client, bound_tenant, "/v1/agent-threads", per_page=1)
    assert len(assert_envelope(first_page, total=2, per_page=1)) == 1
    second_page = await get_ok(app_client, bound_tenant, "/v1/agent-threads", per_page=1, page=2)
    assert len(assert_envelope(second_page, total=2, page=2, per_page=1)) == 1
    assert first_page["data"][0]["id"] != second_page["data"][0]["id"]

    muted = await get_ok(app_client, bound_tenant, "/v1/agent-threads", muted="true")
    [only_muted] = assert_envelope(muted, total=1)
    assert only_muted["id"] == threads.muted["id"]
    assert only_muted["muted_reason"] == "handoff" and only_muted["muted_at"] is not None
    active = await get_ok(app_client, bound_tenant, "/v1/agent-threads", muted="false")
    [only_active] = assert_envelope(active, total=1)
    assert only_active["id"] == threads.active["id"]
    assert only_active["muted_reason"] is None and only_active["muted_at"] is None

    by_binding = await get_ok(app_client, bound_tenant, "/v1/agent-threads", binding_id=threads.binding["id"])
    assert len(assert_envelope(by_binding, total=2)) == 2
    other_binding = await get_ok(app_client, bound_tenant, "/v1/agent-threads", binding_id="bnd_nope")
    assert assert_envelope(other_binding, total=0) == []
    conversation_id = threads.active["conversation_id"]
    by_conversation = await get_ok(
        app_client, bound_tenant, "/v1/agent-threads", conversation_id=conversation_id
    )
    [one] = assert_envelope(by_conversation, total=1)
    assert one["id"] == threads.active["id"] and one["conversation_id"] == conversation_id

    response = await app_client.get(
        "/v1/agent-threads", params={"muted": "maybe"}, headers=bound_tenant.headers()
    )
    assert_error(response, 400)


async def test_thread_detail_shape(
    app_client: httpx.AsyncClient, bound_tenant: TenantFixture, threads: Threads
) -> None:
    active, muted = threads.active, threads.muted
    # The spec's fields (messages, muted_at, muted_reason, updated_at) and what links it.
    for field in ("id", "conversation_id", "messages", "muted_at", "muted_reason", "updated_at", "costUsd"):
        assert field in active, field
    assert active["binding_id"] == threads.binding["id"]
    assert active["phone_number_id"] == PHONE_NUMBER_ID
    assert [entry["role"] for entry in active["messages"]] == ["user", "assistant"]
    assert active["message_count"] == 2
    assert active["muted"] is False and active["muted_at"] is None and active["muted_reason"] is None
    assert_instant(active["updated_at"])
    assert Decimal(active["costUsd"]) > 0 and active["costUsd"] == threads.active_run["costUsd"]
    # An escalated turn keeps the customer's message in the history and nothing the model said.
    assert [entry["role"] for entry in muted["messages"]] == ["user"]
    assert muted["muted"] is True and muted["muted_reason"] == "handoff"
    assert_instant(muted["muted_at"])
    assert muted["conversation_id"] != active["conversation_id"]


async def test_runs_and_events_listing(
    app_client: httpx.AsyncClient, bound_tenant: TenantFixture, threads: Threads
) -> None:
    all_runs = assert_envelope(await get_ok(app_client, bound_tenant, "/v1/agent-runs"), total=2)
    assert [run["id"] for run in all_runs] == [
        threads.muted_run["id"],
        threads.active_run["id"],
    ]  # newest first
    by_thread = await get_ok(app_client, bound_tenant, "/v1/agent-runs", thread_id=threads.active["id"])
    [run] = assert_envelope(by_thread, total=1)
    assert run["id"] == threads.active_run["id"] and run["thread_id"] == threads.active["id"]
    escalated = await get_ok(app_client, bound_tenant, "/v1/agent-runs", status="escalated")
    [only] = assert_envelope(escalated, total=1)
    assert only["id"] == threads.muted_run["id"]

    detail = await run_detail(app_client, bound_tenant, threads.active_run["id"])
    assert detail["status"] == "completed" and detail["errorMessage"] is None
    assert detail["binding_id"] == threads.binding["id"]
    assert detail["agent_version_id"] == threads.binding["agent_version_id"]
    assert detail["provider"] == "anthropic" and len(detail["message_ids"]) == 1
    assert set(detail["usage"]) == {
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
    }
    assert Decimal(detail["costUsd"]) > 0
    kinds = [step["kind"] for step in detail["steps"]]
    assert "model_call" in kinds and kinds[-1] == "reply"
    assert [step["seq"] for step in detail["steps"]] == sorted(step["seq"] for step in detail["steps"])
    assert detail["workflow_id"] == f"agent-run-{detail['id']}"
    assert_instant(detail["created_at"])
    assert_instant(detail["ended_at"])

    muted_detail = await run_detail(app_client, bound_tenant, threads.muted_run["id"])
    assert muted_detail["status"] == "escalated"
    assert "no_such_tool" in muted_detail["errorMessage"]
    assert muted_detail["reply_message_id"] is None

    muted_events = await get_ok(
        app_client, bound_tenant, "/v1/agent-events", thread_id=threads.muted["id"], type="thread.muted"
    )
    [event] = assert_envelope(muted_events, total=1)
    assert event["type"] == "thread.muted" and event["thread_id"] == threads.muted["id"]
    assert event["run_id"] == threads.muted_run["id"]
    assert event["properties"] == {"muted_reason": "handoff", "run_id": threads.muted_run["id"]}
    assert_instant(event["created_at"])
    # The webhook kind's agent. prefix is accepted as a filter too.
    prefixed = await events(app_client, bound_tenant, threads.muted["id"], "agent.thread.muted")
    assert [e["id"] for e in prefixed] == [event["id"]]
    assert await events(app_client, bound_tenant, threads.active["id"]) == []
    assert await events(app_client, bound_tenant, threads.muted["id"], "thread.reactivated") == []


async def test_invalid_run_status_filter_is_a_400(
    app_client: httpx.AsyncClient, bound_tenant: TenantFixture
) -> None:
    response = await app_client.get(
        "/v1/agent-runs", params={"status": "exploded"}, headers=bound_tenant.headers()
    )
    body = assert_error(response, 400, "VALIDATION_FAILED")
    assert body["error"] == "Bad Request"
    assert body["details"]["field"] == "status" and body["details"]["value"] == "exploded"
    response = await app_client.get(
        "/v1/agent-runs", params={"per_page": 101}, headers=bound_tenant.headers()
    )
    assert_error(response, 400)


async def test_other_tenants_ids_are_404(
    app_client: httpx.AsyncClient, bound_tenant: TenantFixture, other_tenant: TenantFixture, threads: Threads
) -> None:
    headers = other_tenant.headers()
    for path in (
        f"/v1/agent-threads/{threads.muted['id']}",
        f"/v1/agent-runs/{threads.muted_run['id']}",
        "/v1/agent-threads/thr_does_not_exist",
        "/v1/agent-runs/run_does_not_exist",
    ):
        assert_error(await app_client.get(path, headers=headers), 404)
    for action in ("reactivate", "reset-messages"):
        response = await app_client.post(
            f"/v1/agent-threads/{threads.muted['id']}/{action}", json={"reason": "x"}, headers=headers
        )
        assert_error(response, 404)
    # Lists filtered by another tenant's ids are simply empty.
    for path, params in (
        ("/v1/agent-threads", {}),
        ("/v1/agent-runs", {"thread_id": threads.muted["id"]}),
        ("/v1/agent-events", {"thread_id": threads.muted["id"]}),
    ):
        assert assert_envelope(await get_ok(app_client, other_tenant, path, **params), total=0) == []
    # Nothing changed for the owner.
    still = await thread(app_client, bound_tenant, threads.muted["id"])
    assert still["muted_reason"] == "handoff" and still["message_count"] == 1
    assert await events(app_client, bound_tenant, threads.muted["id"], "thread.reactivated") == []
    assert await events(app_client, bound_tenant, threads.muted["id"], "thread.messages_reset") == []


# --------------------------------------------------------------------------- reactivate and reset-messages


async def test_reactivate_a_muted_thread(
    app_client: httpx.AsyncClient, bound_tenant: TenantFixture, threads: Threads
) -> None:
    thread_id = threads.muted["id"]
    response = await app_client.post(
        f"/v1/agent-threads/{thread_id}/reactivate",
        json={"reason": "the clinic called the patient", "user_id": "op_42"},
        headers=bound_tenant.headers(),
    )
    assert response.status_code == 200, response.text
    answered = response.json()
    assert answered["muted"] is False and answered["muted_at"] is None and answered["muted_reason"] is None
    stored = await thread(app_client, bound_tenant, thread_id)
    assert stored["muted_at"] is None and stored["muted_reason"] is None
    # Reactivation does not clear messages.
    assert stored["messages"] == threads.muted["messages"] and stored["message_count"] == 1
    [event] = await events(app_client, bound_tenant, thread_id, "thread.reactivated")
    assert event["properties"] == {
        "previous_muted_reason": "handoff",
        "reactivated_by_user_id": "op_42",
        "reason": "the clinic called the patient",
    }
    unmuted = await get_ok(app_client, bound_tenant, "/v1/agent-threads", muted="true")
    assert assert_envelope(unmuted, total=0) == []

    # On an active thread: a no-op, and no event.
    again = await app_client.post(
        f"/v1/agent-threads/{thread_id}/reactivate", json={"reason": "again"}, headers=bound_tenant.headers()
    )
    assert again.status_code == 200, again.text
    assert again.json()["muted"] is False
    never_muted = await app_client.post(
        f"/v1/agent-threads/{threads.active['id']}/reactivate",
        json={"reason": "just in case"},
        headers=bound_tenant.headers(),
    )
    assert never_muted.status_code == 200, never_muted.text
    assert len(await events(app_client, bound_tenant, thread_id, "thread.reactivated")) == 1
    assert await events(app_client, bound_tenant, threads.active["id"]) == []


async def test_who_acted_falls_back_to_the_api_key(
    app_client: httpx.AsyncClient, bound_tenant: TenantFixture, threads: Threads
) -> None:
    # CONTRACTS 7a: open to live keys of every role; without user_id the key's id is recorded.
    member = await new_key(app_client, bound_tenant, "member")
    headers = {"X-API-Key": member["key"]}
    thread_id = threads.muted["id"]
    response = await app_client.post(
        f"/v1/agent-threads/{thread_id}/reset-messages", json={"reason": "fresh start"}, headers=headers
    )
    assert response.status_code == 200, response.text
    response = await app_client.post(
        f"/v1/agent-threads/{thread_id}/reactivate", json={"reason": "handled"}, headers=headers
    )
    assert response.status_code == 200, response.text
    [reset] = await events(app_client, bound_tenant, thread_id, "thread.messages_reset")
    assert reset["properties"]["reset_by_user_id"] == member["id"]
    [reactivated] = await events(app_client, bound_tenant, thread_id, "thread.reactivated")
    assert reactivated["properties"]["reactivated_by_user_id"] == member["id"]


async def test_reset_messages_clears_history_but_not_the_mute(
    app_client: httpx.AsyncClient, bound_tenant: TenantFixture, threads: Threads
) -> None:
    for current, count in ((threads.muted, 1), (threads.active, 2)):
        response = await app_client.post(
            f"/v1/agent-threads/{current['id']}/reset-messages",
            json={"reason": "new topic", "user_id": "op_7"},
            headers=bound_tenant.headers(),
        )
        assert response.status_code == 200, response.text
        assert response.json()["messages"] == []
        stored = await thread(app_client, bound_tenant, current["id"])
        assert stored["messages"] == [] and stored["message_count"] == 0
        # Reset does not unmute (nor mute).
        assert stored["muted_reason"] == current["muted_reason"]
        assert stored["muted_at"] == current["muted_at"]
        [event] = await events(app_client, bound_tenant, current["id"], "thread.messages_reset")
        assert event["properties"] == {
            "previous_message_count": count,
            "reset_by_user_id": "op_7",
            "reason": "new topic",
        }
        assert event["run_id"] is None


async def test_thread_actions_need_a_reason(
    app_client: httpx.AsyncClient, bound_tenant: TenantFixture, threads: Threads
) -> None:
    thread_id = threads.muted["id"]
    for action in ("reactivate", "reset-messages"):
        path = f"/v1/agent-threads/{thread_id}/{action}"
        missing = await app_client.post(path, json={"user_id": "op_1"}, headers=bound_tenant.headers())
        body = assert_error(missing, 400, "MISSING_REQUIRED_FIELD")
        assert body["details"]["field"] == "reason"
        empty = await app_client.post(path, json={"reason": ""}, headers=bound_tenant.headers())
        assert_error(empty, 400)
        no_body = await app_client.post(path, headers=bound_tenant.headers())
        assert no_body.status_code in (400, 415, 422), no_body.text
        assert no_body.json()["statusCode"] == no_body.status_code
    still = await thread(app_client, bound_tenant, thread_id)
    assert still["muted_reason"] == "handoff" and still["message_count"] == 1
    assert [e["type"] for e in await events(app_client, bound_tenant, thread_id)] == ["thread.muted"]


async def test_sandbox_key_changes_nothing(
    app_client: httpx.AsyncClient, bound_tenant: TenantFixture, threads: Threads
) -> None:
    headers = bound_tenant.headers(bound_tenant.test_key)
    thread_id = threads.muted["id"]
    for action in ("reset-messages", "reactivate"):
        response = await app_client.post(
            f"/v1/agent-threads/{thread_id}/{action}", json={"reason": "try"}, headers=headers
        )
        assert response.status_code == 200, response.text
    still = await thread(app_client, bound_tenant, thread_id)
    assert still["muted_reason"] == "handoff" and still["message_count"] == 1
    assert [e["type"] for e in await events(app_client, bound_tenant, thread_id)] == ["thread.muted"]


async def test_reactivation_restarts_the_thread_cost(
    app_client: httpx.AsyncClient, bound_tenant: TenantFixture, threads: Threads
) -> None:
    # CONTRACTS 7a: the per-thread cost counts spend since the last reactivation; the lifetime total stays.
    muted = threads.muted
    assert Decimal(muted["costUsd"]) > 0 and muted["totalCostUsd"] == muted["costUsd"]
    assert muted["costUsd"] == threads.muted_run["costUsd"]
    response = await app_client.post(
        f"/v1/agent-threads/{muted['id']}/reactivate", json={"reason": "x"}, headers=bound_tenant.headers()
    )
    assert response.status_code == 200, response.text
    after = await thread(app_client, bound_tenant, muted["id"])
    assert Decimal(after["costUsd"]) == 0
    assert after["totalCostUsd"] == muted["totalCostUsd"]
    # The answered thread was not touched.
    assert (await thread(app_client, bound_tenant, threads.active["id"]))["costUsd"] == threads.active[
        "costUsd"
    ]


async def test_zero_money_is_a_plain_decimal_string(
    app_client: httpx.AsyncClient, bound_tenant: TenantFixture, threads: Threads
) -> None:
    assert MONEY.match(threads.active_run["costUsd"]), threads.active_run["costUsd"]
    response = await app_client.post(
        f"/v1/agent-threads/{threads.muted['id']}/reactivate",
        json={"reason": "x"},
        headers=bound_tenant.headers(),
    )
    assert response.status_code == 200, response.text
    after = await thread(app_client, bound_tenant, threads.muted["id"])
    assert after["costUsd"] == "0.0000000000", after["costUsd"]


# --------------------------------------------------------------------------- webhooks


@pytest.fixture
async def receiver() -> AsyncIterator[tuple[Receiver, str]]:
    endpoint = Receiver()
    async with serve_app(endpoint.app()) as base_url:
        yield endpoint, base_url


async def create_webhook(
    client: httpx.AsyncClient, tenant: TenantFixture, url: str, events: list[str] | None = None
) -> str:
    """A webhook (all kinds when ``events`` is None); its signing secret."""
    body: dict[str, Any] = {"url": url}
    if events is not None:
        body["events"] = events
    response = await client.post("/v1/webhooks", json=body, headers=tenant.headers())
    assert response.status_code == 201, response.text
    return str(response.json()["secret"])


def delivered_kinds(endpoint: Receiver, path: str) -> list[str]:
    return [json.loads(request.body)["event"] for request in endpoint.at(path)]


async def test_agent_events_reach_webhooks(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
    receiver: tuple[Receiver, str],
) -> None:
    endpoint, base_url = receiver
    # /hook takes only agent.thread.muted; /other is subscribed to everything (agent.* kinds included).
    secret = await create_webhook(app_client, bound_tenant, f"{base_url}/hook", ["agent.thread.muted"])
    other_secret = await create_webhook(app_client, bound_tenant, f"{base_url}/other")
    fakes["openai"].script(ErrorReply(400, "invalid request"))
    await deploy_agent(app_client, bound_tenant, provider="openai", tool_base_url=tools_url)

    await say(app_client, text_envelope("hola"))

    [run] = await finished_runs(app_client, bound_tenant)
    assert run["status"] == "escalated", run

    async def muted_delivered() -> bool:
        return "agent.thread.muted" in delivered_kinds(endpoint, "/other") and bool(endpoint.at("/hook"))

    await eventually(muted_delivered)
    [request] = endpoint.at("/hook")
    assert verify_service_signature(request.body, request.headers.get("x-service-signature"), secret)
    body = json.loads(request.body)
    assert request.headers["x-service-event"] == "agent.thread.muted" == body["event"]
    assert request.headers["x-service-delivery"] == body["delivery_id"]
    assert body["tenant_id"] == bound_tenant.id
    assert body["phone_number_id"] == PHONE_NUMBER_ID
    assert_instant(body["occurred_at"])
    agent_event = body["agent_event"]
    assert agent_event["type"] == "thread.muted"
    assert agent_event["thread_id"] == run["thread_id"]
    assert agent_event["run_id"] == run["id"]
    assert agent_event["properties"] == {"muted_reason": "handoff", "run_id": run["id"]}
    [stored] = await events(app_client, bound_tenant, run["thread_id"], "thread.muted")
    assert agent_event["id"] == stored["id"]

    # While muted, inbound messages are still delivered as usual; a reactivation is an agent event too.
    await say(app_client, text_envelope("¿hay alguien?"))
    response = await app_client.post(
        f"/v1/agent-threads/{run['thread_id']}/reactivate",
        json={"reason": "handled", "user_id": "op_1"},
        headers=bound_tenant.headers(),
    )
    assert response.status_code == 200, response.text

    async def rest_delivered() -> list[str] | None:
        kinds = delivered_kinds(endpoint, "/other")
        done = kinds.count("channel.message.received") == 2 and "agent.thread.reactivated" in kinds
        return kinds if done else None

    await eventually(rest_delivered)
    [reactivated] = [
        r for r in endpoint.at("/other") if json.loads(r.body)["event"] == "agent.thread.reactivated"
    ]
    assert verify_service_signature(
        reactivated.body, reactivated.headers.get("x-service-signature"), other_secret
    )
    reactivated_event = json.loads(reactivated.body)["agent_event"]
    assert reactivated_event["thread_id"] == run["thread_id"]
    assert reactivated_event["properties"] == {
        "previous_muted_reason": "handoff",
        "reactivated_by_user_id": "op_1",
        "reason": "handled",
    }
    # Only the subscribed kind reached /hook.
    assert delivered_kinds(endpoint, "/hook") == ["agent.thread.muted"]
