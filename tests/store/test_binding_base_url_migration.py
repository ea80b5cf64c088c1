"""Migration 0008: a binding stored with the spec's params.base_url (kept and ignored before) gets it as its
base URL; params keeps no base_url key; a value that is not a valid base URL is dropped."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from alembic import command
from sqlalchemy import update

from switchboard.models.agents import AgentBinding
from switchboard.settings import Settings
from switchboard.store.migrate import alembic_config
from tests.api.agent_catalog_support import create_agent, create_binding, create_version, ok
from tests.support.inbound import db
from tests.support.tenants import TenantFixture


async def test_params_base_url_moves_into_the_column(
    app_client: httpx.AsyncClient, tenant: TenantFixture, settings: Settings
):
    agent = await create_agent(app_client, tenant)
    version = await create_version(app_client, tenant, agent["id"])
    stored: dict[str, tuple[str | None, dict[str, Any]]] = {
        "legacy": (None, {"base_url": "https://legacy.example/v1/", "clinic": "n"}),
        "both": ("https://column.example", {"base_url": "https://other.example"}),
        "invalid": (None, {"base_url": "ftp://nope.example", "x": 1}),
        "plain": ("https://plain.example", {"x": 2}),
    }
    ids: dict[str, str] = {}
    for name in stored:
        ids[name] = (await create_binding(app_client, tenant, version["id"], name=name))["id"]
    async with db(settings) as session:
        for name, (base_url, params) in stored.items():
            await session.execute(
                update(AgentBinding)
                .where(AgentBinding.id == ids[name])
                .values(base_url=base_url, params=params)
            )

    config = alembic_config(settings.database_url)
    await asyncio.to_thread(command.downgrade, config, "0007")
    await asyncio.to_thread(command.upgrade, config, "head")

    expected = {
        "legacy": ("https://legacy.example/v1", {"clinic": "n"}),
        "both": ("https://column.example", {}),
        "invalid": (None, {"x": 1}),
        "plain": ("https://plain.example", {"x": 2}),
    }
    async with db(settings) as session:
        for name, (base_url, params) in expected.items():
            row = await session.get(AgentBinding, ids[name])
            assert row is not None
            assert (row.base_url, row.params) == (base_url, params), name
    legacy = ok(await app_client.get(f"/v1/agent-bindings/{ids['legacy']}", headers=tenant.headers()))
    assert (legacy["base_url"], legacy["params"]) == (
        "https://legacy.example/v1",
        {"clinic": "n", "base_url": "https://legacy.example/v1"},
    )
