"""An agent stack for end-to-end tests: fake model providers, a fake upstream, a tool server, the service.

Everything outside the service is a real HTTP server on loopback: the four
providers' fakes speak their wire protocols (so the official SDKs run), the
fake channel records sends, and a small tool API records the calls it gets.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from temporalio.worker import Worker

from switchboard.settings import Settings
from switchboard.store.database import create_engine
from switchboard.temporal_client import connect_temporal
from tests.conftest import ADMIN_KEY
from tests.fakes import anthropic_server, gemini_server, mistral_server, openai_server
from tests.fakes.scripting import FakeProvider, FakeToolCall, TextReply, ToolCallReply
from tests.fixtures.channel import USER_PHONE, load
from tests.support.inbound import post_webhook
from tests.support.tenants import TenantFixture

ADMIN = {"X-Admin-Key": ADMIN_KEY}
API_KEY = "sk-fake-provider-key"

# provider -> (fake app builder, model, settings base-URL suffix)
PROVIDERS: dict[str, tuple[Callable[[FakeProvider], FastAPI], str, str]] = {
    "anthropic": (anthropic_server.build_app, "claude-haiku-4-5", ""),
    "openai": (openai_server.build_app, "gpt-4.1-mini", "/v1"),
    "google": (gemini_server.build_app, "gemini-2.5-flash", ""),
    "mistral": (mistral_server.build_app, "mistral-small-latest", ""),
}
SETTINGS_KEYS = {
    "anthropic": ("anthropic_api_key", "anthropic_base_url"),
    "openai": ("openai_api_key", "openai_base_url"),
    "google": ("gemini_api_key", "google_gemini_base_url"),
    "mistral": ("mistral_api_key", "mistral_base_url"),
}

_wamids = itertools.count(1)


@dataclass
class ToolServer:
    """A tenant API: answers scripted (status, body) per path and records each request."""

    answers: dict[str, list[tuple[int, Any]]] = field(default_factory=dict)
    calls: list[dict[str, Any]] = field(default_factory=list)

    def script(self, path: str, *answers: tuple[int, Any]) -> None:
        self.answers.setdefault(path, []).extend(answers)

    def app(self) -> FastAPI:
        app = FastAPI()

        @app.api_route("/{path:path}", methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
        async def any_path(path: str, request: Request) -> JSONResponse:
            body = await request.body()
            self.calls.append(
                {
                    "method": request.method,
                    "path": f"/{path}",
                    "query": dict(request.query_params),
                    "headers": dict(request.headers),
                    "json": json.loads(body) if body else None,
                }
            )
            queue = self.answers.get(f"/{path}") or [(200, {"ok": True})]
            status, payload = queue.pop(0) if len(queue) > 1 else queue[0]
            return JSONResponse(payload, status_code=status)

        return app


def text_envelope(text: str, *, from_phone: str = USER_PHONE, wamid: str | None = None) -> bytes:
    """A signed-to-be channel webhook body with one user text message."""
    envelope = load("text")
    value = envelope["entry"][0]["changes"][0]["value"]
    message = value["messages"][0]
    message["id"] = wamid or f"wamid.agent{next(_wamids):06d}"
    message["from"] = from_phone
    message["text"] = {"body": text}
    value["contacts"][0]["wa_id"] = from_phone
    return json.dumps(envelope).encode()


def button_reply_envelope(reply_id: str, title: str, *, from_phone: str = USER_PHONE) -> bytes:
    """A user's tap on an interactive reply button."""
    envelope = json.loads(text_envelope("x", from_phone=from_phone))
    message = envelope["entry"][0]["changes"][0]["value"]["messages"][0]
    message.pop("text")
    message["type"] = "interactive"
    message["interactive"] = {"type": "button_reply", "button_reply": {"id": reply_id, "title": title}}
    return json.dumps(envelope).encode()


async def say(client: httpx.AsyncClient, body: bytes) -> None:
    """The customer sends a message (through the signed channel webhook)."""
    response = await post_webhook(client, body)
    assert response.status_code == 200, response.text


