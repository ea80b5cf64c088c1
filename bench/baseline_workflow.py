"""The baseline of the live-send benchmark: one workflow, one no-op activity."""

from __future__ import annotations

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
