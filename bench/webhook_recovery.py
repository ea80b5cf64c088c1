"""Webhook recovery: a receiver that was down gets every failed delivery back with one call, once each.

Setup (not timed): the service as `switchboard dev` runs it (an API and a worker process, default
settings but a one-attempt retry schedule, so a delivery to an endpoint that is down fails at once),
one webhook, and N webhook.test events dispatched while the receiver answers 503: N failed deliveries.
Timed: the receiver answers 200 again, one POST /v1/webhooks/{id}/recover covers the window, and the
clock stops when GET /v1/webhook-recoveries/{id} says completed. Checked: the receiver got each failed
delivery_id exactly once. Beside it, in the same run on the same Temporal server: a bare workflow that
runs N no-op activities as many at a time as a recovery resends (BenchFanOut).

Run: .venv/bin/python bench/webhook_recovery.py [--deliveries N]
         [--database-url postgresql+psycopg://postgres@127.0.0.1:5432/test]
Loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import time
import uuid
from collections import Counter

from baseline_workflow import FanOut, noop
from harness import (
    bench_settings,
    database_label,
    fresh_database_url,
    load_client,
    record_results,
    results_section,
    serve_app,
    service_under_test,
    temporal_dev_server,
)
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from temporalio.worker import Worker

from switchboard.workflows.webhook_recovery import CONCURRENCY


class Receiver:
    """The tenant's endpoint: down (503) or up (200); counts the delivery ids it took while up."""

    def __init__(self) -> None:
        self.up = False
        self.down_posts = 0
        self.taken: Counter[str] = Counter()

    def app(self) -> Starlette:
        async def hook(request: Request) -> Response:
            body = await request.body()
            if not self.up:
                self.down_posts += 1
                return Response(b"down", status_code=503)
            self.taken[json.loads(body)["delivery_id"]] += 1
            return Response(b"ok")

        return Starlette(routes=[Route("/hook", hook, methods=["POST"])])


async def bare_fan_out(env, count: int) -> float:  # type: ignore[no-untyped-def]
    """Seconds a bare workflow takes to run ``count`` no-op activities CONCURRENCY at a time."""
    queue = f"bench-fanout-{uuid.uuid4().hex[:6]}"
    async with Worker(env.client, task_queue=queue, workflows=[FanOut], activities=[noop]):
        await env.client.execute_workflow(
            FanOut.run, args=[20, CONCURRENCY], id=f"{queue}-warm", task_queue=queue
        )
        started = time.perf_counter()
        done = await env.client.execute_workflow(
            FanOut.run, args=[count, CONCURRENCY], id=f"{queue}-run", task_queue=queue
        )
        assert done == count
        return time.perf_counter() - started


async def wait_for(check, *, limit: float, what: str):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        result = await check()
        if result:
            return result
        await asyncio.sleep(0.2)
    raise RuntimeError(f"{what} did not happen within {limit:.0f} s")


async def main(args: argparse.Namespace) -> None:
    logging.disable(logging.WARNING)
    from tests.support.tenants import provision_tenant

    receiver = Receiver()
    async with temporal_dev_server() as env, serve_app(receiver.app()) as hook_url:
        address = env.client.service_client.config.target_host
        before = await bare_fan_out(env, args.deliveries)
        database_url = await asyncio.to_thread(fresh_database_url, args.database_url)
        settings = bench_settings(database_url, address, webhook_retry_schedule_seconds="0")
        async with service_under_test(settings, deployed=False) as api_url, load_client(api_url) as client:
            tenant = await provision_tenant(client, settings.switchboard_admin_key, plan="enterprise")
            await client.patch(
                f"/v1/admin/tenants/{tenant.id}",
                json={"rate_limit_per_second": 100_000, "rate_limit_per_day": 10_000_000},
                headers={"X-Admin-Key": settings.switchboard_admin_key},
            )
            webhook = (
                await client.post("/v1/webhooks", json={"url": f"{hook_url}/hook"}, headers=tenant.headers())
            ).json()
            since = time.time() - 1
            print(
                f"== {args.deliveries} deliveries failing while the receiver is down ({database_label(database_url)})"
            )
            gate = asyncio.Semaphore(16)

            async def dispatch(_: int) -> None:
                async with gate:
                    response = await client.post(
                        f"/v1/webhooks/{webhook['id']}/test", headers=tenant.headers()
                    )
                    assert response.status_code == 202, response.text

            await asyncio.gather(*(dispatch(i) for i in range(args.deliveries)))

            async def all_failed() -> bool:
                page = await client.get(
                    f"/v1/webhooks/{webhook['id']}/deliveries",
                    params={"status": "failed", "per_page": 1},
                    headers=tenant.headers(),
                )
                return page.json()["total"] == args.deliveries

            await wait_for(all_failed, limit=600, what="every delivery failing")
            receiver.up = True
            started = time.perf_counter()
            recovery = (
                await client.post(
                    f"/v1/webhooks/{webhook['id']}/recover",
                    json={"since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(since))},
                    headers=tenant.headers(),
                )
            ).json()

            async def completed() -> dict | None:
                state = (
                    await client.get(f"/v1/webhook-recoveries/{recovery['id']}", headers=tenant.headers())
                ).json()
                return state if state["status"] == "completed" else None

            done = await wait_for(completed, limit=900, what="the recovery")
            seconds = time.perf_counter() - started
        after = await bare_fan_out(env, args.deliveries)
    baseline = (before + after) / 2
    once = sum(1 for count in receiver.taken.values() if count == 1)
    print(
        f"  recovery of {done['total']} failed deliveries   {seconds:7.2f} s   {done['total'] / seconds:7.1f}/s"
    )
    print(
        f"    succeeded {done['succeeded']}, failed {done['failed']}; receiver took {len(receiver.taken)} ids, {once} exactly once"
    )
    print(
        f"  bare workflow, {args.deliveries} no-op activities {CONCURRENCY} at a time   {baseline:7.2f} s   (before {before:.2f}, after {after:.2f})"
    )
    print(f"  -> the recovery takes {seconds / baseline:.2f}x the bare workflow's time")
    assert done["total"] == args.deliveries and once == args.deliveries == len(receiver.taken), (
        "not exactly once"
    )
    record_results(
        results_section("webhook_recovery", database_url, processes=False),
        {
            "deliveries": args.deliveries,
            "recovery_seconds": round(seconds, 2),
            "bare_fan_out_seconds": round(baseline, 2),
            "ratio": round(seconds / baseline, 2),
            "exactly_once": once,
        },
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--deliveries", type=int, default=1000)
    parser.add_argument("--database-url", default=None)
    asyncio.run(main(parser.parse_args()))