async def eventually(check: Callable[[], Awaitable[Any]], *, timeout: float = 20.0) -> Any:  # noqa: ASYNC109
    """Poll an async check until it returns something truthy (the runtime is asynchronous by design)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        result = await check()
        if result:
            return result
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"condition not met within {timeout} s (last: {result!r})")
        await asyncio.sleep(0.1)


async def runs(client: httpx.AsyncClient, tenant: TenantFixture, **query: Any) -> list[dict[str, Any]]:
    response = await client.get("/v1/agent-runs", params=query, headers=tenant.headers())
    assert response.status_code == 200, response.text
    return list(response.json()["data"])


async def finished_runs(
    client: httpx.AsyncClient, tenant: TenantFixture, count: int = 1
) -> list[dict[str, Any]]:
    """Wait until ``count`` runs ended; newest first."""

    async def check() -> list[dict[str, Any]] | None:
        data = await runs(client, tenant)
        done = [run for run in data if run["status"] != "running"]
        return data if len(done) >= count else None

    return list(await eventually(check))


async def run_detail(client: httpx.AsyncClient, tenant: TenantFixture, run_id: str) -> dict[str, Any]:
    response = await client.get(f"/v1/agent-runs/{run_id}", headers=tenant.headers())
    assert response.status_code == 200, response.text
    return dict(response.json())


def tool_declaration(
    *,
    method: str = "GET",
    path: str = "/slots",
    pick: str = "data",
    terminates_thread: bool = False,
    **extra: Any,
) -> dict[str, Any]:
    """A tool declaration against the test's tool server (binding.base_url)."""
    request: dict[str, Any] = {"method": method, "url": "{{binding.base_url}}" + path, "timeout_ms": 5000}
    properties = {"date": {"type": "string", "description": "fecha"}}
    if method == "GET":
        request["query"] = {"date": "{{input.date}}"}
    else:
        request["body"] = {"date": "{{input.date}}", "phone": "{{context.contact_phone}}"}
    declaration: dict[str, Any] = {
        "description": f"{method} {path}",
        "input_schema": {"type": "object", "properties": properties, "required": ["date"]},
        "request": request,
        "response": {"pick": pick},
        **extra,
    }
    if terminates_thread:
        declaration["terminates_thread"] = True
    return declaration


async def deploy_agent(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    *,
    provider: str,
    tool_base_url: str,
    tools: dict[str, dict[str, Any]] | None = None,
    system_prompt: str = "Sos el asistente de la clínica.",
    routing: dict[str, Any] | None = None,
    params: dict[str, Any] | None = None,
    reglas: dict[str, Any] | None = None,
    guardrails_config: dict[str, Any] | None = None,
    phone_number_id: str | None = None,
) -> dict[str, Any]:
    """Create tools, an agent, a version and a binding through the public API; the binding."""
    headers = tenant.headers()
    for slug, declaration in (tools or {}).items():
        body = {"slug": slug, "name": slug, "description": slug, "declaration": declaration}
        response = await client.post("/v1/agent-tools", json=body, headers=headers)
        assert response.status_code == 201, response.text
    model = PROVIDERS[provider][1]
    agent = await client.post(
        "/v1/agents",
        json={"name": f"{provider} agent", "provider": provider, "model": model},
        headers=headers,
    )
    assert agent.status_code == 201, agent.text
    version_body: dict[str, Any] = {
        "system_prompt": system_prompt,
        "tools": list(tools or {}),
        "guardrails_config": guardrails_config or {},
    }
    if routing is not None:
        version_body["routing"] = routing
    version = await client.post(
        f"/v1/agents/{agent.json()['id']}/versions", json=version_body, headers=headers
    )
    assert version.status_code == 201, version.text
    binding_body: dict[str, Any] = {
        "name": f"{provider} binding",
        "agent_version_id": version.json()["id"],
        "scope": "phone_number" if phone_number_id else "tenant",
        "base_url": tool_base_url,
        "params": params or {},
        "reglas": reglas or {},
    }
    if phone_number_id:
        binding_body["phone_number_id"] = phone_number_id
    binding = await client.post("/v1/agent-bindings", json=binding_body, headers=headers)
    assert binding.status_code == 201, binding.text
    return dict(binding.json())


@asynccontextmanager
async def process_worker(settings: Settings) -> AsyncIterator[Worker]:
    """A worker built as the worker process builds it: on a client of its own (connect_temporal), so it
    has the process's Temporal runtime (its SDK metrics) and, when tracing is on, the tracing interceptor."""
    from switchboard.worker import build_deps, build_worker, close_deps

    client = await connect_temporal(settings, lazy=False)
    engine = create_engine(settings.database_url)
    deps = build_deps(client, settings, engine)
    try:
        async with build_worker(client, deps, max_concurrent=20) as running:
            yield running
    finally:
        await close_deps(deps)
        await engine.dispose()


async def subscribe_and_deploy_slots_agent(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    *,
    receiver_url: str,
    fake: FakeProvider,
    tools: ToolServer,
    tools_url: str,
    replies: list[str],
) -> None:
    """A webhook to ``receiver_url`` for every event, and an anthropic agent whose first turn calls the
    ``slots`` tool (answered 200 by ``tools``) and then says ``replies[0]``; later turns say the rest."""
    created = await client.post("/v1/webhooks", json={"url": receiver_url}, headers=tenant.headers())
    assert created.status_code == 201, created.text
    tools.script("/slots", (200, {"data": ["10:00"]}))
    fake.script(
        ToolCallReply([FakeToolCall("slots", {"date": "2026-12-01"}, id="call_1")]),
        *(TextReply(text) for text in replies),
    )
    await deploy_agent(
        client, tenant, provider="anthropic", tool_base_url=tools_url, tools={"slots": tool_declaration()}
    )
