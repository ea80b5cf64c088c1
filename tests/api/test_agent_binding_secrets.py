"""Binding secrets: operator plus owner/admin write, sealed at rest, never returned, never logged."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import httpx
import pytest
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession

from switchboard.domain.secrets_box import SecretDecryptionError
from switchboard.models.agents import AgentBinding
from switchboard.settings import Settings
from switchboard.store.agents import load_binding_secrets
from switchboard.store.database import create_engine, session_factory, unit_of_work
from tests.api.agent_catalog_support import ADMIN, assert_error, deployed, ok
from tests.conftest import ADMIN_KEY
from tests.support.tenants import TenantFixture

SECRET_VALUES = {"api_token": "tok-4f9b2c71d0e8", "client-secret": "cs-a8e7d6c5b4"}


@pytest.fixture
async def db(settings: Settings) -> AsyncIterator[AsyncSession]:
    """A session on the test's database, for what the API never shows."""
    engine = create_engine(settings.database_url)
    async with unit_of_work(session_factory(engine)) as session:
        yield session
    await engine.dispose()


def _headers(
    tenant: TenantFixture, *, key: str | None = None, admin: str | None = ADMIN_KEY
) -> dict[str, str]:
    headers = tenant.headers(key)
    if admin is not None:
        headers["X-Admin-Key"] = admin
    return headers


def _secrets_path(binding_id: str) -> str:
    return f"/v1/admin/agent-bindings/{binding_id}/secrets"


def _assert_no_secret(text: str) -> None:
    for value in SECRET_VALUES.values():
        assert value not in text


async def test_secrets_are_stored_sealed_and_never_returned(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    settings: Settings,
    db: AsyncSession,
    caplog: pytest.LogCaptureFixture,
):
    caplog.set_level(logging.DEBUG)
    binding = (await deployed(app_client, tenant))["binding"]
    response = await app_client.post(
        _secrets_path(binding["id"]), json={"secrets": SECRET_VALUES}, headers=_headers(tenant)
    )
    answer = ok(response)
    assert answer == {
        "binding_id": binding["id"],
        "has_secrets": True,
        "secret_names": ["api_token", "client-secret"],
    }
    _assert_no_secret(response.text)

    responses = [
        await app_client.get(f"/v1/agent-bindings/{binding['id']}", headers=tenant.headers()),
        await app_client.get("/v1/agent-bindings", headers=tenant.headers()),
        await app_client.patch(
            f"/v1/agent-bindings/{binding['id']}", json={"name": "n"}, headers=tenant.headers()
        ),
    ]
    for each in responses:
        _assert_no_secret(each.text)
        assert "secrets_encrypted" not in each.text
    fetched = responses[0].json()
    assert (fetched["has_secrets"], fetched["secret_names"]) == (True, ["api_token", "client-secret"])
    _assert_no_secret(caplog.text)

    row = await db.get(AgentBinding, binding["id"])
    assert row is not None and set(row.secrets_encrypted) == set(SECRET_VALUES)
    for value in row.secrets_encrypted.values():
        assert value not in SECRET_VALUES.values()
    assert (
        await load_binding_secrets(db, tenant.id, binding["id"], settings.secrets_key_bytes) == SECRET_VALUES
    )


async def test_posting_again_replaces_the_whole_set(
    app_client: httpx.AsyncClient, tenant: TenantFixture, settings: Settings, db: AsyncSession
):
    binding = (await deployed(app_client, tenant))["binding"]
    path = _secrets_path(binding["id"])
    ok(await app_client.post(path, json={"secrets": SECRET_VALUES}, headers=_headers(tenant)))
    first = (await db.get(AgentBinding, binding["id"])).secrets_encrypted  # type: ignore[union-attr]
    db.expunge_all()
    second = ok(
        await app_client.post(path, json={"secrets": {"api_token": "tok-new"}}, headers=_headers(tenant))
    )
    assert second["secret_names"] == ["api_token"]
    sealed = (await db.get(AgentBinding, binding["id"])).secrets_encrypted  # type: ignore[union-attr]
    assert sealed["api_token"] != first["api_token"]
    assert await load_binding_secrets(db, tenant.id, binding["id"], settings.secrets_key_bytes) == {
        "api_token": "tok-new"
    }
    cleared = ok(await app_client.post(path, json={"secrets": {}}, headers=_headers(tenant)))
    assert cleared == {"binding_id": binding["id"], "has_secrets": False, "secret_names": []}
    fetched = ok(await app_client.get(f"/v1/agent-bindings/{binding['id']}", headers=tenant.headers()))
    assert fetched["has_secrets"] is False


