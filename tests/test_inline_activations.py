"""ActivationsOnTheLoop: what the SDK hands it runs on the loop's own thread, and the loop survives it."""

from __future__ import annotations

import asyncio
import threading

import pytest

from switchboard.inline_activations import ActivationsOnTheLoop


async def test_a_submitted_call_runs_on_the_loops_thread_and_answers_through_run_in_executor():
    loop = asyncio.get_running_loop()
    ran_on: list[int] = []

    def activation(value: int) -> int:
        ran_on.append(threading.get_ident())
        # A workflow activation leaves the thread with no running loop (temporalio's _run_once).
        asyncio.events._set_running_loop(None)
        return value * 2

    answer = await loop.run_in_executor(ActivationsOnTheLoop(), activation, 21)

    assert answer == 42
    assert ran_on == [threading.get_ident()]
    assert asyncio.get_running_loop() is loop


async def test_an_activation_that_raises_raises_in_the_awaiting_task():
    def activation() -> None:
        asyncio.events._set_running_loop(None)
        raise ValueError("nondeterminism")

    with pytest.raises(ValueError, match="nondeterminism"):
        await asyncio.get_running_loop().run_in_executor(ActivationsOnTheLoop(), activation)
    assert asyncio.get_running_loop() is not None


async def test_calls_run_one_at_a_time_in_the_order_they_were_submitted():
    executor = ActivationsOnTheLoop()
    order: list[str] = []
    loop = asyncio.get_running_loop()

    await asyncio.gather(*(loop.run_in_executor(executor, order.append, name) for name in "abc"))

    assert order == ["a", "b", "c"]
    assert not any(t.name.startswith("unused_") for t in threading.enumerate())
