"""A binding's base URL: the spec's params.base_url or the top-level sugar, one stored value, and a
binding whose version's tools call {{binding.base_url}} is refused without one."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from sqlalchemy import update

from switchboard.models.agents import AgentBinding
from switchboard.settings import Settings
from tests.api.agent_catalog_support import (
    assert_error,
    create_agent,
    create_binding,
    create_tool,
    create_version,
    ok,
)
from tests.support.inbound import db
from tests.support.tenants import TenantFixture

URL = "https://clinic.example/api"


async def _versions(
    client: httpx.AsyncClient, tenant: TenantFixture
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A version whose one tool calls {{binding.base_url}}, and one of the same agent without tools."""
    tool = await create_tool(client, tenant)
    agent = await create_agent(client, tenant)
    with_tool = await create_version(client, tenant, agent["id"], tools=[tool["slug"]])
    without = await create_version(client, tenant, agent["id"])
    return with_tool, without


def _body(version_id: str, **fields: Any) -> dict[str, Any]:
    return {"name": "b", "agent_version_id": version_id, "scope": "tenant", **fields}


async def _get(client: httpx.AsyncClient, tenant: TenantFixture, binding_id: str) -> dict[str, Any]:
    return ok(await client.get(f"/v1/agent-bindings/{binding_id}", headers=tenant.headers()))


async def _patch(
    client: httpx.AsyncClient, tenant: TenantFixture, binding_id: str, change: dict[str, Any]
) -> httpx.Response:
    return await client.patch(f"/v1/agent-bindings/{binding_id}", json=change, headers=tenant.headers())


