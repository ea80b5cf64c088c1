"""Fixtures for the tool executor: settings without a Temporal server, an executor, the fake API."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from switchboard.activities.tools import ToolActivities
from switchboard.settings import Settings
from switchboard.store.database import create_engine, session_factory
from tests.activities.tools.builders import FakeClock
from tests.activities.tools.fake_api import FakeApi
from tests.conftest import make_settings
from tests.support.http_server import serve_app


@pytest.fixture
def settings(database_url: str) -> Settings:
    """Test settings (private egress allowed, so loopback tool servers are reachable)."""
    return make_settings(database_url, "127.0.0.1:7233")


@pytest.fixture
async def engine(settings: Settings) -> AsyncIterator[AsyncEngine]:
    """An engine on this test's database."""
    engine = create_engine(settings.database_url)
    yield engine
    await engine.dispose()


@pytest.fixture
def clock() -> FakeClock:
    """The executor's clock, advanced by tests that check token expiry."""
    return FakeClock()


@pytest.fixture
async def executor(
    settings: Settings, engine: AsyncEngine, clock: FakeClock
) -> AsyncIterator[ToolActivities]:
    """An executor on this test's database with private egress allowed."""
    activities = ToolActivities(settings, session_factory(engine), clock=clock, token_poll_seconds=0.02)
    yield activities
    await activities.aclose()


@pytest.fixture
async def api() -> AsyncIterator[tuple[FakeApi, str]]:
    """The fake tenant API and its base URL."""
    fake = FakeApi()
    async with serve_app(fake.app()) as url:
        yield fake, url
