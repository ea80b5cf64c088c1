"""Messaging tests run against a fake upstream on loopback and a real worker."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from temporalio.testing import WorkflowEnvironment

from switchboard.activities.deps import ActivityDeps
from switchboard.api.app import create_app
from switchboard.settings import Settings
from switchboard.store.database import create_engine
from switchboard.worker import build_deps, build_worker, close_deps
from tests.support.fake_channel import FakeChannel
from tests.support.http_server import serve_app
from tests.support.media_files import FileServer


@pytest.fixture
async def fake_channel() -> AsyncIterator[tuple[FakeChannel, str]]:
    channel = FakeChannel()
    async with serve_app(channel.app()) as base_url:
        yield channel, base_url


@pytest.fixture
async def files() -> AsyncIterator[FileServer]:
    """A loopback host for media links, counting each file's downloads."""
    server = FileServer()
    async with serve_app(server.app()) as base_url:
        server.base_url = base_url
        yield server


@pytest.fixture
def channel(fake_channel: tuple[FakeChannel, str]) -> FakeChannel:
    return fake_channel[0]


@pytest.fixture
def overrides() -> dict[str, object]:
    """Settings a test changes (``@pytest.mark.parametrize("overrides", [{...}])``); none by default."""
    return {}


@pytest.fixture
def settings(settings, fake_channel, overrides):  # type: ignore[no-untyped-def]
    """The session settings, pointed at this test's fake upstream, with the test's overrides."""
    return settings.model_copy(
        update={"channel_api_base_url": fake_channel[1], "send_wait_seconds": 10.0, **overrides}
    )


@pytest.fixture
async def deps(settings, temporal_env, database_url) -> AsyncIterator[ActivityDeps]:  # type: ignore[no-untyped-def]
    """A worker's activity dependencies on this test's database (the send activities run directly)."""
    engine = create_engine(database_url)
    built = build_deps(temporal_env.client, settings, engine)
    try:
        yield built
    finally:
        await close_deps(built)
        await engine.dispose()


@pytest.fixture
async def skipping_client(
    settings: Settings, time_skipping_env: WorkflowEnvironment
) -> AsyncIterator[httpx.AsyncClient]:
    """The API and a worker on the time-skipping server.

    The API starts sends through the environment's client, whose wait for a
    workflow's result lets the server skip timers: retry backoffs pass at once.
    """
    app = create_app(settings)
    engine = create_engine(settings.database_url)
    deps = build_deps(time_skipping_env.client, settings, engine)
    async with app.router.lifespan_context(app):
        app.state.switchboard.temporal = time_skipping_env.client
        async with build_worker(time_skipping_env.client, deps, max_concurrent=20):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://switchboard.test") as client:
                yield client
    await close_deps(deps)
    await engine.dispose()
