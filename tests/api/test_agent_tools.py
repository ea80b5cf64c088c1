"""The tool catalog: validated declarations, immutable records, one current record per slug."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from tests.api.agent_catalog_support import (
    assert_error,
    create_agent,
    create_tool,
    create_version,
    declaration,
    ok,
)
from tests.support.tenants import TenantFixture


async def test_create_tool_stores_the_normalized_declaration(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    body = {
        "slug": "find_slots",
        "name": "Find slots",
        "description": "Catalog text",
        "declaration": declaration(),
    }
    tool = ok(await app_client.post("/v1/agent-tools", json=body, headers=tenant.headers()), 201)
    assert tool["id"].startswith("tool_")
    assert (tool["slug"], tool["name"], tool["description"]) == ("find_slots", "Find slots", "Catalog text")
    assert (tool["revision"], tool["enabled"], tool["current"], tool["superseded_at"]) == (
        1,
        True,
        True,
        None,
    )
    stored = tool["declaration"]
    assert stored["request"]["timeout_ms"] == 10_000
    assert stored["response"]["max_items"] == 10
    assert stored["terminates_thread"] is False
    assert stored["errors"] == {"negocio": [], "infra": [], "semantic": {}}
    assert tool["warnings"] == []


async def test_always_infra_statuses_under_negocio_are_accepted_with_warnings(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    written = {**declaration(), "errors": {"negocio": [404, 429]}}
    body = {"slug": "find_slots", "name": "Find slots", "declaration": written}
    tool = ok(await app_client.post("/v1/agent-tools", json=body, headers=tenant.headers()), 201)
    assert tool["declaration"]["errors"] == {"negocio": [404, 429], "infra": [], "semantic": {}}
    [warning] = tool["warnings"]
    assert (warning["code"], warning["field"]) == ("NEGOCIO_ALWAYS_INFRA", "declaration.errors.negocio[1]")
    assert "429" in warning["message"] and "always infra" in warning["message"]
    # The warning belongs to the stored declaration, so every read shows it.
    assert ok(await app_client.get("/v1/agent-tools/find_slots", headers=tenant.headers())) == tool
    listed = ok(await app_client.get("/v1/agent-tools", headers=tenant.headers()))
    assert listed["data"][0]["warnings"] == tool["warnings"]

    patched_errors = {"negocio": {"401": "log in again", "503": "down", "409": "taken"}}
    patched = ok(
        await app_client.patch(
            "/v1/agent-tools/find_slots",
            json={"declaration": {**declaration(), "errors": patched_errors}},
            headers=tenant.headers(),
        )
    )
    assert patched["declaration"]["errors"]["negocio"] == patched_errors["negocio"]
    assert [w["field"] for w in patched["warnings"]] == [
        "declaration.errors.negocio.401",
        "declaration.errors.negocio.503",
    ]
    cleaned = ok(
        await app_client.patch(
            "/v1/agent-tools/find_slots", json={"declaration": declaration()}, headers=tenant.headers()
        )
    )
    assert cleaned["warnings"] == []


@pytest.mark.parametrize("slug", ["Find", "-lead", "has space", "a" * 65, "", "dot.ted", "ñ", "records"])
async def test_tool_slug_format_is_enforced(app_client: httpx.AsyncClient, tenant: TenantFixture, slug: str):
    body = {"slug": slug, "name": "x", "declaration": declaration()}
    response = await app_client.post("/v1/agent-tools", json=body, headers=tenant.headers())
    assert assert_error(response, 400)["details"]["field"] == "slug"


@pytest.mark.parametrize("slug", ["a", "book_visit", "book-visit-2", "9lives", "x" * 64])
async def test_valid_slugs_are_accepted(app_client: httpx.AsyncClient, tenant: TenantFixture, slug: str):
    assert (await create_tool(app_client, tenant, slug))["slug"] == slug


@pytest.mark.parametrize(
    ("request_overrides", "code", "field"),
    [
        ({"url": "https://{{input.date}}/slots"}, "ToolSecurityError", "declaration.request.url"),
        (
            {"auth": {"type": "bearer", "token": "{{input.date}}"}},
            "ToolSecurityError",
            "declaration.request.auth.token",
        ),
        ({"timeout_ms": 50}, "ToolDeclarationError", "declaration.request.timeout_ms"),
        ({"timeout_ms": 30_001}, "ToolDeclarationError", "declaration.request.timeout_ms"),
        ({"method": "TRACE"}, "ToolDeclarationError", "declaration.request.method"),
    ],
)
async def test_bad_declarations_are_422_naming_the_field(
    app_client: httpx.AsyncClient, tenant: TenantFixture, request_overrides: dict, code: str, field: str
):
    body = {"slug": "bad", "name": "x", "declaration": declaration(**request_overrides)}
    error = assert_error(
        await app_client.post("/v1/agent-tools", json=body, headers=tenant.headers()), 422, code
    )
    assert error["details"]["field"] == field
    assert_error(await app_client.get("/v1/agent-tools/bad", headers=tenant.headers()), 404)


@pytest.mark.parametrize("value", [None, "text", [], 3])
async def test_a_declaration_that_is_not_an_object_is_422(
    app_client: httpx.AsyncClient, tenant: TenantFixture, value: object
):
    body = {"slug": "bad", "name": "x", "declaration": value}
    error = assert_error(await app_client.post("/v1/agent-tools", json=body, headers=tenant.headers()), 422)
    assert error["details"]["field"] == "declaration"


async def test_duplicate_slug_is_409_but_other_tenants_may_use_it(
    app_client: httpx.AsyncClient, tenant: TenantFixture, other_tenant: TenantFixture
):
    await create_tool(app_client, tenant, "find_slots")
    body = {"slug": "find_slots", "name": "Again", "declaration": declaration()}
    response = await app_client.post("/v1/agent-tools", json=body, headers=tenant.headers())
    assert assert_error(response, 409, "TOOL_SLUG_TAKEN")["details"]["slug"] == "find_slots"
    assert (await create_tool(app_client, other_tenant, "find_slots"))["slug"] == "find_slots"


async def test_patch_creates_a_new_current_record_and_keeps_the_old_one(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    first = await create_tool(app_client, tenant, "find_slots")
    new_declaration = declaration(timeout_ms=2000)
    second = ok(
        await app_client.patch(
            "/v1/agent-tools/find_slots",
            json={"name": "Find free slots", "declaration": new_declaration},
            headers=tenant.headers(),
        )
    )
    assert second["id"] != first["id"]
    assert (second["slug"], second["revision"], second["current"]) == ("find_slots", 2, True)
    assert second["name"] == "Find free slots"
    assert second["description"] == first["description"]
    assert second["declaration"]["request"]["timeout_ms"] == 2000

    current = ok(await app_client.get("/v1/agent-tools/find_slots", headers=tenant.headers()))
    assert current == second
    old = ok(await app_client.get(f"/v1/agent-tools/records/{first['id']}", headers=tenant.headers()))
    assert old["current"] is False and old["superseded_at"] is not None
    assert {k: old[k] for k in ("name", "declaration", "revision")} == {
        k: first[k] for k in ("name", "declaration", "revision")
    }
    history = ok(await app_client.get("/v1/agent-tools/find_slots/records", headers=tenant.headers()))
    assert [r["id"] for r in history["data"]] == [second["id"], first["id"]]
    listed = ok(await app_client.get("/v1/agent-tools", headers=tenant.headers()))
    assert [t["id"] for t in listed["data"]] == [second["id"]]


async def test_patch_enabled_false_disables_the_tool(app_client: httpx.AsyncClient, tenant: TenantFixture):
    first = await create_tool(app_client, tenant, "find_slots")
    disabled = ok(
        await app_client.patch(
            "/v1/agent-tools/find_slots", json={"enabled": False}, headers=tenant.headers()
        )
    )
    assert (disabled["enabled"], disabled["revision"]) == (False, 2)
    assert disabled["declaration"] == first["declaration"]
    enabled_only = ok(await app_client.get("/v1/agent-tools?enabled=true", headers=tenant.headers()))
    assert enabled_only["data"] == []
    disabled_only = ok(await app_client.get("/v1/agent-tools?enabled=false", headers=tenant.headers()))
    assert [t["id"] for t in disabled_only["data"]] == [disabled["id"]]


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"declaration": declaration(timeout_ms=5)}, 422),
        ({}, 400),
        ({"slug": "renamed"}, 400),
        ({"name": None}, 400),
    ],
)
async def test_a_rejected_patch_leaves_the_current_record(
    app_client: httpx.AsyncClient, tenant: TenantFixture, body: dict, status: int
):
    first = await create_tool(app_client, tenant, "find_slots")
    assert_error(
        await app_client.patch("/v1/agent-tools/find_slots", json=body, headers=tenant.headers()), status
    )
    assert ok(await app_client.get("/v1/agent-tools/find_slots", headers=tenant.headers())) == first


async def test_delete_tool_referenced_by_a_version_is_409(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    tool = await create_tool(app_client, tenant, "find_slots")
    agent = await create_agent(app_client, tenant)
    version = await create_version(app_client, tenant, agent["id"], tools=["find_slots"])
    error = assert_error(
        await app_client.delete("/v1/agent-tools/find_slots", headers=tenant.headers()), 409, "TOOL_IN_USE"
    )
    assert error["details"]["agent_version_ids"] == [version["id"]]
    ok(await app_client.delete(f"/v1/agent-versions/{version['id']}", headers=tenant.headers()))
    deleted = ok(await app_client.delete("/v1/agent-tools/find_slots", headers=tenant.headers()))
    assert deleted == {"slug": "find_slots", "deleted": True}
    assert_error(await app_client.get(f"/v1/agent-tools/records/{tool['id']}", headers=tenant.headers()), 404)
    again = await create_tool(app_client, tenant, "find_slots")
    assert again["revision"] == 1


async def test_a_superseded_record_still_counts_as_referenced(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    await create_tool(app_client, tenant, "find_slots")
    agent = await create_agent(app_client, tenant)
    await create_version(app_client, tenant, agent["id"], tools=["find_slots"])
    ok(await app_client.patch("/v1/agent-tools/find_slots", json={"name": "v2"}, headers=tenant.headers()))
    assert_error(
        await app_client.delete("/v1/agent-tools/find_slots", headers=tenant.headers()), 409, "TOOL_IN_USE"
    )


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/v1/agent-tools/shared", None),
        ("GET", "/v1/agent-tools/shared/records", None),
        ("GET", "/v1/agent-tools/records/{id}", None),
        ("PATCH", "/v1/agent-tools/shared", {"name": "hijack"}),
        ("DELETE", "/v1/agent-tools/shared", None),
    ],
)
async def test_another_tenants_tool_is_404(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    other_tenant: TenantFixture,
    method: str,
    path: str,
    body: dict | None,
):
    theirs = await create_tool(app_client, other_tenant, "shared")
    response = await app_client.request(
        method, path.format(id=theirs["id"]), json=body, headers=tenant.headers()
    )
    assert_error(response, 404)
    assert ok(await app_client.get("/v1/agent-tools/shared", headers=other_tenant.headers())) == theirs


async def test_tool_list_is_scoped_and_sorted_by_slug(
    app_client: httpx.AsyncClient, tenant: TenantFixture, other_tenant: TenantFixture
):
    for slug in ("zeta", "alpha", "mid"):
        await create_tool(app_client, tenant, slug)
    await create_tool(app_client, other_tenant, "beta")
    listed = ok(await app_client.get("/v1/agent-tools", headers=tenant.headers()))
    assert [t["slug"] for t in listed["data"]] == ["alpha", "mid", "zeta"]
    assert listed["total"] == 3


async def test_concurrent_edits_each_make_one_record_and_one_stays_current(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    await create_tool(app_client, tenant, "find_slots")
    responses = await asyncio.gather(
        *(
            app_client.patch(
                "/v1/agent-tools/find_slots", json={"name": f"edit {i}"}, headers=tenant.headers()
            )
            for i in range(4)
        )
    )
    assert [r.status_code for r in responses] == [200] * 4
    assert sorted(r.json()["revision"] for r in responses) == [2, 3, 4, 5]
    history = ok(await app_client.get("/v1/agent-tools/find_slots/records", headers=tenant.headers()))
    assert [r["current"] for r in history["data"]] == [True, False, False, False, False]


async def test_concurrent_creations_of_one_slug_give_one_tool(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    body = {"slug": "find_slots", "name": "x", "declaration": declaration()}
    responses = await asyncio.gather(
        *(app_client.post("/v1/agent-tools", json=body, headers=tenant.headers()) for _ in range(4))
    )
    assert sorted(r.status_code for r in responses) == [201, 409, 409, 409]
    assert ok(await app_client.get("/v1/agent-tools", headers=tenant.headers()))["total"] == 1
