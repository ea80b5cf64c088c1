"""Agent turn: inbound message -> agent reply at the upstream, with a fake model and a fake tool answering at once.

Each turn: a signed text webhook to the real API (uvicorn, loopback), which applies it and signals the
thread's AgentThread workflow -> an AgentRun child (load, model call asking for a tool, the tool
call through the executor, a second model call answering, the reply) -> SendMessage -> the fake
upstream. Turns are paced one at a time (one conversation each), so the figure is the service's
own overhead with no backlog, beside a bare Temporal workflow with one activity, paced, from the
same run. Debounce is set to 0 here (it is a deliberate wait, AGENT_DEBOUNCE_SECONDS, 2 s by default).

Run: .venv/bin/python bench/agent_turn.py [--turns N]
Loopback only; bounded in count and time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import time
import uuid
from typing import Any

import httpx
from baseline_workflow import OneActivity, noop
from fastapi import FastAPI, Request
from harness import bench_settings, fresh_sqlite_url, load, load_client, serve_app, temporal_dev_server
from temporalio.worker import Worker

WABA_ID = "102290129340398"
PHONE_NUMBER_ID = "106540352242922"
DISPLAY = "15550783881"
USAGE = {"prompt_tokens": 200, "completion_tokens": 20, "total_tokens": 220}


def fake_model() -> FastAPI:
    """An OpenAI Chat Completions fake: asks for the tool first, answers in text once it has the result."""
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def complete(request: Request) -> dict[str, Any]:
        body = await request.json()
        has_result = any(message.get("role") == "tool" for message in body["messages"])
        if has_result:
            message: dict[str, Any] = {"role": "assistant", "content": "Hay turno a las 10:00."}
            finish = "stop"
        else:
            call = {
                "id": "call_1",
                "type": "function",
                "function": {"name": "slots", "arguments": '{"date": "x"}'},
            }
            message, finish = {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"
        return {
            "id": "chatcmpl-bench",
            "object": "chat.completion",
            "created": 1,
            "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": USAGE,
        }

    return app


def fake_tool() -> FastAPI:
    app = FastAPI()

    @app.get("/slots")
    async def slots() -> dict[str, Any]:
        return {"data": ["10:00"]}

    return app


def inbound(n: int) -> bytes:
    user = f"1652{n:07d}"
    value = {
        "messaging_product": "whatsapp",
        "metadata": {"display_phone_number": DISPLAY, "phone_number_id": PHONE_NUMBER_ID},
        "contacts": [{"profile": {"name": f"User {n}"}, "wa_id": user}],
        "messages": [
            {
                "from": user,
                "id": f"wamid.turn{n}",
                "timestamp": str(int(time.time())),
                "type": "text",
                "text": {"body": "¿hay turno?"},
            }
        ],
    }
    envelope = {
        "object": "whatsapp_business_account",
        "entry": [{"id": WABA_ID, "changes": [{"field": "messages", "value": value}]}],
    }
    return json.dumps(envelope).encode()


async def deploy(client: httpx.AsyncClient, tenant: Any, admin: dict[str, str], tool_url: str) -> None:
    headers = tenant.headers()
    await client.post(
        f"/v1/admin/tenants/{tenant.id}/wabas", json={"waba_id": WABA_ID, "access_token": "t"}, headers=admin
    )
    await client.post(
        f"/v1/admin/tenants/{tenant.id}/phone-numbers",
        json={
            "phone_number_id": PHONE_NUMBER_ID,
            "display_phone_number": DISPLAY,
            "waba_id": WABA_ID,
            "customer_id": tenant.customer_id,
        },
        headers=admin,
    )
    declaration = {
        "description": "free slots",
        "input_schema": {"type": "object", "properties": {"date": {"type": "string"}}, "required": ["date"]},
        "request": {
            "method": "GET",
            "url": "{{binding.base_url}}/slots",
            "query": {"date": "{{input.date}}"},
        },
        "response": {"pick": "data"},
    }
    tool = await client.post(
        "/v1/agent-tools",
        headers=headers,
        json={"slug": "slots", "name": "slots", "description": "", "declaration": declaration},
    )
    assert tool.status_code == 201, tool.text
    agent = await client.post(
        "/v1/agents", headers=headers, json={"name": "bench", "provider": "openai", "model": "gpt-4.1-mini"}
    )
    version = await client.post(
        f"/v1/agents/{agent.json()['id']}/versions",
        headers=headers,
        json={"system_prompt": "bench", "tools": ["slots"], "guardrails_config": {}},
    )
    binding = await client.post(
        "/v1/agent-bindings",
        headers=headers,
        json={
            "name": "bench",
            "agent_version_id": version.json()["id"],
            "scope": "tenant",
            "base_url": tool_url,
        },
    )
    assert binding.status_code == 201, binding.text


async def main(args: argparse.Namespace) -> None:
    logging.disable(logging.WARNING)
    from switchboard.api.app import create_app
    from switchboard.domain.signatures import hub_signature
    from switchboard.store.database import create_engine
    from switchboard.worker import build_deps, build_worker, close_deps
    from tests.support.fake_channel import FakeChannel
    from tests.support.tenants import provision_tenant

    channel = FakeChannel()
    async with (
        temporal_dev_server() as env,
        serve_app(fake_model()) as model_url,
        serve_app(fake_tool()) as tool_url,
        serve_app(channel.app()) as channel_url,
    ):
        address = env.client.service_client.config.target_host
        settings = bench_settings(
            await asyncio.to_thread(fresh_sqlite_url),
            address,
            channel_api_base_url=channel_url,
            openai_api_key="sk-bench",
            openai_base_url=f"{model_url}/v1",
            agent_debounce_seconds=0.0,
        )
        engine = create_engine(settings.database_url)
        deps = build_deps(env.client, settings, engine)
        async with (
            build_worker(env.client, deps, max_concurrent=50),
            serve_app(create_app(settings)) as api_url,
        ):
            async with load_client(api_url) as client:
                tenant = await provision_tenant(client, settings.switchboard_admin_key)
                await deploy(client, tenant, {"X-Admin-Key": settings.switchboard_admin_key}, tool_url)

                async def turn(n: int) -> None:
                    body = inbound(n)
                    sent = len(channel.sends)
                    response = await client.post(
                        "/channel/webhook",
                        content=body,
                        headers={
                            "Content-Type": "application/json",
                            "X-Hub-Signature-256": hub_signature(body, settings.channel_app_secret),
                        },
                    )
                    assert response.status_code == 200, response.text
                    deadline = time.perf_counter() + 30
                    while len(channel.sends) == sent:
                        if time.perf_counter() > deadline:
                            raise TimeoutError(f"turn {n} got no reply")
                        await asyncio.sleep(0.002)

                await load("warm-up", turn, total=3, concurrency=1)
                turns = await load(
                    "agent turn: inbound -> reply at upstream (2 model calls, 1 tool)",
                    lambda i: turn(100 + i),
                    total=args.turns,
                    concurrency=1,
                )
        await close_deps(deps)
        await engine.dispose()
        queue = f"bench-bare-{uuid.uuid4().hex[:6]}"
        async with Worker(env.client, task_queue=queue, workflows=[OneActivity], activities=[noop]):

            async def bare(i: int) -> None:
                await env.client.execute_workflow(OneActivity.run, i, id=f"{queue}-{i}", task_queue=queue)

            baseline = await load(
                "baseline, paced: bare workflow with one activity", bare, total=args.turns, concurrency=1
            )
    print("Agent turn (loopback, SQLite, Temporal dev server, one worker, one API process, paced)")
    for figures in (turns, baseline):
        print("  " + figures.line())
    ratio = turns.percentile(50) / max(baseline.percentile(50), 1e-9)
    print(
        f"  -> a turn's p50 is {ratio:.1f}x the baseline's p50 (p99 {turns.percentile(99):.0f} ms vs "
        f"{baseline.percentile(99):.0f} ms); the turn is the API's apply + AgentThread + "
        "AgentRun + SendMessage (5 regular activities, the rest local), the baseline one workflow with one activity"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=30)
    asyncio.run(main(parser.parse_args()))
