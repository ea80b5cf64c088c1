"""Agents: create with rate-card checks, list, read, update, and delete guarded by enabled bindings."""

from __future__ import annotations

import httpx
import pytest

from tests.api.agent_catalog_support import (
    MODEL,
    PROVIDER,
    assert_error,
    create_agent,
    create_binding,
    create_version,
    deployed,
    ok,
)
from tests.support.tenants import TenantFixture


async def test_create_agent_returns_it_with_an_id(app_client: httpx.AsyncClient, tenant: TenantFixture):
    body = {"name": "Front desk", "provider": PROVIDER, "model": MODEL, "description": "Books visits"}
    agent = ok(await app_client.post("/v1/agents", json=body, headers=tenant.headers()), 201)
    assert agent["id"].startswith("agt_")
    assert {k: agent[k] for k in body} == body
    fetched = ok(await app_client.get(f"/v1/agents/{agent['id']}", headers=tenant.headers()))
    assert fetched == agent


@pytest.mark.parametrize("missing", ["name", "provider", "model"])
async def test_create_agent_requires_name_provider_and_model(
    app_client: httpx.AsyncClient, tenant: TenantFixture, missing: str
):
    body = {"name": "A", "provider": PROVIDER, "model": MODEL}
    del body[missing]
    response = await app_client.post("/v1/agents", json=body, headers=tenant.headers())
    assert assert_error(response, 400, "MISSING_REQUIRED_FIELD")["details"]["field"] == missing


async def test_unknown_model_is_422_listing_the_providers_models(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    body = {"name": "A", "provider": "openai", "model": "gpt-nonexistent"}
    error = assert_error(
        await app_client.post("/v1/agents", json=body, headers=tenant.headers()), 422, "UNKNOWN_MODEL"
    )
    assert error["details"]["field"] == "model"
    assert "gpt-4.1" in error["details"]["known_models"]
    assert all(not m.startswith("claude") for m in error["details"]["known_models"])


async def test_unknown_provider_is_422_listing_every_known_model(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    body = {"name": "A", "provider": "acme-llm", "model": MODEL}
    error = assert_error(
        await app_client.post("/v1/agents", json=body, headers=tenant.headers()), 422, "UNKNOWN_PROVIDER"
    )
    details = error["details"]
    assert details["field"] == "provider"
    assert details["known_providers"] == ["anthropic", "openai", "google", "mistral"]
    assert set(details["known_models"]) == {"anthropic", "openai", "google", "mistral"}
    assert MODEL in details["known_models"]["anthropic"]


async def test_list_agents_is_scoped_and_enveloped(
    app_client: httpx.AsyncClient, tenant: TenantFixture, other_tenant: TenantFixture
):
    mine = [await create_agent(app_client, tenant) for _ in range(3)]
    await create_agent(app_client, other_tenant)
    page = ok(await app_client.get("/v1/agents?per_page=2", headers=tenant.headers()))
    assert [a["id"] for a in page["data"]] == [a["id"] for a in mine[:2]]
    assert (page["page"], page["per_page"], page["total"], page["has_more"]) == (1, 2, 3, True)
    last = ok(await app_client.get("/v1/agents?page=2&per_page=2", headers=tenant.headers()))
    assert [a["id"] for a in last["data"]] == [mine[2]["id"]]
    assert last["has_more"] is False


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"name": "Renamed"}, {"name": "Renamed"}),
        ({"description": None}, {"description": None}),
        ({"model": "claude-haiku-4-5"}, {"provider": PROVIDER, "model": "claude-haiku-4-5"}),
        ({"provider": "openai", "model": "gpt-4.1"}, {"provider": "openai", "model": "gpt-4.1"}),
    ],
)
async def test_patch_agent_changes_only_the_given_fields(
    app_client: httpx.AsyncClient, tenant: TenantFixture, change: dict, expected: dict
):
    agent = await create_agent(app_client, tenant, description="desc")
    updated = ok(await app_client.patch(f"/v1/agents/{agent['id']}", json=change, headers=tenant.headers()))
    assert {k: updated[k] for k in expected} == expected
    untouched = set(agent) - set(expected) - {"updated_at"}
    assert {k: updated[k] for k in untouched} == {k: agent[k] for k in untouched}
    assert ok(await app_client.get(f"/v1/agents/{agent['id']}", headers=tenant.headers())) == updated


