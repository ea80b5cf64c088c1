"""Inbound: payloads/s accepted at POST /channel/webhook, and latency to the tenant's webhook receiver.

- accept rate and p50/p99 of signed text-message webhooks POSTed to the real API (uvicorn, loopback)
- end-to-end p50/p99 from each POST to a loopback receiver getting the signed
  channel.message.received delivery (applied by the API, then DeliverWebhook),
  both under that load (latency then includes the backlog) and paced one payload at a time
- then payloads posted at a fixed rate for --offered-seconds: 0.8 of the bare workflow's throughput
  measured just before (with the service idle), which is then offered that rate itself as the phase's
  baseline; the second half's p99 beside the bare workflow's second half's says whether the pipeline
  keeps a bounded tail at that rate (a backlog that grows puts seconds there)
- beside a bare Temporal workflow with one activity on the same Temporal server, same run: run once
  before the service starts and once after it stops, and the two pooled, so that the machine's speed
  drifting over the run does not read as a ratio

Run: .venv/bin/python bench/inbound_to_webhook.py [--payloads N] [--concurrency C]
         [--database-url postgresql+psycopg://postgres@127.0.0.1:5432/test] [--processes]
(--database-url and --processes as in send_throughput.py: a PostgreSQL database, the API with two
uvicorn workers as deployed; by default the API and worker run as `switchboard dev` runs them.)
Loopback only; bounded in count and time. If the webhook side (POST /v1/webhooks and the dispatch
workflows) is missing, only the accept figures and the baseline are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import time
from collections.abc import Awaitable, Callable

from fastapi import FastAPI, Request
from harness import (
    SERVICE_PIDS,
    WARM_UP,
    WARM_UP_FROM,
    BareRun,
    CpuMeter,
    Figures,
    Offered,
    bare_baseline,
    bench_settings,
    cpu_line,
    database_label,
    figures_dict,
    fresh_database_url,
    goal_line,
    halves,
    load,
    load_client,
    open_loop,
    pooled,
    pooled_cpu,
    postgres_server_pid,
    quiet_client_heap,
    record_results,
    results_section,
    serve_app,
    service_under_test,
    settled,
    temporal_dev_server,
    temporal_server_pid,
    warm_up,
)

WABA_ID = "102290129340398"
USER_SPACE = {"bench": "1650", "paced": "1651", "warm": "1652", "offered": "1653"}
# The offered-rate phase posts at this share of the bare workflow's throughput: the goal.
OFFERED_SHARE = 0.8
PHONE_NUMBER_ID = "106540352242922"
DISPLAY = "15550783881"


def text_webhook(n: int, *, prefix: str = "bench", users: int | None = None) -> bytes:
    """A Cloud API text-message webhook: message ``n``, from user ``n % users`` (one conversation per user).

    By default every message comes from a new user, so each one also creates a contact and a conversation
    (the costliest inbound message); ``users`` sends the load from that many returning users instead.
    """
    sender = n if users is None else n % users
    # Each prefix its own users: a paced or warm-up message is a new user's too, not a returning one.
    user = f"{USER_SPACE[prefix]}{sender:07d}"
    value = {
        "messaging_product": "whatsapp",
        "metadata": {"display_phone_number": DISPLAY, "phone_number_id": PHONE_NUMBER_ID},
        "contacts": [{"profile": {"name": f"User {n}"}, "wa_id": user}],
        "messages": [
            {
                "from": user,
                "id": f"wamid.{prefix}{n}",
                "timestamp": str(int(time.time())),
                "type": "text",
                "text": {"body": f"hello {n}"},
            }
        ],
    }
    envelope = {
        "object": "whatsapp_business_account",
        "entry": [{"id": WABA_ID, "changes": [{"field": "messages", "value": value}]}],
    }
    return json.dumps(envelope).encode()


def receiver_app(
    arrivals: dict[str, float], waiters: dict[str, asyncio.Event], done: asyncio.Event, expected: int
) -> FastAPI:
    app = FastAPI()

    @app.post("/hook")
    async def hook(request: Request) -> dict[str, bool]:
        body = json.loads(await request.body())
        wamid = (body.get("message") or {}).get("id")
        if wamid and wamid not in arrivals:
            arrivals[wamid] = time.perf_counter()
            if wamid in waiters:
                waiters[wamid].set()
            if sum(1 for w in arrivals if w.startswith("wamid.bench")) >= expected:
                done.set()
        return {"ok": True}

    return app


async def paced(
    post: Callable[[int], Awaitable[None]],
    arrivals: dict[str, float],
    waiters: dict[str, asyncio.Event],
    count: int,
) -> Figures:
    """One payload at a time: the pipeline's latency without a backlog."""
    quiet_client_heap()
    latencies = []
    started = time.perf_counter()
    for n in range(count):
        wamid = f"wamid.paced{n}"
        waiters[wamid] = asyncio.Event()
        sent = time.perf_counter()
        await post(n)
        try:
            await asyncio.wait_for(waiters[wamid].wait(), timeout=30)
        except TimeoutError:
            continue
        latencies.append((arrivals[wamid] - sent) * 1000)
    return Figures(
        "paced: inbound POST -> tenant webhook", len(latencies), time.perf_counter() - started, latencies
    )


