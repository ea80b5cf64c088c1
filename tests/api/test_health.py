"""GET /healthz tells whether the database and Temporal are reachable, and whether agent turns reach
their threads."""

from __future__ import annotations

from datetime import timedelta

import httpx

from switchboard.api.app import create_app
from switchboard.models.agent_runtime import AgentTurn
from switchboard.models.base import utcnow
from switchboard.models.messaging import Message
from tests.support.agent_threads import new_thread
from tests.support.http_server import free_port
from tests.support.inbound import db


async def test_healthz_ok_with_database_and_temporal(app_client: httpx.AsyncClient):
    response = await app_client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "temporal": "ok", "agent_turns": "ok"}


async def test_healthz_is_degraded_when_agent_turns_never_reach_their_threads(
    app_client: httpx.AsyncClient, tenant, settings
):
    """A turn recorded minutes ago and never signalled: workers cannot tell agent threads (the API serves)."""
    long_ago = utcnow() - timedelta(minutes=10)
    async with db(settings) as session:
        thread = await new_thread(
            session,
            tenant_id=tenant.id,
            customer_id=tenant.customer_id,
            phone_number_id=tenant.phone_number_id,
        )
        for signalled in (None, long_ago):
            message = Message(
                tenant_id=tenant.id,
                phone_number_id=tenant.phone_number_id,
                direction="inbound",
                message_type="text",
                status="received",
                conversation_id=thread.conversation_id,
            )
            session.add(message)
            await session.flush()
            session.add(
                AgentTurn(
                    message_id=message.id,
                    tenant_id=tenant.id,
                    thread_id=thread.id,
                    created_at=long_ago,
                    signalled_at=signalled,
                )
            )

    response = await app_client.get("/healthz")

    assert response.status_code == 200, "the API itself serves"
    body = response.json()
    assert (body["status"], body["database"], body["temporal"]) == ("degraded", "ok", "ok")
    assert body["agent_turns"] == "degraded: 1 agent turns never signalled after 300 s (see the worker's log)"


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
