"""Agent versions: immutable, numbered from 1 per agent, tool slugs checked, deletable only when unbound."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from tests.api.agent_catalog_support import (
    assert_error,
    create_agent,
    create_binding,
    create_tool,
    create_version,
    ok,
)
from tests.support.tenants import TenantFixture


async def test_create_version_snapshots_the_fields(app_client: httpx.AsyncClient, tenant: TenantFixture):
    await create_tool(app_client, tenant, "find_slots")
    await create_tool(app_client, tenant, "book")
    agent = await create_agent(app_client, tenant)
    routing = {"intents": [{"name": "pedir_turno", "description": "wants a slot", "examples": ["turno"]}]}
    body = {
        "system_prompt": "You are the front desk.",
        "tools": ["find_slots", "book"],
        "guardrails_config": {"capExecucion": 4, "capConversacion": 12},
        "routing": routing,
    }
    version = ok(
        await app_client.post(f"/v1/agents/{agent['id']}/versions", json=body, headers=tenant.headers()), 201
    )
    assert version["id"].startswith("agv_")
    assert (version["agent_id"], version["version"]) == (agent["id"], 1)
    assert {k: version[k] for k in body} == body
    assert (
        ok(await app_client.get(f"/v1/agent-versions/{version['id']}", headers=tenant.headers())) == version
    )


async def test_optional_fields_default_to_empty(app_client: httpx.AsyncClient, tenant: TenantFixture):
    agent = await create_agent(app_client, tenant)
    version = await create_version(app_client, tenant, agent["id"])
    assert (version["tools"], version["guardrails_config"], version["routing"]) == ([], {}, {})


async def test_versions_are_numbered_per_agent(app_client: httpx.AsyncClient, tenant: TenantFixture):
    first, second = await create_agent(app_client, tenant), await create_agent(app_client, tenant)
    numbers = [(await create_version(app_client, tenant, first["id"]))["version"] for _ in range(3)]
    assert numbers == [1, 2, 3]
    assert (await create_version(app_client, tenant, second["id"]))["version"] == 1
    listed = ok(await app_client.get(f"/v1/agents/{first['id']}/versions", headers=tenant.headers()))
    assert [v["version"] for v in listed["data"]] == [1, 2, 3]
    assert listed["total"] == 3


async def test_concurrent_creations_get_distinct_numbers(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    agent = await create_agent(app_client, tenant)
    path = f"/v1/agents/{agent['id']}/versions"
    responses = await asyncio.gather(
        *(app_client.post(path, json={"system_prompt": f"p{i}"}, headers=tenant.headers()) for i in range(8))
    )
    assert [r.status_code for r in responses] == [201] * 8
    assert sorted(r.json()["version"] for r in responses) == list(range(1, 9))


async def test_a_deleted_versions_number_is_not_reused(app_client: httpx.AsyncClient, tenant: TenantFixture):
    agent = await create_agent(app_client, tenant)
    await create_version(app_client, tenant, agent["id"])
    second = await create_version(app_client, tenant, agent["id"])
    deleted = ok(await app_client.delete(f"/v1/agent-versions/{second['id']}", headers=tenant.headers()))
    assert deleted == {"id": second["id"], "deleted": True}
    assert_error(await app_client.get(f"/v1/agent-versions/{second['id']}", headers=tenant.headers()), 404)
    assert (await create_version(app_client, tenant, agent["id"]))["version"] == 3


async def test_unknown_tool_slug_is_422_naming_it(
    app_client: httpx.AsyncClient, tenant: TenantFixture, other_tenant: TenantFixture
):
    await create_tool(app_client, tenant, "find_slots")
    await create_tool(app_client, other_tenant, "theirs")
    agent = await create_agent(app_client, tenant)
    for missing in ("nope", "theirs"):
        body = {"system_prompt": "p", "tools": ["find_slots", missing]}
        response = await app_client.post(
            f"/v1/agents/{agent['id']}/versions", json=body, headers=tenant.headers()
        )
        error = assert_error(response, 422, "UNKNOWN_TOOL")
        assert (error["details"]["field"], error["details"]["slug"]) == ("tools", missing)
        assert missing in error["message"]
    listed = ok(await app_client.get(f"/v1/agents/{agent['id']}/versions", headers=tenant.headers()))
    assert listed["total"] == 0


async def test_duplicate_tool_slugs_are_422(app_client: httpx.AsyncClient, tenant: TenantFixture):
    await create_tool(app_client, tenant, "find_slots")
    agent = await create_agent(app_client, tenant)
    body = {"system_prompt": "p", "tools": ["find_slots", "find_slots"]}
    response = await app_client.post(
        f"/v1/agents/{agent['id']}/versions", json=body, headers=tenant.headers()
    )
    assert assert_error(response, 422, "DUPLICATE_TOOL")["details"]["slugs"] == ["find_slots"]


async def test_a_disabled_tool_may_be_referenced(app_client: httpx.AsyncClient, tenant: TenantFixture):
    await create_tool(app_client, tenant, "find_slots", enabled=False)
    agent = await create_agent(app_client, tenant)
    assert (await create_version(app_client, tenant, agent["id"], tools=["find_slots"]))["tools"] == [
        "find_slots"
    ]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"guardrails_config": {"capExecucion": "6"}}, "guardrails_config.capExecucion"),
        ({"guardrails_config": {"capExecucion": 0}}, "guardrails_config.capExecucion"),
        ({"guardrails_config": {"capConversacion": True}}, "guardrails_config.capConversacion"),
        ({"guardrails_config": {"capConversacion": 2.5}}, "guardrails_config.capConversacion"),
        ({"guardrails_config": []}, "guardrails_config"),
        ({"routing": {"intents": [{"description": "no name"}]}}, "routing.intents.0.name"),
        ({"routing": "pedir_turno"}, "routing"),
        ({"system_prompt": ""}, "system_prompt"),
        ({"tools": ["Not A Slug"]}, "tools.0"),
        ({"version": 7}, "version"),
    ],
)
async def test_invalid_version_fields_are_400(
    app_client: httpx.AsyncClient, tenant: TenantFixture, body: dict, field: str
):
    agent = await create_agent(app_client, tenant)
    response = await app_client.post(
        f"/v1/agents/{agent['id']}/versions", json={"system_prompt": "p", **body}, headers=tenant.headers()
    )
    assert assert_error(response, 400)["details"]["field"] == field


async def test_unknown_guardrail_and_routing_keys_are_kept(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    agent = await create_agent(app_client, tenant)
    version = await create_version(
        app_client, tenant, agent["id"], guardrails_config={"futureKey": 1}, routing={"catch_all": {"x": 1}}
    )
    assert version["guardrails_config"] == {"futureKey": 1}
    assert version["routing"] == {"catch_all": {"x": 1}}


@pytest.mark.parametrize("body", [{"system_prompt": "changed"}, {}, {"tools": []}])
async def test_patch_on_a_version_is_405_in_the_spec_body(
    app_client: httpx.AsyncClient, tenant: TenantFixture, body: dict
):
    agent = await create_agent(app_client, tenant)
    version = await create_version(app_client, tenant, agent["id"])
    response = await app_client.patch(
        f"/v1/agent-versions/{version['id']}", json=body, headers=tenant.headers()
    )
    error = assert_error(response, 405, "AGENT_VERSION_IMMUTABLE")
    assert error["error"] == "Method Not Allowed"
    assert response.headers["allow"] == "GET, DELETE"
    assert (
        ok(await app_client.get(f"/v1/agent-versions/{version['id']}", headers=tenant.headers())) == version
    )


async def test_put_on_a_version_is_405_too(app_client: httpx.AsyncClient, tenant: TenantFixture):
    agent = await create_agent(app_client, tenant)
    version = await create_version(app_client, tenant, agent["id"])
    response = await app_client.put(
        f"/v1/agent-versions/{version['id']}", json={"system_prompt": "x"}, headers=tenant.headers()
    )
    assert_error(response, 405)


async def test_delete_version_referenced_by_a_binding_is_409(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    agent = await create_agent(app_client, tenant)
    version = await create_version(app_client, tenant, agent["id"])
    binding = await create_binding(app_client, tenant, version["id"], enabled=False)
    error = assert_error(
        await app_client.delete(f"/v1/agent-versions/{version['id']}", headers=tenant.headers()),
        409,
        "VERSION_IN_USE",
    )
    assert error["details"]["binding_ids"] == [binding["id"]]
    ok(await app_client.delete(f"/v1/agent-bindings/{binding['id']}", headers=tenant.headers()))
    ok(await app_client.delete(f"/v1/agent-versions/{version['id']}", headers=tenant.headers()))


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/v1/agent-versions/{version}", None),
        ("PATCH", "/v1/agent-versions/{version}", {"system_prompt": "x"}),
        ("DELETE", "/v1/agent-versions/{version}", None),
        ("GET", "/v1/agents/{agent}/versions", None),
        ("POST", "/v1/agents/{agent}/versions", {"system_prompt": "x"}),
    ],
)
async def test_another_tenants_versions_are_404(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    other_tenant: TenantFixture,
    method: str,
    path: str,
    body: dict | None,
):
    agent = await create_agent(app_client, other_tenant)
    version = await create_version(app_client, other_tenant, agent["id"])
    url = path.format(agent=agent["id"], version=version["id"])
    assert_error(await app_client.request(method, url, json=body, headers=tenant.headers()), 404)
    listed = ok(await app_client.get(f"/v1/agents/{agent['id']}/versions", headers=other_tenant.headers()))
    assert [v["id"] for v in listed["data"]] == [version["id"]]
