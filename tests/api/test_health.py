"""GET /healthz tells whether the database and Temporal are reachable."""

from __future__ import annotations

import httpx

from switchboard.api.app import create_app
from tests.support.http_server import free_port


async def test_healthz_ok_with_database_and_temporal(app_client: httpx.AsyncClient):
    response = await app_client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "temporal": "ok"}


async def test_healthz_503_when_temporal_is_unreachable(settings):
    app = create_app(settings.model_copy(update={"temporal_address": f"127.0.0.1:{free_port()}"}))
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            response = await client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["statusCode"] == 503
    assert body["details"] == {"database": "ok", "temporal": "unreachable"}


async def test_healthz_503_when_database_is_unreachable(settings):
    broken = "postgresql+psycopg://nobody@127.0.0.1:1/none"
    app = create_app(settings.model_copy(update={"database_url": broken}))
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            response = await client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["details"]["database"] == "unreachable"
