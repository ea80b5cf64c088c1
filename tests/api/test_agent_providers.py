"""GET /v1/agent-providers, and the operator's rate-card file reaching agent validation."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from temporalio.testing import WorkflowEnvironment

from switchboard.api.app import create_app
from tests.api.agent_catalog_support import assert_error, ok
from tests.conftest import ADMIN_KEY, make_settings
from tests.support.tenants import TenantFixture, provision_tenant

PROVIDERS = ["anthropic", "openai", "google", "mistral"]
PRICE_KEYS = {"input", "output", "cache_read", "cache_write"}


async def test_lists_the_four_providers_with_models_and_current_cards(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    body = ok(await app_client.get("/v1/agent-providers", headers=tenant.headers()))
    assert (body["page"], body["total"], body["has_more"]) == (1, 4, False)
    assert [p["name"] for p in body["data"]] == PROVIDERS
    for provider in body["data"]:
        assert provider["configured"] is False
        assert provider["models"], provider["name"]
        for model in provider["models"]:
            card = model["rate_card"]
            assert PRICE_KEYS <= set(card)
            assert (card["provider"], card["model"]) == (provider["name"], model["model"])
            assert card["source"] and card["effective_from"]
    anthropic = {m["model"] for m in body["data"][0]["models"]}
    assert "claude-sonnet-4-6" in anthropic


async def test_providers_need_an_api_key(app_client: httpx.AsyncClient):
    assert_error(await app_client.get("/v1/agent-providers"), 401)


async def test_providers_list_pages(app_client: httpx.AsyncClient, tenant: TenantFixture):
    body = ok(await app_client.get("/v1/agent-providers?page=2&per_page=3", headers=tenant.headers()))
    assert [p["name"] for p in body["data"]] == ["mistral"]
    assert (body["page"], body["per_page"], body["total"], body["has_more"]) == (2, 3, 4, False)


@pytest.fixture
async def custom_client(
    database_url: str, temporal_env: WorkflowEnvironment, tmp_path: Path
) -> AsyncIterator[httpx.AsyncClient]:
    """An app whose operator added a model through RATE_CARD_PATH and configured an Anthropic key."""
    card = {
        "providers": {
            "mistral": {
                "models": {
                    "acme-tiny": [
                        {
                            "effective_from": "2026-01-01",
                            "input": "0.05",
                            "output": "0.10",
                            "cache_read": "0.01",
                            "cache_write": "0.05",
                            "source": "operator contract 2026-01",
                        }
                    ]
                }
            }
        }
    }
    path = tmp_path / "rate_cards.json"
    path.write_text(json.dumps(card))
    settings = make_settings(
        database_url,
        temporal_env.client.service_client.config.target_host,
        rate_card_path=str(path),
        anthropic_api_key="sk-test-anthropic",
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://switchboard.test") as client:
            yield client


async def test_rate_card_file_adds_models_for_agents_and_the_catalog(custom_client: httpx.AsyncClient):
    tenant = await provision_tenant(custom_client, ADMIN_KEY)
    body = ok(await custom_client.get("/v1/agent-providers", headers=tenant.headers()))
    by_name = {p["name"]: p for p in body["data"]}
    assert by_name["anthropic"]["configured"] is True
    assert by_name["mistral"]["configured"] is False
    tiny = next(m for m in by_name["mistral"]["models"] if m["model"] == "acme-tiny")
    assert tiny["rate_card"]["input"] == "0.05"
    agent = {"name": "Cheap", "provider": "mistral", "model": "acme-tiny"}
    created = ok(await custom_client.post("/v1/agents", json=agent, headers=tenant.headers()), 201)
    assert created["model"] == "acme-tiny"
    wrong_provider = {**agent, "provider": "openai"}
    error = assert_error(
        await custom_client.post("/v1/agents", json=wrong_provider, headers=tenant.headers()),
        422,
        "UNKNOWN_MODEL",
    )
    assert "acme-tiny" not in error["details"]["known_models"]
