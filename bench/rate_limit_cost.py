"""Per-request cost of the shared rate limiter (one round trip per request), on SQLite and PostgreSQL.

Measures ``RateLimiter.check`` exactly as the API calls it for every request
(leases from the shared counter, served from memory), sequentially and with 16
concurrent callers, for a standard key (100/s) and a high-volume key (500/s),
and prints the mean and p99 cost per request. PostgreSQL is measured when
reachable on 127.0.0.1.

Run: .venv/bin/python bench/rate_limit_cost.py [--requests N]
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid

import psycopg
from harness import Figures, fresh_sqlite_url, load

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"


async def measure(url: str, label: str, requests: int) -> list[Figures]:
    from switchboard.api.rate_limiter import RateLimiter
    from switchboard.domain.rate_limits import Limits
    from switchboard.store.database import create_engine

    engine = create_engine(url)
    limiter = RateLimiter(engine)
    figures = []
    for name, limits in (
        ("standard key 100/s", Limits(100, 100_000)),
        ("high-volume key 500/s", Limits(500, 10**6)),
    ):
        # Keys rotate so no window runs dry: this measures the cost of admitting, not of refusing.
        for phase, concurrency in (("warm-up", 1), ("sequential", 1), ("16 concurrent", 16)):

            async def one(i: int, limits: Limits = limits, phase: str = phase, name: str = name) -> None:
                key = f"{name}-{phase}-{i // (limits.per_second // 2)}"
                assert (await limiter.check(key, limits, now=time.time())).allowed

            result = await load(
                f"{label}, {name}: {phase}",
                one,
                total=50 if phase == "warm-up" else requests,
                concurrency=concurrency,
            )
            if phase != "warm-up":
                figures.append(result)
    await limiter.aclose()
    await engine.dispose()
    return figures


async def main(args: argparse.Namespace) -> None:
    results = await measure(await asyncio.to_thread(fresh_sqlite_url), "SQLite (WAL)", args.requests)
    name = f"sb_bench_{uuid.uuid4().hex[:8]}"
    try:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
    except psycopg.OperationalError:
        name = ""
    if name:
        from switchboard.store.migrate import upgrade_to_head

        url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
        await asyncio.to_thread(upgrade_to_head, url)
        try:
            results += await measure(url, "PostgreSQL 15", args.requests)
        finally:
            with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    print("Rate limiter cost per request (RateLimiter.check, leases from the shared counter)")
    for figures in results:
        mean_ms = sum(figures.latencies_ms) / max(1, len(figures.latencies_ms))
        print(
            f"  {figures.label:<52} mean {mean_ms:6.3f} ms   p99 {figures.percentile(99):6.3f} ms   "
            f"{figures.per_second:8.0f} req/s"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=2000)
    asyncio.run(main(parser.parse_args()))
