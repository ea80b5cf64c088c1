"""Shared pieces of the benchmarks: a bounded load loop, latency figures, an embedded stack.

Loopback only: every server a benchmark starts listens on 127.0.0.1 and every
request goes there. Loops are bounded in count and time.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from switchboard.devstack import SEARCH_ATTRIBUTE_ARGS
from tests.support.http_server import serve_app


@dataclass
class Figures:
    label: str
    count: int
    seconds: float
    latencies_ms: list[float]

    @property
    def per_second(self) -> float:
        return self.count / self.seconds if self.seconds else 0.0

    def percentile(self, p: float) -> float:
        ordered = sorted(self.latencies_ms)
        if not ordered:
            return 0.0
        return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]

    def line(self) -> str:
        return (
            f"{self.label:<44} {self.per_second:9.1f}/s   p50 {self.percentile(50):8.2f} ms   "
            f"p99 {self.percentile(99):8.2f} ms   (n={self.count})"
        )


async def load(
    label: str,
    call: Callable[[int], Awaitable[Any]],
    *,
    total: int,
    concurrency: int,
    deadline_s: float = 120.0,
) -> Figures:
    """Run ``call(i)`` ``total`` times with ``concurrency`` at once; time each call."""
    latencies: list[float] = []
    counter = iter(range(total))
    stop_at = time.monotonic() + deadline_s

    async def runner() -> None:
        for i in counter:
            if time.monotonic() > stop_at:
                return
            started = time.perf_counter()
            await call(i)
            latencies.append((time.perf_counter() - started) * 1000)

    started = time.perf_counter()
    await asyncio.gather(*(runner() for _ in range(concurrency)))
    return Figures(label, len(latencies), time.perf_counter() - started, latencies)


def ratio_line(measured: Figures, baseline: Figures) -> str:
    if not baseline.per_second:
        return ""
    return (
        f"  -> {measured.label}: {measured.per_second / baseline.per_second:.2f}x the baseline's throughput, "
        f"p50 {measured.percentile(50) / max(baseline.percentile(50), 1e-9):.1f}x its latency"
    )


RESULTS_PATH = Path(__file__).resolve().parent / "results.json"


def goal_line(
    label: str, value: float, *, at_least: float | None = None, at_most: float | None = None
) -> str:
    """A ratio beside its goal (issue: sends and inbound as close to Temporal's ceiling as the design allows)."""
    met = (at_least is None or value >= at_least) and (at_most is None or value <= at_most)
    goal = f">= {at_least}" if at_least is not None else f"<= {at_most}"
    return f"  {label:<58} {value:6.2f}x   goal {goal:<7} {'met' if met else 'NOT met'}"


def record_results(section: str, figures: dict[str, Any]) -> None:
    """Merge one benchmark's figures into bench/results.json (one key per benchmark script)."""
    try:
        current = json.loads(RESULTS_PATH.read_text())
    except (FileNotFoundError, ValueError):
        current = {}
    current[section] = figures
    RESULTS_PATH.write_text(json.dumps(current, indent=2, sort_keys=True) + "\n")


def figures_dict(figures: Figures) -> dict[str, float]:
    """The figures of one load, for results.json."""
    return {
        "count": figures.count,
        "per_second": round(figures.per_second, 2),
        "p50_ms": round(figures.percentile(50), 2),
        "p99_ms": round(figures.percentile(99), 2),
    }


@asynccontextmanager
async def temporal_dev_server() -> AsyncIterator[WorkflowEnvironment]:
    path = shutil.which("temporal") or str(Path(sys.executable).parent / "temporal")
    env = await WorkflowEnvironment.start_local(
        dev_server_existing_path=path,
        data_converter=pydantic_data_converter,
        dev_server_log_level="error",
        dev_server_extra_args=list(SEARCH_ATTRIBUTE_ARGS),
    )
    try:
        yield env
    finally:
        await env.shutdown()


def bench_settings(database_url: str, temporal_address: str, **overrides: Any) -> Any:
    from switchboard.settings import Settings

    values: dict[str, Any] = {
        "SWITCHBOARD_ENV": "test",
        "database_url": database_url,
        "temporal_address": temporal_address,
        "temporal_task_queue": f"bench-{uuid.uuid4().hex[:8]}",
        "switchboard_admin_key": "adm_bench_" + "k" * 24,
        "switchboard_secrets_key": base64.b64encode(os.urandom(32)).decode(),
        "channel_app_secret": "bench-secret",
        "channel_verify_token": "bench",
        "tool_egress_allow_private": True,
        "log_level": "WARNING",
    }
    values.update(overrides)
    return Settings(**values)


def fresh_sqlite_url() -> str:
    from switchboard.store.migrate import upgrade_to_head

    path = Path(tempfile.mkdtemp(prefix="sb-bench-")) / "bench.db"
    url = f"sqlite+aiosqlite:///{path}"
    upgrade_to_head(url)
    return url


__all__ = [
    "Figures",
    "figures_dict",
    "goal_line",
    "record_results",
    "bench_settings",
    "fresh_sqlite_url",
    "load",
    "ratio_line",
    "serve_app",
    "temporal_dev_server",
    "statistics",
]