async def offered_load(
    post: Callable[[int], Awaitable[None]],
    arrivals: dict[str, float],
    waiters: dict[str, asyncio.Event],
    *,
    rate: float,
    seconds: float,
    wait: float,
    cpu: CpuMeter,
) -> Offered:
    """Post ``rate`` payloads a second for ``seconds`` (open loop: a slow answer delays no later post).

    Under a closed loop (the loaded phase) the bench posts as fast as the API answers, so deliveries
    queue whenever accepting is faster than delivering, and latency grows with the run however fast
    the pipeline is. At a fixed offered rate the latency stays flat if the pipeline keeps up and grows
    if it does not: the second half's tail, beside the bare workflow's at the same rate, says which.
    """
    quiet_client_heap()
    count = max(2, int(rate * seconds))
    posted_at: dict[str, float] = {}
    order = [f"wamid.offered{i}" for i in range(count)]
    waiters.update({wamid: asyncio.Event() for wamid in order})

    async def one(i: int) -> None:
        posted_at[order[i]] = time.perf_counter()
        await post(i)

    cpu.start()
    await open_loop(one, rate=rate, count=count)
    try:
        await asyncio.wait_for(asyncio.gather(*(waiters[wamid].wait() for wamid in order)), timeout=wait)
    except TimeoutError:
        pass  # counted below: the missing ones have no latency
    used = cpu.per_unit_ms(sum(1 for wamid in order if wamid in arrivals))
    label = f"offered {rate:.0f}/s: POST -> tenant webhook"
    return Offered(rate, count, *halves(label, order, posted_at, arrivals), cpu=used)


