"""App factory and lifespan: the HTTP front door.

The lifespan builds the engine, the Temporal client (lazily connected, so the
API starts even while Temporal is still coming up; /healthz tells the truth),
the key cache and a shared HTTP client, and closes them on shutdown.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from fastapi import FastAPI

from switchboard import metrics, tracing
from switchboard.activities.llm.rate_cards import load_rate_cards
from switchboard.api.api_docs import install_api_docs
from switchboard.api.delivery_worker import start_delivery_worker
from switchboard.api.errors import install_error_handlers
from switchboard.api.middleware import EdgeMiddleware
from switchboard.api.openapi import install_openapi
from switchboard.api.principal import ApiKeyCache
from switchboard.api.rate_limiter import RateLimiter
from switchboard.api.routers import all_routers, serving_order
from switchboard.api.sandbox_phones import SandboxPhoneCache
from switchboard.api.state import AppState
from switchboard.http_pool import reserving_client
from switchboard.models.urgency_model import load_urgency_model
from switchboard.settings import Settings
from switchboard.store.database import create_engine, session_factory
from switchboard.temporal_client import connect_temporal


def create_app(settings: Settings) -> FastAPI:
    """Build the API application for these settings."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        metrics.count_log_messages()
        # Read before the first request: a muted thread's unread messages are scored inside the inbound
        # transaction, which must not wait for the file (about 0.4 s) the first time.
        load_urgency_model()
        engine = create_engine(settings.database_url)
        sessions = session_factory(engine)
        autocommit_engine = create_engine(settings.database_url, pool_size=10, autocommit=True)
        autocommit = session_factory(autocommit_engine)
        http = reserving_client(timeout=httpx.Timeout(30.0, connect=5.0), follow_redirects=False)
        state = AppState(
            settings=settings,
            engine=engine,
            sessions=sessions,
            autocommit=autocommit,
            autocommit_engine=autocommit_engine,
            temporal=await connect_temporal(settings),
            keys=ApiKeyCache(autocommit, ttl_seconds=settings.api_key_cache_seconds),
            sandbox_phones=SandboxPhoneCache(
                autocommit_engine, ttl_seconds=settings.sandbox_phone_cache_seconds
            ),
            # Each lease is one upsert, atomic by itself.
            limiter=RateLimiter(autocommit_engine),
            # Loaded at start-up so a bad RATE_CARD_PATH file stops the process, not a request.
            rate_cards=load_rate_cards(settings.rate_card_path),
            http=http,
        )
        app.state.switchboard = state
        deliveries = start_delivery_worker(state)
        app.state.delivery_worker = deliveries
        try:
            yield
        finally:
            if deliveries is not None:
                await deliveries.stop()
            await http.aclose()
            await state.limiter.aclose()
            await autocommit_engine.dispose()
            await engine.dispose()

    app = FastAPI(
        title="Switchboard",
        version="1.0.0",
        description="Multi-tenant messaging API with an AI-agents runtime.",
        lifespan=lifespan,
        # Served by install_api_docs with local assets: FastAPI's own pages load them from a CDN.
        docs_url=None,
        redoc_url=None,
    )
    install_error_handlers(app)
    app.add_middleware(EdgeMiddleware)
    documented = all_routers()
    for router in serving_order(documented):
        app.include_router(router)
    install_openapi(app, documented)
    install_api_docs(app)
    # Last, so its server span is the outermost layer and the edge's own work is inside it.
    tracing.instrument(app)
    return app
