"""Builders for the AI-agents catalog tests: create agents, tools, versions and bindings through the API."""

from __future__ import annotations

import itertools
from typing import Any

import httpx

from tests.conftest import ADMIN_KEY
from tests.support.tenants import TenantFixture

ADMIN = {"X-Admin-Key": ADMIN_KEY}
PROVIDER = "anthropic"
MODEL = "claude-sonnet-4-6"

TOOL_BASE_URL = "https://clinic.example/api"

_names = itertools.count(1)


def declaration(**request_overrides: Any) -> dict[str, Any]:
    """A minimal valid tool declaration (defaults left for the service to fill in)."""
    return {
        "description": "Looks up free slots on a date",
        "input_schema": {
            "type": "object",
            "properties": {"date": {"type": "string"}},
            "required": ["date"],
        },
        "request": {
            "method": "GET",
            "url": "{{binding.base_url}}/slots",
            "query": {"date": "{{input.date}}"},
            "auth": {"type": "bearer", "token": "{{binding.secret.api_token}}"},
            **request_overrides,
        },
        "response": {"pick": "data.slots"},
    }


def ok(response: httpx.Response, status: int = 200) -> dict[str, Any]:
    """The JSON body of a response that must have ``status``."""
    assert response.status_code == status, response.text
    return dict(response.json())


async def create_agent(client: httpx.AsyncClient, tenant: TenantFixture, **fields: Any) -> dict[str, Any]:
    """A new agent of the tenant."""
    body = {"name": f"Agent {next(_names)}", "provider": PROVIDER, "model": MODEL, **fields}
    return ok(await client.post("/v1/agents", json=body, headers=tenant.headers()), 201)


async def create_tool(
    client: httpx.AsyncClient, tenant: TenantFixture, slug: str | None = None, **fields: Any
) -> dict[str, Any]:
    """A new tool of the tenant."""
    body = {
        "slug": slug or f"tool-{next(_names)}",
        "name": "Find slots",
        "description": "Finds free slots",
        "declaration": declaration(),
        **fields,
    }
    return ok(await client.post("/v1/agent-tools", json=body, headers=tenant.headers()), 201)


async def create_version(
    client: httpx.AsyncClient, tenant: TenantFixture, agent_id: str, **fields: Any
) -> dict[str, Any]:
    """A new version of the agent."""
    body = {"system_prompt": "You book appointments.", **fields}
    return ok(await client.post(f"/v1/agents/{agent_id}/versions", json=body, headers=tenant.headers()), 201)


async def create_binding(
    client: httpx.AsyncClient, tenant: TenantFixture, version_id: str, **fields: Any
) -> dict[str, Any]:
    """A new binding of the version (tenant scope unless ``fields`` say otherwise)."""
    body = {"name": f"Binding {next(_names)}", "agent_version_id": version_id, "scope": "tenant", **fields}
    return ok(await client.post("/v1/agent-bindings", json=body, headers=tenant.headers()), 201)


async def deployed(client: httpx.AsyncClient, tenant: TenantFixture, **binding_fields: Any) -> dict[str, Any]:
    """An agent with one version (using one tool) and one binding (with a base URL unless told): each."""
    binding_fields.setdefault("base_url", TOOL_BASE_URL)
    tool = await create_tool(client, tenant)
    agent = await create_agent(client, tenant)
    version = await create_version(client, tenant, agent["id"], tools=[tool["slug"]])
    binding = await create_binding(client, tenant, version["id"], **binding_fields)
    return {"tool": tool, "agent": agent, "version": version, "binding": binding}


async def add_customer(client: httpx.AsyncClient, tenant: TenantFixture, name: str = "Second") -> str:
    """A further customer of the tenant; returns its id."""
    body = ok(
        await client.post(f"/v1/admin/tenants/{tenant.id}/customers", json={"name": name}, headers=ADMIN), 201
    )
    return str(body["id"])


async def add_phone(
    client: httpx.AsyncClient, tenant: TenantFixture, channel_id: str, *, customer_id: str | None = None
) -> dict[str, Any]:
    """A further phone number of the tenant."""
    body: dict[str, Any] = {
        "phone_number_id": channel_id,
        "display_phone_number": f"+1 555 {channel_id[-7:]}",
        "waba_id": tenant.waba_id,
    }
    if customer_id:
        body["customer_id"] = customer_id
    return ok(
        await client.post(f"/v1/admin/tenants/{tenant.id}/phone-numbers", json=body, headers=ADMIN), 201
    )


def assert_error(response: httpx.Response, status: int, code: str | None = None) -> dict[str, Any]:
    """The response is the spec's error body with this status (and code, when given)."""
    assert response.status_code == status, response.text
    body = dict(response.json())
    assert body["statusCode"] == status
    assert isinstance(body["message"], str) and body["message"]
    assert isinstance(body["error"], str) and body["error"]
    if code is not None:
        assert body.get("code") == code, body
    return body
