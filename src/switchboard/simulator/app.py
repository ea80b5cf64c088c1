"""The channel simulator app: the Cloud API subset plus the ``/_sim`` control plane.

See ``simulator.triggers`` (and docs/simulator.md) for the recipient numbers,
template names and usernames that make it answer each upstream error. For offline
agent development it also serves a FAKE model (``/_fake-model``, see
``simulator.fake_model``) and a demo tool API (``/_demo-tools``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler, request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from switchboard.http_pool import reserving_client
from switchboard.simulator import demo_tools, fake_model
from switchboard.simulator.config import SimulatorConfig
from switchboard.simulator.delivery import WebhookPoster
from switchboard.simulator.graph_errors import GraphError, invalid_parameter, unknown_path
from switchboard.simulator.routes import control, media, messages, objects, templates, usernames
from switchboard.simulator.state import SimState

CONTROL_PREFIX = "/_sim"
# Development helpers that are not Graph: their errors keep FastAPI's own shape.
LOCAL_PREFIXES = (CONTROL_PREFIX, fake_model.PREFIX, demo_tools.PREFIX)


def create_simulator_app(config: SimulatorConfig) -> FastAPI:
    """Build a simulator app with its own in-memory state."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with reserving_client(timeout=config.webhook_timeout_s) as client:
            app.state.poster = WebhookPoster(client, app.state.sim)
            try:
                yield
            finally:
                await app.state.sim.shutdown()

    app = FastAPI(
        title="Switchboard channel simulator",
        description="An in-memory emulation of the WhatsApp Business Cloud API subset Switchboard uses.",
        lifespan=lifespan,
    )
    app.state.sim = SimState(config=config)
    # Order matters: /_sim and the download path must win over the /{version}/{object_id} catch-alls.
    app.include_router(control.router)
    app.include_router(fake_model.router)
    app.include_router(demo_tools.router)
    app.include_router(media.download_router)
    app.include_router(messages.router)
    app.include_router(media.router)
    app.include_router(templates.router)
    app.include_router(usernames.router)
    app.include_router(objects.router)
    _install_error_handlers(app)
    return app


def _is_control(request: Request) -> bool:
    return request.url.path.startswith(LOCAL_PREFIXES)


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(GraphError)
    async def graph_error(_request: Request, exc: GraphError) -> Response:
        return JSONResponse(
            exc.envelope(),
            status_code=exc.http_status,
            headers={"WWW-Authenticate": "OAuth"} if exc.http_status == 401 else None,
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if _is_control(request):
            return await http_exception_handler(request, exc)
        if exc.status_code == 405:
            error = GraphError(400, 100, f"Unsupported {request.method.lower()} request.")
        else:
            error = unknown_path(request.url.path)
        return await graph_error(request, error)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> Response:
        if _is_control(request):
            return await request_validation_exception_handler(request, exc)
        first = exc.errors()[0] if exc.errors() else {}
        return await graph_error(request, invalid_parameter(f"{first.get('loc')}: {first.get('msg')}"))
