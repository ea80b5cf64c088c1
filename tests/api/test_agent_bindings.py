"""Agent bindings: scopes and their targets, params, PATCH, list filters, tenant isolation."""

from __future__ import annotations

import httpx
import pytest

from tests.api.agent_catalog_support import (
    add_customer,
    add_phone,
    assert_error,
    create_agent,
    create_binding,
    create_tool,
    create_version,
    deployed,
    ok,
)
from tests.support.tenants import TenantFixture

DEFAULT_EFFECTIVE = {
    "wizardEnabled": False,
    "wizardReserveToolSlug": None,
    "catchAllAction": "escalate",
    "capConversacion": 20,
    "inactiveResetDays": 3,
    "inactiveResetDaysSource": "environment",
}

PEDIR_TURNO = {"intents": [{"name": "pedir_turno", "description": "book an appointment"}]}


async def _version(client: httpx.AsyncClient, tenant: TenantFixture, **fields: object) -> dict:
    agent = await create_agent(client, tenant)
    return await create_version(client, tenant, agent["id"], **fields)


async def test_create_binding_returns_it_with_has_secrets(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    version = await _version(app_client, tenant)
    body = {
        "name": "Main line",
        "agent_version_id": version["id"],
        "scope": "tenant",
        "base_url": "https://clinic.example/api/",
        "reglas": {"Horarios": "Lunes a viernes 9 a 18"},
    }
    binding = ok(await app_client.post("/v1/agent-bindings", json=body, headers=tenant.headers()), 201)
    assert binding["id"].startswith("agb_")
    assert (binding["name"], binding["scope"], binding["agent_version_id"]) == (
        "Main line",
        "tenant",
        version["id"],
    )
    assert binding["agent_id"] == version["agent_id"]
    assert binding["base_url"] == "https://clinic.example/api"
    assert (binding["customer_id"], binding["phone_number_id"]) == (None, None)
    # One stored value, read in both places (the spec's params.base_url and the top-level sugar).
    assert (binding["params"], binding["reglas"]) == ({"base_url": binding["base_url"]}, body["reglas"])
    assert (binding["enabled"], binding["has_secrets"], binding["secret_names"]) == (True, False, [])
    assert binding["effective_params"] == DEFAULT_EFFECTIVE
    assert "secrets_encrypted" not in binding and "secrets" not in binding
    assert (
        ok(await app_client.get(f"/v1/agent-bindings/{binding['id']}", headers=tenant.headers())) == binding
    )


async def test_customer_scope_names_its_customer(app_client: httpx.AsyncClient, tenant: TenantFixture):
    version = await _version(app_client, tenant)
    binding = await create_binding(
        app_client, tenant, version["id"], scope="customer", customer_id=tenant.customer_id
    )
    assert (binding["scope"], binding["customer_id"], binding["phone_number_id"]) == (
        "customer",
        tenant.customer_id,
        None,
    )


@pytest.mark.parametrize("reference", ["channel", "public"])
async def test_phone_scope_takes_the_channel_id_or_the_public_id(
    app_client: httpx.AsyncClient, tenant: TenantFixture, reference: str
):
    version = await _version(app_client, tenant)
    phone = tenant.phone_number_id if reference == "channel" else tenant.phone_id
    binding = await create_binding(
        app_client, tenant, version["id"], scope="phone_number", phone_number_id=phone
    )
    assert binding["phone_number_id"] == tenant.phone_number_id
    assert binding["customer_id"] is None


async def test_phone_scope_with_the_phones_own_customer_is_accepted(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    version = await _version(app_client, tenant)
    binding = await create_binding(
        app_client,
        tenant,
        version["id"],
        scope="phone_number",
        phone_number_id=tenant.phone_number_id,
        customer_id=tenant.customer_id,
    )
    assert binding["customer_id"] == tenant.customer_id


async def test_phone_scope_with_another_customers_phone_is_409(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    version = await _version(app_client, tenant)
    second_customer = await add_customer(app_client, tenant)
    body = {
        "name": "b",
        "agent_version_id": version["id"],
        "scope": "phone_number",
        "phone_number_id": tenant.phone_number_id,
        "customer_id": second_customer,
    }
    error = assert_error(
        await app_client.post("/v1/agent-bindings", json=body, headers=tenant.headers()),
        409,
        "PHONE_NUMBER_CUSTOMER_MISMATCH",
    )
    assert error["details"]["phone_customer_id"] == tenant.customer_id
    unassigned = await add_phone(app_client, tenant, "700000000001")
    body["phone_number_id"] = unassigned["phone_number_id"]
    assert_error(await app_client.post("/v1/agent-bindings", json=body, headers=tenant.headers()), 409)
    assert ok(await app_client.get("/v1/agent-bindings", headers=tenant.headers()))["total"] == 0


@pytest.mark.parametrize(
    ("fields", "status", "code", "field"),
    [
        ({"scope": "customer"}, 400, "MISSING_REQUIRED_FIELD", "customer_id"),
        ({"scope": "phone_number"}, 400, "MISSING_REQUIRED_FIELD", "phone_number_id"),
        ({"scope": "tenant", "phone_number_id": "{phone}"}, 400, "VALIDATION_FAILED", "phone_number_id"),
        ({"scope": "tenant", "customer_id": "{customer}"}, 400, "VALIDATION_FAILED", "customer_id"),
        (
            {"scope": "customer", "customer_id": "{customer}", "phone_number_id": "{phone}"},
            400,
            None,
            "phone_number_id",
        ),
        ({"scope": "global"}, 400, "VALIDATION_FAILED", "scope"),
        ({"scope": "tenant", "base_url": "ftp://x.example"}, 400, "VALIDATION_FAILED", "base_url"),
        ({"scope": "tenant", "base_url": "https://x.example/?q=1"}, 400, "VALIDATION_FAILED", "base_url"),
        ({"scope": "tenant", "reglas": ["not", "an", "object"]}, 400, "VALIDATION_FAILED", "reglas"),
        ({"scope": "tenant", "secrets": {"a": "b"}}, 400, "VALIDATION_FAILED", "secrets"),
    ],
)
async def test_scope_targets_are_checked(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    fields: dict,
    status: int,
    code: str | None,
    field: str,
):
    version = await _version(app_client, tenant)
    fills = {"{phone}": tenant.phone_number_id, "{customer}": tenant.customer_id}
    filled = {k: fills.get(v, v) if isinstance(v, str) else v for k, v in fields.items()}
    body = {"name": "b", "agent_version_id": version["id"], **filled}
    error = assert_error(
        await app_client.post("/v1/agent-bindings", json=body, headers=tenant.headers()), status, code
    )
    assert error["details"]["field"] == field


@pytest.mark.parametrize(
    "fields",
    [
        {"agent_version_id": "{version}"},
        {"scope": "customer", "customer_id": "{customer}"},
        {"scope": "phone_number", "phone_number_id": "{phone}"},
        {"scope": "phone_number", "phone_number_id": "{public_phone}"},
        {"scope": "phone_number", "phone_number_id": "123"},
    ],
)
async def test_another_tenants_version_customer_or_phone_is_404(
    app_client: httpx.AsyncClient, tenant: TenantFixture, other_tenant: TenantFixture, fields: dict
):
    mine = await _version(app_client, tenant)
    theirs = await _version(app_client, other_tenant)
    fills = {
        "{version}": theirs["id"],
        "{customer}": other_tenant.customer_id,
        "{phone}": other_tenant.phone_number_id,
        "{public_phone}": other_tenant.phone_id,
    }
    body = {"name": "b", "agent_version_id": mine["id"], "scope": "tenant"}
    body.update({k: fills.get(v, v) for k, v in fields.items()})
    assert_error(await app_client.post("/v1/agent-bindings", json=body, headers=tenant.headers()), 404)


async def test_params_keep_unknown_keys_and_report_effective_values(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    await create_tool(app_client, tenant, "reserve")
    version = await _version(
        app_client, tenant, tools=["reserve"], guardrails_config={"capConversacion": 12}, routing=PEDIR_TURNO
    )
    params = {
        "wizardEnabled": True,
        "wizardReserveToolSlug": "reserve",
        "catchAllAction": "respond",
        "inactiveResetDays": 0,
        "clinic_id": "c-42",
        "capConversacion": None,
    }
    binding = await create_binding(
        app_client, tenant, version["id"], params=params, base_url="https://c.example"
    )
    assert binding["params"] == {
        **{k: v for k, v in params.items() if k != "capConversacion"},
        "base_url": "https://c.example",
    }
    assert binding["effective_params"] == {
        "wizardEnabled": True,
        "wizardReserveToolSlug": "reserve",
        "catchAllAction": "respond",
        "capConversacion": 12,
        "inactiveResetDays": 0,
        "inactiveResetDaysSource": "binding",
    }
    overridden = await create_binding(
        app_client, tenant, version["id"], params={"capConversacion": 40, "base_url": "https://c.example"}
    )
    assert overridden["effective_params"]["capConversacion"] == 40


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"wizardEnabled": "yes"}, "params.wizardEnabled"),
        ({"wizardEnabled": 1}, "params.wizardEnabled"),
        ({"catchAllAction": "ignore"}, "params.catchAllAction"),
        ({"capConversacion": "20"}, "params.capConversacion"),
        ({"capConversacion": 0}, "params.capConversacion"),
        ({"inactiveResetDays": -1}, "params.inactiveResetDays"),
        ({"inactiveResetDays": 1.5}, "params.inactiveResetDays"),
        ({"wizardReserveToolSlug": 5}, "params.wizardReserveToolSlug"),
        ({"wizardEnabled": True}, "params.wizardReserveToolSlug"),
        ("not an object", "params"),
    ],
)
async def test_documented_params_are_type_checked(
    app_client: httpx.AsyncClient, tenant: TenantFixture, params: object, field: str
):
    version = await _version(app_client, tenant)
    body = {"name": "b", "agent_version_id": version["id"], "scope": "tenant", "params": params}
    error = assert_error(
        await app_client.post("/v1/agent-bindings", json=body, headers=tenant.headers()), 400
    )
    assert error["details"]["field"] == field