@pytest.mark.parametrize(
    ("change", "status", "code"),
    [
        ({"provider": "openai"}, 422, "UNKNOWN_MODEL"),
        ({"model": "gpt-4.1"}, 422, "UNKNOWN_MODEL"),
        ({"provider": "nope"}, 422, "UNKNOWN_PROVIDER"),
        ({"name": None}, 400, "VALIDATION_FAILED"),
        ({}, 400, "VALIDATION_FAILED"),
        ({"id": "agt_x"}, 400, "VALIDATION_FAILED"),
    ],
)
async def test_patch_agent_rejects_bad_changes(
    app_client: httpx.AsyncClient, tenant: TenantFixture, change: dict, status: int, code: str
):
    agent = await create_agent(app_client, tenant)
    response = await app_client.patch(f"/v1/agents/{agent['id']}", json=change, headers=tenant.headers())
    assert_error(response, status, code)
    assert ok(await app_client.get(f"/v1/agents/{agent['id']}", headers=tenant.headers())) == agent


async def test_delete_agent_removes_it_with_its_versions(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    agent = await create_agent(app_client, tenant)
    version = await create_version(app_client, tenant, agent["id"])
    deleted = ok(await app_client.delete(f"/v1/agents/{agent['id']}", headers=tenant.headers()))
    assert deleted == {"id": agent["id"], "deleted": True}
    assert_error(await app_client.get(f"/v1/agents/{agent['id']}", headers=tenant.headers()), 404)
    assert_error(await app_client.get(f"/v1/agent-versions/{version['id']}", headers=tenant.headers()), 404)


async def test_delete_agent_with_an_enabled_binding_is_409(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    ids = await deployed(app_client, tenant)
    agent_id, binding_id = ids["agent"]["id"], ids["binding"]["id"]
    error = assert_error(
        await app_client.delete(f"/v1/agents/{agent_id}", headers=tenant.headers()),
        409,
        "AGENT_HAS_ENABLED_BINDINGS",
    )
    assert error["details"]["binding_ids"] == [binding_id]
    ok(await app_client.get(f"/v1/agents/{agent_id}", headers=tenant.headers()))


async def test_delete_agent_whose_bindings_are_disabled_removes_them_too(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    ids = await deployed(app_client, tenant, enabled=False)
    other_version = await create_version(app_client, tenant, ids["agent"]["id"])
    await create_binding(app_client, tenant, other_version["id"], enabled=False)
    ok(await app_client.delete(f"/v1/agents/{ids['agent']['id']}", headers=tenant.headers()))
    response = await app_client.get(f"/v1/agent-bindings/{ids['binding']['id']}", headers=tenant.headers())
    assert_error(response, 404)
    assert ok(await app_client.get("/v1/agent-bindings", headers=tenant.headers()))["total"] == 0


@pytest.mark.parametrize(
    ("method", "body"),
    [("GET", None), ("PATCH", {"name": "Mine now"}), ("DELETE", None)],
)
async def test_another_tenants_agent_is_404(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    other_tenant: TenantFixture,
    method: str,
    body: dict | None,
):
    theirs = await create_agent(app_client, other_tenant)
    response = await app_client.request(
        method, f"/v1/agents/{theirs['id']}", json=body, headers=tenant.headers()
    )
    assert_error(response, 404)
    assert ok(await app_client.get(f"/v1/agents/{theirs['id']}", headers=other_tenant.headers())) == theirs


async def test_agents_need_an_api_key(app_client: httpx.AsyncClient):
    assert_error(await app_client.get("/v1/agents"), 401, "INVALID_API_KEY")