async def main(args: argparse.Namespace) -> None:
    logging.disable(logging.WARNING)
    from switchboard.domain.signatures import hub_signature
    from tests.support.tenants import provision_tenant

    admin_note = ""
    end_to_end: Figures | None = None
    unloaded: Figures | None = None
    offered: Offered | None = None
    beside: BareRun | None = None
    loaded_cpu: dict[str, float] | None = None
    async with temporal_dev_server() as env:
        address = env.client.service_client.config.target_host
        settings = bench_settings(await asyncio.to_thread(fresh_database_url, args.database_url), address)
        admin = {"X-Admin-Key": settings.switchboard_admin_key}
        # The bare workflow first (the offered-rate phase below runs at a share of its throughput), and
        # again once the service has stopped: the two runs pooled are the baseline (harness.pooled).
        before = await bare_baseline(
            env, total=args.payloads, concurrency=args.concurrency, paced=args.paced, when="before"
        )
        arrivals: dict[str, float] = {}
        waiters: dict[str, asyncio.Event] = {}
        all_arrived = asyncio.Event()
        async with (
            service_under_test(settings, deployed=args.processes) as api_url,
            serve_app(receiver_app(arrivals, waiters, all_arrived, args.payloads)) as receiver_url,
            load_client(api_url) as client,
        ):
            tenant = await provision_tenant(client, settings.switchboard_admin_key)
            await client.post(
                f"/v1/admin/tenants/{tenant.id}/wabas",
                json={"waba_id": WABA_ID, "access_token": "tok"},
                headers=admin,
            )
            await client.post(
                f"/v1/admin/tenants/{tenant.id}/phone-numbers",
                json={
                    "phone_number_id": PHONE_NUMBER_ID,
                    "display_phone_number": DISPLAY,
                    "waba_id": WABA_ID,
                    "customer_id": tenant.customer_id,
                },
                headers=admin,
            )
            hook = await client.post(
                "/v1/webhooks",
                headers=tenant.headers(),
                json={"url": f"{receiver_url}/hook", "events": ["channel.message.received"]},
            )
            if hook.status_code not in (200, 201):
                admin_note = f"(no end-to-end figure: POST /v1/webhooks answered {hook.status_code})"
            bodies = [text_webhook(n, users=args.users) for n in range(args.payloads)]
            posted_at: dict[str, float] = {}

            async def send(body: bytes) -> None:
                r = await client.post(
                    "/channel/webhook",
                    content=body,
                    headers={
                        "Content-Type": "application/json",
                        "X-Hub-Signature-256": hub_signature(body, settings.channel_app_secret),
                    },
                )
                assert r.status_code == 200, r.text

            async def post(i: int) -> None:
                posted_at[f"wamid.bench{i}"] = time.perf_counter()
                await send(bodies[i])

            async def post_paced(i: int) -> None:
                await send(text_webhook(i, prefix="paced"))

            # Unmeasured messages first, delivered before the measured phase starts (see warm_up).
            warm = [f"wamid.warm{WARM_UP_FROM + n}" for n in range(WARM_UP)]
            waiters.update({wamid: asyncio.Event() for wamid in warm})
            await warm_up(lambda i: send(text_webhook(i, prefix="warm")), concurrency=args.concurrency)
            if not admin_note:  # without a webhook no delivery arrives
                await asyncio.wait_for(asyncio.gather(*(waiters[wamid].wait() for wamid in warm)), timeout=60)
            cpu = CpuMeter(
                {
                    "temporal server": temporal_server_pid(address),
                    "api": SERVICE_PIDS.get("api"),
                    "worker": SERVICE_PIDS.get("worker"),
                    "postgresql": postgres_server_pid(settings.database_url),
                }
            )
            cpu.start()
            accepted = await load(
                "inbound accepted at /channel/webhook",
                post,
                total=args.payloads,
                concurrency=args.concurrency,
            )
            if not admin_note:
                try:
                    await asyncio.wait_for(all_arrived.wait(), timeout=args.wait)
                except TimeoutError:
                    admin_note = (
                        f"({sum(1 for wamid in arrivals if wamid in posted_at)}/{args.payloads} deliveries "
                        f"arrived within {args.wait:.0f} s)"
                    )
                delivered = sum(1 for wamid in arrivals if wamid in posted_at)
                loaded_cpu = cpu.per_unit_ms(delivered)
                latencies = [(arrivals[w] - posted_at[w]) * 1000 for w in arrivals if w in posted_at]
                span = (max(arrivals.values()) - min(posted_at.values())) if arrivals else 0.0
                end_to_end = Figures(
                    "loaded: inbound POST -> tenant webhook", len(latencies), span, latencies
                )
                unloaded = await paced(post_paced, arrivals, waiters, args.paced)
                if args.offered_seconds > 0:
                    # The offered rate is a share of the bare workflow's throughput as the machine and the
                    # Temporal server are now, not minutes ago: both slow over a run (the bare workflow
                    # after the service cost up to two fifths more than before it), and a rate measured
                    # before the service offered this phase more than that share. The bare workflow is
                    # offered the rate first, as this phase's baseline.
                    beside = await bare_baseline(
                        env,
                        total=args.payloads,
                        concurrency=args.concurrency,
                        when="before",
                        of="the offered phase",
                        offered_share=OFFERED_SHARE,
                        offered_seconds=args.offered_seconds,
                    )
                    await settled([temporal_server_pid(address), *SERVICE_PIDS.values()])
                    offered = await offered_load(
                        lambda i: send(text_webhook(i, prefix="offered")),
                        arrivals,
                        waiters,
                        rate=beside.offered.rate if beside.offered is not None else 0.0,
                        seconds=args.offered_seconds,
                        wait=args.wait,
                        cpu=cpu,
                    )
        after = await bare_baseline(
            env, total=args.payloads, concurrency=args.concurrency, paced=args.paced, when="after"
        )
    baseline = pooled("baseline: bare workflow with one activity", before.loaded, after.loaded)
    baseline_paced = pooled(
        "baseline, paced: one at a time", *(run.paced for run in (before, after) if run.paced is not None)
    )
    baseline_cpu = pooled_cpu((before.cpu, before.loaded.count), (after.cpu, after.loaded.count))
    shape = (
        "API (2 workers) and worker as processes"
        if args.processes
        else "API and worker as processes, as `switchboard dev` runs them"
    )
    senders = f"{args.users} returning users" if args.users else "a new user per message"
    print(
        f"Inbound to webhook (loopback, {database_label(settings.database_url)}, Temporal dev server, {shape}, "
        f"{senders})"
    )
    shown = [accepted, end_to_end, unloaded, baseline, before.loaded, after.loaded, baseline_paced]
    if offered is not None:
        shown[3:3] = [offered.first_half, offered.second_half]
    if beside is not None and beside.offered is not None:
        shown += [beside.loaded, beside.offered.first_half, beside.offered.second_half]
    for figures in shown:
        if figures is not None:
            print("  " + figures.line())
    if loaded_cpu is not None:
        print(cpu_line("inbound message delivered", loaded_cpu))
    print(cpu_line("bare workflow", baseline_cpu))
    print(
        f"    (before the service {before.cpu['total']:.1f} ms a bare workflow, after it {after.cpu['total']:.1f}: "
        "the machine's drift over the run)"
    )
    offered_cpus = None
    if offered is not None and offered.cpu and beside is not None and beside.offered and beside.offered.cpu:
        offered_cpus = (offered.cpu, beside.offered.cpu)
        print(cpu_line(f"inbound message, offered {offered.rate:.0f}/s", offered.cpu))
        print(cpu_line(f"bare workflow, offered {beside.offered.rate:.0f}/s", beside.offered.cpu))
        print(
            f"    (carrying the offered rate, a message cost {offered.cpu['total'] / max(beside.offered.cpu['total'], 1e-9):.2f}x "
            "a bare workflow's CPU)"
        )
    if unloaded is not None:
        print(
            f"  -> paced p50 is {unloaded.percentile(50) / max(baseline_paced.percentile(50), 1e-9):.1f}x the "
            "paced baseline's (one activity there; the API's apply and DeliverWebhook here)"
        )
    results: dict[str, object] = {
        "accepted": figures_dict(accepted),
        "baseline": figures_dict(baseline),
        "baseline_before": figures_dict(before.loaded),
        "baseline_after": figures_dict(after.loaded),
        "baseline_paced": figures_dict(baseline_paced),
        "goals": {
            "loaded_throughput_ratio": ">= 0.8",
            "backlog_drained": True,
            "paced_p50_ratio": "<= 1.3",
            "offered_p99_ratio": "<= 1.0",
        },
        "cpu_ms_per_unit": {"loaded": loaded_cpu, "baseline": baseline_cpu}
        | ({"offered": offered_cpus[0], "offered_baseline": offered_cpus[1]} if offered_cpus else {}),
    }
    if end_to_end is not None and unloaded is not None:
        throughput = end_to_end.per_second / max(baseline.per_second, 1e-9)
        paced_ratio = unloaded.percentile(50) / max(baseline_paced.percentile(50), 1e-9)
        drained = end_to_end.count == args.payloads
        print(
            goal_line("inbound -> webhook under load: throughput / bare workflow's", throughput, at_least=0.8)
        )
        print(
            f"  {'backlog drained (every delivery arrived)':<58} {str(drained):>7}    goal True    "
            f"{'met' if drained else 'NOT met'}"
        )
        print(goal_line("inbound -> webhook paced: p50 / paced baseline's", paced_ratio, at_most=1.3))
        if offered is not None and beside is not None and beside.offered is not None:
            bare = beside.offered
            arrived = offered.first_half.count + offered.second_half.count == offered.posted
            bare_done = bare.first_half.count + bare.second_half.count == bare.posted
            # The goal: the second half's p99 (the backlog's state after the phase has run for a while)
            # no higher than the bare workflow's at the same rate, on the machine as it just was.
            p99_ratio = offered.second_half.percentile(99) / max(bare.second_half.percentile(99), 1e-9)
            print(
                goal_line(
                    f"offered at {OFFERED_SHARE}x bare: 2nd half p99 / bare's",
                    p99_ratio if arrived else float("inf"),
                    at_most=1.0,
                )
            )
            growths = (
                f"{offered.growth if arrived else float('inf'):.2f}x, "
                f"the bare workflow's {bare.growth if bare_done else float('inf'):.2f}x"
            )
            print(f"  (p50 2nd half / 1st half, this phase's goal before the p99 one: ours {growths})")
            results.update(
                offered={
                    "rate_per_second": round(offered.rate, 1),
                    "posted": offered.posted,
                    "first_half": figures_dict(offered.first_half),
                    "second_half": figures_dict(offered.second_half),
                    "all_arrived": arrived,
                },
                offered_rate_from=figures_dict(beside.loaded),
                offered_baseline={
                    "rate_per_second": round(bare.rate, 1),
                    "posted": bare.posted,
                    "first_half": figures_dict(bare.first_half),
                    "second_half": figures_dict(bare.second_half),
                    "all_arrived": bare_done,
                },
                offered_p99_ratio=round(p99_ratio, 3) if arrived else None,
                offered_p50_growth=round(offered.growth, 3),
                offered_baseline_p50_growth=round(bare.growth, 3),
            )
        results.update(
            loaded=figures_dict(end_to_end),
            paced=figures_dict(unloaded),
            loaded_throughput_ratio=round(throughput, 3),
            backlog_drained=drained,
            paced_p50_ratio=round(paced_ratio, 3),
        )
    record_results(
        results_section("inbound_to_webhook", settings.database_url, processes=args.processes)
        + (f".users{args.users}" if args.users else ""),
        results,
    )
    if admin_note:
        print("  " + admin_note)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--payloads", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--paced", type=int, default=30, help="payloads sent one at a time afterwards")
    parser.add_argument("--wait", type=float, default=120.0, help="seconds to wait for the last delivery")
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL"))
    parser.add_argument(
        "--users",
        type=int,
        default=None,
        help="send from this many returning users (default: a new user each)",
    )
    parser.add_argument(
        "--processes", action="store_true", help="the API with 2 uvicorn workers, as deployed"
    )
    parser.add_argument(
        "--offered-seconds",
        type=float,
        default=10.0,
        help=f"seconds of payloads posted at {OFFERED_SHARE}x the bare workflow's rate (0: skip)",
    )
    asyncio.run(main(parser.parse_args()))
