"""Messaging tests run against a fake upstream on loopback and a real worker."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

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
def settings(settings, fake_channel):  # type: ignore[no-untyped-def]
    """The session settings, pointed at this test's fake upstream."""
    return settings.model_copy(update={"channel_api_base_url": fake_channel[1], "send_wait_seconds": 10.0})