async def test_wizard_tool_must_be_one_of_the_versions_tools(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    await create_tool(app_client, tenant, "reserve")
    version = await _version(app_client, tenant)
    body = {
        "name": "b",
        "agent_version_id": version["id"],
        "scope": "tenant",
        "params": {"wizardEnabled": True, "wizardReserveToolSlug": "reserve"},
    }
    error = assert_error(
        await app_client.post("/v1/agent-bindings", json=body, headers=tenant.headers()), 422, "UNKNOWN_TOOL"
    )
    assert error["details"]["field"] == "params.wizardReserveToolSlug"


async def test_wizard_needs_a_pedir_turno_intent(app_client: httpx.AsyncClient, tenant: TenantFixture):
    await create_tool(app_client, tenant, "reserve")
    version = await _version(
        app_client, tenant, tools=["reserve"], routing={"intents": [{"name": "precios"}]}
    )
    body = {
        "name": "b",
        "agent_version_id": version["id"],
        "scope": "tenant",
        "params": {"wizardEnabled": True, "wizardReserveToolSlug": "reserve"},
    }
    error = assert_error(
        await app_client.post("/v1/agent-bindings", json=body, headers=tenant.headers()),
        422,
        "WIZARD_WITHOUT_INTENT",
    )
    assert error["details"] == {"field": "params.wizardEnabled", "intents": ["precios"]}


async def test_patch_binding_changes_version_params_reglas_enabled_and_name(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    ids = await deployed(app_client, tenant, params={"clinic_id": "a"}, reglas={"Tono": "formal"})
    binding = ids["binding"]
    other_agent = await create_agent(app_client, tenant)
    v2 = await create_version(app_client, tenant, other_agent["id"], guardrails_config={"capConversacion": 9})
    change = {
        "agent_version_id": v2["id"],
        "params": {"catchAllAction": "respond"},
        "reglas": {"Precios": "consultar"},
        "enabled": False,
        "name": "Renamed",
        "base_url": "http://127.0.0.1:9000",
    }
    updated = ok(
        await app_client.patch(f"/v1/agent-bindings/{binding['id']}", json=change, headers=tenant.headers())
    )
    assert {k: updated[k] for k in change} == {
        **change,
        "params": {**change["params"], "base_url": change["base_url"]},
    }
    assert updated["agent_id"] == other_agent["id"]
    assert updated["effective_params"]["capConversacion"] == 9
    assert (updated["scope"], updated["created_at"]) == (binding["scope"], binding["created_at"])
    assert (
        ok(await app_client.get(f"/v1/agent-bindings/{binding['id']}", headers=tenant.headers())) == updated
    )


@pytest.mark.parametrize(
    ("change", "status"),
    [
        ({"scope": "customer"}, 400),
        ({"phone_number_id": "1"}, 400),
        ({}, 400),
        ({"enabled": None}, 400),
        ({"params": {"capConversacion": -3}}, 400),
        ({"params": {"wizardEnabled": True, "wizardReserveToolSlug": "not_in_version"}}, 422),
        ({"agent_version_id": "agv_missing"}, 404),
    ],
)
async def test_rejected_binding_patches_change_nothing(
    app_client: httpx.AsyncClient, tenant: TenantFixture, change: dict, status: int
):
    binding = (await deployed(app_client, tenant))["binding"]
    response = await app_client.patch(
        f"/v1/agent-bindings/{binding['id']}", json=change, headers=tenant.headers()
    )
    assert_error(response, status)
    assert (
        ok(await app_client.get(f"/v1/agent-bindings/{binding['id']}", headers=tenant.headers())) == binding
    )


async def test_patch_to_another_tenants_version_is_404(
    app_client: httpx.AsyncClient, tenant: TenantFixture, other_tenant: TenantFixture
):
    binding = (await deployed(app_client, tenant))["binding"]
    theirs = await _version(app_client, other_tenant)
    response = await app_client.patch(
        f"/v1/agent-bindings/{binding['id']}",
        json={"agent_version_id": theirs["id"]},
        headers=tenant.headers(),
    )
    assert_error(response, 404)


async def test_list_bindings_filters_by_scope_and_enabled(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    version = await _version(app_client, tenant)
    tenant_wide = await create_binding(app_client, tenant, version["id"])
    by_customer = await create_binding(
        app_client, tenant, version["id"], scope="customer", customer_id=tenant.customer_id, enabled=False
    )
    by_phone = await create_binding(
        app_client, tenant, version["id"], scope="phone_number", phone_number_id=tenant.phone_number_id
    )
    cases = [
        ("", [tenant_wide, by_customer, by_phone]),
        ("?scope=customer", [by_customer]),
        ("?scope=phone_number&enabled=true", [by_phone]),
        ("?enabled=false", [by_customer]),
        (f"?agent_version_id={version['id']}&per_page=1", [tenant_wide]),
        ("?agent_id=agt_none", []),
    ]
    for query, expected in cases:
        listed = ok(await app_client.get(f"/v1/agent-bindings{query}", headers=tenant.headers()))
        assert [b["id"] for b in listed["data"]] == [b["id"] for b in expected], query
    assert_error(await app_client.get("/v1/agent-bindings?scope=planet", headers=tenant.headers()), 400)


async def test_delete_binding(app_client: httpx.AsyncClient, tenant: TenantFixture):
    binding = (await deployed(app_client, tenant))["binding"]
    deleted = ok(await app_client.delete(f"/v1/agent-bindings/{binding['id']}", headers=tenant.headers()))
    assert deleted == {"id": binding["id"], "deleted": True}
    assert_error(await app_client.get(f"/v1/agent-bindings/{binding['id']}", headers=tenant.headers()), 404)
    assert_error(
        await app_client.delete(f"/v1/agent-bindings/{binding['id']}", headers=tenant.headers()), 404
    )


@pytest.mark.parametrize(("method", "body"), [("GET", None), ("PATCH", {"enabled": False}), ("DELETE", None)])
async def test_another_tenants_binding_is_404(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    other_tenant: TenantFixture,
    method: str,
    body: dict | None,
):
    theirs = (await deployed(app_client, other_tenant))["binding"]
    response = await app_client.request(
        method, f"/v1/agent-bindings/{theirs['id']}", json=body, headers=tenant.headers()
    )
    assert_error(response, 404)
    assert ok(await app_client.get("/v1/agent-bindings", headers=tenant.headers()))["total"] == 0
    assert (
        ok(await app_client.get(f"/v1/agent-bindings/{theirs['id']}", headers=other_tenant.headers()))
        == theirs
    )