async def test_a_spec_style_binding_sets_params_base_url_and_reads_it_back(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    version, _ = await _versions(app_client, tenant)
    params = {"base_url": URL + "/", "clinic_id": "norte"}
    binding = await create_binding(app_client, tenant, version["id"], params=params)
    assert binding["params"] == {"base_url": URL, "clinic_id": "norte"}
    assert binding["base_url"] == URL
    assert "base_url" not in binding["effective_params"]
    assert await _get(app_client, tenant, binding["id"]) == binding


@pytest.mark.parametrize(
    "fields",
    [
        {"base_url": URL, "params": {"base_url": URL}},
        {"base_url": URL + "/", "params": {"base_url": URL}},
        {"base_url": None, "params": {"base_url": URL}},
        {"base_url": URL, "params": {"base_url": None}},
    ],
)
async def test_both_fields_with_one_value_are_accepted(
    app_client: httpx.AsyncClient, tenant: TenantFixture, fields: dict[str, Any]
):
    version, _ = await _versions(app_client, tenant)
    binding = await create_binding(app_client, tenant, version["id"], **fields)
    assert (binding["base_url"], binding["params"]) == (URL, {"base_url": URL})


async def test_both_fields_with_different_values_are_400_naming_both(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    version, _ = await _versions(app_client, tenant)
    body = _body(version["id"], base_url=URL, params={"base_url": "https://other.example"})
    error = assert_error(
        await app_client.post("/v1/agent-bindings", json=body, headers=tenant.headers()),
        400,
        "VALIDATION_FAILED",
    )
    assert error["details"] == {"field": "base_url", "fields": ["base_url", "params.base_url"]}
    assert "base_url" in error["message"] and "params.base_url" in error["message"]
    assert ok(await app_client.get("/v1/agent-bindings", headers=tenant.headers()))["total"] == 0


@pytest.mark.parametrize(
    "value",
    [
        "ftp://x.example",
        "https://x.example/?q=1",
        "https://x.example/#top",
        "https://user:pw@x.example",
        "/relative/path",
        "x.example",
        5,
        True,
        {"url": URL},
    ],
)
async def test_params_base_url_is_checked_like_the_top_level_one(
    app_client: httpx.AsyncClient, tenant: TenantFixture, value: Any
):
    version, _ = await _versions(app_client, tenant)
    for fields, field in (
        ({"params": {"base_url": value}}, "params.base_url"),
        ({"base_url": value}, "base_url"),
    ):
        body = _body(version["id"], **fields)
        error = assert_error(
            await app_client.post("/v1/agent-bindings", json=body, headers=tenant.headers()),
            400,
            "VALIDATION_FAILED",
        )
        assert error["details"]["field"] == field


async def test_a_version_whose_tools_call_the_base_url_needs_one(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    version, without_tools = await _versions(app_client, tenant)
    for params in ({}, {"base_url": None}):
        body = _body(version["id"], params=params)
        error = assert_error(
            await app_client.post("/v1/agent-bindings", json=body, headers=tenant.headers()),
            422,
            "BASE_URL_REQUIRED",
        )
        assert error["details"] == {
            "field": "params.base_url",
            "tools": version["tools"],
            "agent_version_id": version["id"],
        }
    assert ok(await app_client.get("/v1/agent-bindings", headers=tenant.headers()))["total"] == 0
    # A version without tools needs none.
    binding = await create_binding(app_client, tenant, without_tools["id"])
    assert (binding["base_url"], binding["params"]) == (None, {})


async def test_patch_of_params_without_base_url_keeps_it_and_params_base_url_changes_it(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    version, _ = await _versions(app_client, tenant)
    binding = await create_binding(app_client, tenant, version["id"], params={"base_url": URL, "a": 1})
    kept = ok(await _patch(app_client, tenant, binding["id"], {"params": {"b": 2}}))
    assert (kept["base_url"], kept["params"]) == (URL, {"base_url": URL, "b": 2})
    moved = ok(
        await _patch(app_client, tenant, binding["id"], {"params": {"base_url": "https://new.example/"}})
    )
    assert (moved["base_url"], moved["params"]) == (
        "https://new.example",
        {"base_url": "https://new.example"},
    )
    sugar = ok(await _patch(app_client, tenant, binding["id"], {"base_url": URL}))
    assert (sugar["base_url"], sugar["params"]) == (URL, {"base_url": URL})
    assert await _get(app_client, tenant, binding["id"]) == sugar


@pytest.mark.parametrize(
    "change",
    [
        {"base_url": None},
        {"params": {"base_url": None}},
        {"base_url": None, "params": {"base_url": None}},
    ],
)
async def test_patch_null_clears_the_base_url_unless_the_tools_need_it(
    app_client: httpx.AsyncClient, tenant: TenantFixture, change: dict[str, Any]
):
    version, without_tools = await _versions(app_client, tenant)
    binding = await create_binding(app_client, tenant, version["id"], base_url=URL)
    error = assert_error(await _patch(app_client, tenant, binding["id"], change), 422, "BASE_URL_REQUIRED")
    assert error["details"]["field"] == "params.base_url"
    assert await _get(app_client, tenant, binding["id"]) == binding
    toolless = await create_binding(app_client, tenant, without_tools["id"], base_url=URL)
    cleared = ok(await _patch(app_client, tenant, toolless["id"], change))
    assert (cleared["base_url"], cleared["params"]) == (None, {})


@pytest.mark.parametrize(
    "change",
    [
        {"base_url": URL, "params": {"base_url": "https://other.example"}},
        {"base_url": None, "params": {"base_url": URL}},
        {"base_url": URL, "params": {"base_url": None}},
    ],
)
async def test_patch_with_both_fields_disagreeing_is_400(
    app_client: httpx.AsyncClient, tenant: TenantFixture, change: dict[str, Any]
):
    version, _ = await _versions(app_client, tenant)
    binding = await create_binding(app_client, tenant, version["id"], base_url="https://first.example")
    error = assert_error(await _patch(app_client, tenant, binding["id"], change), 400, "VALIDATION_FAILED")
    assert error["details"]["fields"] == ["base_url", "params.base_url"]
    assert await _get(app_client, tenant, binding["id"]) == binding


async def test_moving_a_binding_without_base_url_to_a_version_with_tools_is_422(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    version, without_tools = await _versions(app_client, tenant)
    binding = await create_binding(app_client, tenant, without_tools["id"])
    error = assert_error(
        await _patch(app_client, tenant, binding["id"], {"agent_version_id": version["id"]}),
        422,
        "BASE_URL_REQUIRED",
    )
    assert error["details"]["agent_version_id"] == version["id"]
    moved = ok(
        await _patch(
            app_client,
            tenant,
            binding["id"],
            {"agent_version_id": version["id"], "params": {"base_url": URL}},
        )
    )
    assert (moved["agent_version_id"], moved["base_url"]) == (version["id"], URL)


async def test_a_binding_from_before_the_rule_can_be_renamed_or_disabled_but_not_redeployed(
    app_client: httpx.AsyncClient, tenant: TenantFixture, settings: Settings
):
    version, _ = await _versions(app_client, tenant)
    binding = await create_binding(app_client, tenant, version["id"], base_url=URL)
    async with db(settings) as session:
        await session.execute(
            update(AgentBinding).where(AgentBinding.id == binding["id"]).values(base_url=None)
        )
    for change in ({"name": "Renamed"}, {"enabled": False}, {"reglas": {"Tono": "formal"}}):
        ok(await _patch(app_client, tenant, binding["id"], change))
    for change in ({"params": {}}, {"agent_version_id": version["id"]}):
        assert_error(await _patch(app_client, tenant, binding["id"], change), 422, "BASE_URL_REQUIRED")
