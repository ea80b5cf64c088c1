from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.simulator.support import Sim, running_sim


@pytest.fixture(scope="module")
async def served_sim() -> AsyncIterator[Sim]:
    async with running_sim() as running:
        yield running


@pytest.fixture
async def sim(served_sim: Sim) -> AsyncIterator[Sim]:
    """The module's simulator, idle and reset, with an empty receiver."""
    await served_sim.drain()
    await served_sim.client.post("/_sim/reset")
    served_sim.receiver.deliveries.clear()
    served_sim.receiver.attempts = 0
    yield served_sim
