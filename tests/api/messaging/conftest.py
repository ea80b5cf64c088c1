"""Messaging tests run against a fake upstream on loopback and a real worker."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from switchboard.activities.deps import ActivityDeps
from switchboard.store.database import create_engine
from switchboard.worker import build_deps, close_deps
from tests.support.fake_channel import FakeChannel
from tests.support.http_server import serve_app


@pytest.fixture
async def fake_channel() -> AsyncIterator[tuple[FakeChannel, str]]:
    channel = FakeChannel()
    async with serve_app(channel.app()) as base_url:
        yield channel, base_url


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