async def test_a_sealed_value_copied_to_another_binding_does_not_open(
    app_client: httpx.AsyncClient, tenant: TenantFixture, settings: Settings, db: AsyncSession
):
    first = (await deployed(app_client, tenant))["binding"]
    second = (await deployed(app_client, tenant))["binding"]
    ok(
        await app_client.post(
            _secrets_path(first["id"]), json={"secrets": SECRET_VALUES}, headers=_headers(tenant)
        )
    )
    stolen = (await db.get(AgentBinding, first["id"])).secrets_encrypted  # type: ignore[union-attr]
    await db.execute(
        update(AgentBinding).where(AgentBinding.id == second["id"]).values(secrets_encrypted=stolen)
    )
    with pytest.raises(SecretDecryptionError):
        await load_binding_secrets(db, tenant.id, second["id"], settings.secrets_key_bytes)


@pytest.mark.parametrize(
    ("headers", "status", "code"),
    [
        ({"admin": None}, 401, "INVALID_ADMIN_KEY"),
        ({"admin": "adm_wrong_" + "x" * 20}, 401, "INVALID_ADMIN_KEY"),
        ({"key": "member"}, 403, "ROLE_FORBIDDEN"),
        ({"key": "none"}, 401, "INVALID_API_KEY"),
    ],
)
async def test_secrets_need_the_admin_key_and_an_owner_or_admin_api_key(
    app_client: httpx.AsyncClient, tenant: TenantFixture, headers: dict, status: int, code: str
):
    binding = (await deployed(app_client, tenant))["binding"]
    sent = _headers(
        tenant,
        key=tenant.member_key if headers.get("key") == "member" else None,
        admin=headers.get("admin", ADMIN_KEY),
    )
    if headers.get("key") == "none":
        del sent["X-API-Key"]
    response = await app_client.post(
        _secrets_path(binding["id"]), json={"secrets": SECRET_VALUES}, headers=sent
    )
    assert_error(response, status, code)
    fetched = ok(await app_client.get(f"/v1/agent-bindings/{binding['id']}", headers=tenant.headers()))
    assert fetched["has_secrets"] is False


async def test_the_admin_key_alone_is_not_enough(app_client: httpx.AsyncClient, tenant: TenantFixture):
    binding = (await deployed(app_client, tenant))["binding"]
    response = await app_client.post(
        _secrets_path(binding["id"]), json={"secrets": SECRET_VALUES}, headers=ADMIN
    )
    assert_error(response, 401, "INVALID_API_KEY")


async def test_another_tenants_binding_is_404(
    app_client: httpx.AsyncClient, tenant: TenantFixture, other_tenant: TenantFixture
):
    theirs = (await deployed(app_client, other_tenant))["binding"]
    response = await app_client.post(
        _secrets_path(theirs["id"]), json={"secrets": SECRET_VALUES}, headers=_headers(tenant)
    )
    assert_error(response, 404)
    fetched = ok(await app_client.get(f"/v1/agent-bindings/{theirs['id']}", headers=other_tenant.headers()))
    assert fetched["has_secrets"] is False


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"secrets": {"api token": SECRET_VALUES["api_token"]}}, 400, "secrets"),
        ({"secrets": {"9lives": SECRET_VALUES["api_token"]}}, 400, "secrets"),
        ({"secrets": {"api_token": 12345}}, 400, "secrets.api_token"),
        ({"secrets": {"api_token": ""}}, 400, "secrets.api_token"),
        ({"secrets": {"api_token": "x" * 20_000}}, 400, "secrets.api_token"),
        ({"secrets": [SECRET_VALUES["api_token"]]}, 400, "secrets"),
        ({"secrets": SECRET_VALUES, "extra": SECRET_VALUES["client-secret"]}, 400, "extra"),
        ({}, 400, "secrets"),
    ],
)
async def test_invalid_secret_bodies_are_400_without_echoing_values(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    caplog: pytest.LogCaptureFixture,
    body: dict,
    status: int,
    field: str,
):
    caplog.set_level(logging.DEBUG)
    binding = (await deployed(app_client, tenant))["binding"]
    response = await app_client.post(_secrets_path(binding["id"]), json=body, headers=_headers(tenant))
    assert assert_error(response, status)["details"]["field"] == field
    _assert_no_secret(response.text)
    assert "x" * 100 not in response.text
    _assert_no_secret(caplog.text)


async def test_an_unknown_binding_is_404_for_the_operator_too(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    response = await app_client.post(
        _secrets_path("agb_missing"), json={"secrets": {}}, headers=_headers(tenant)
    )
    assert_error(response, 404)
