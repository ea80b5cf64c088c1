"""The baseline of the live-send benchmark: one workflow, one no-op activity."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from temporalio import activity, workflow


@activity.defn(name="bench_noop")
async def noop(value: int) -> int:
    return value


@workflow.defn(name="BenchOneActivity")
class OneActivity:
    @workflow.run
    async def run(self, value: int) -> int:
        return await workflow.execute_activity(noop, value, start_to_close_timeout=timedelta(seconds=10))


@workflow.defn(name="BenchFanOut")
class FanOut:
    """The baseline of the recovery bench: one workflow running ``count`` no-op activities ``group`` at a time,
    the shape of a recovery (one workflow, bounded concurrency) with nothing in the activities."""

    @workflow.run
    async def run(self, count: int, group: int) -> int:
        done = 0
        for start in range(0, count, group):
            size = min(group, count - start)
            results = await asyncio.gather(
                *(
                    workflow.execute_activity(noop, start + i, start_to_close_timeout=timedelta(seconds=10))
                    for i in range(size)
                )
            )
            done += len(results)
        return done
