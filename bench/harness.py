"""Shared pieces of the benchmarks: a bounded load loop, latency figures, an embedded stack.

Loopback only: every server a benchmark starts listens on 127.0.0.1 and every
request goes there. Loops are bounded in count and time.
"""

from __future__ import annotations

import asyncio
import atexit
import base64
import compileall
import gc
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

from baseline_workflow import OneActivity, noop
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from switchboard.devstack import SEARCH_ATTRIBUTE_ARGS
from tests.support.http_server import free_port, serve_app


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


@dataclass
class Offered:
    """Units started at a fixed rate, whatever the answers: does the latency hold or grow?"""

    rate: float
    posted: int
    # Latencies (ms) of the first and second half of the units, in starting order.
    first_half: Figures
    second_half: Figures
    # CPU milliseconds a unit over the phase, by process tree (CpuMeter.per_unit_ms): what a unit costs
    # while the machine carries a fixed rate, which is what decides whether it keeps up.
    cpu: dict[str, float] | None = None

    @property
    def growth(self) -> float:
        """The second half's median latency over the first half's: about 1 when the backlog stays bounded.

        Medians, not p99s: a p99 of 300 latencies is set by a handful of them, and the first half's
        tail already holds the units started when a backlog, if any, had grown for half the phase.
        Printed beside the inbound bench's goal, which was this ratio until it was measured misjudging
        both ways (docs/decisions/0012-bench-method.md): a median that starts at 20 ms makes a
        large ratio of a small wait, and a phase that starts in a stall grows little after it.
        """
        return self.second_half.percentile(50) / max(self.first_half.percentile(50), 1e-9)


async def open_loop(start: Callable[[int], Awaitable[None]], *, rate: float, count: int) -> None:
    """Start ``start(i)`` at ``i / rate`` seconds for ``i`` below ``count`` (a slow one delays no later one)."""
    started = time.perf_counter()
    tasks = []
    for i in range(count):
        delay = started + i / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(start(i)))
    await asyncio.gather(*tasks)


def halves(
    label: str, order: list[str], began: dict[str, float], ended: dict[str, float]
) -> tuple[Figures, Figures]:
    """The latencies of the first and second half of ``order`` (units that never ended have none)."""
    parts = (order[: len(order) // 2], order[len(order) // 2 :])

    def figures(name: str, units: list[str]) -> Figures:
        latencies = [(ended[u] - began[u]) * 1000 for u in units if u in ended]
        span = (max(ended[u] for u in units if u in ended) - began[units[0]]) if latencies else 0.0
        return Figures(f"{label}, {name} half", len(latencies), span, latencies)

    return figures("first", parts[0]), figures("second", parts[1])


async def load(
    label: str,
    call: Callable[[int], Awaitable[Any]],
    *,
    total: int,
    concurrency: int,
    deadline_s: float = 120.0,
) -> Figures:
    """Run ``call(i)`` ``total`` times with ``concurrency`` at once; time each call.

    The bench process's own heap is collected and frozen first (``quiet_client_heap``), so its
    collector's full passes do not stall the load while calls are in flight.
    """
    quiet_client_heap()
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


def quiet_client_heap() -> None:
    """Collect the bench process's garbage, then freeze what is left out of later full passes.

    The bench process is the measuring instrument, and it is heavy: the Temporal client and worker of
    the baselines, the SDKs, the test support. A full pass of its collector over that heap took 89 ms,
    during which no response is read: every call in flight gains that much, 16 of them at once, which
    is the p99 of a 1,000-call phase. It came in whichever phase reached the threshold, the service's or
    the baseline's, so the p99 ratios swung with it from run to run (docs/decisions/0012-bench-method.md).
    Called before every measured phase, so each starts with the same small young heap.
    """
    gc.collect()
    gc.freeze()


def _housekeeping_every() -> float:
    """The shortest interval of the worker's housekeeping schedules (``switchboard.worker.SCHEDULES``)."""
    from switchboard.worker import SCHEDULES

    return min(every.total_seconds() for _, _, every in SCHEDULES)


# A tick's workflows (a sweep or a prune each, on the worker and the Temporal server) are done by then.
HOUSEKEEPING_SETTLE_S = 2.0


async def clear_of_housekeeping(needed_s: float) -> None:
    """Wait, if need be, until the next ``needed_s`` seconds hold none of the worker's housekeeping ticks.

    The worker's schedules start their sweeps every 30 s, on the minute and the half minute (Temporal
    aligns an interval schedule to the epoch), whatever the load. A phase of a few seconds that takes
    in a tick pays for those workflows, in its tail most of all: four deployed sandbox phases read a
    p99 of 95 and 142 ms across a tick and 80 and 85 ms clear of one (docs/decisions/0012-bench-method.md).
    The short phases (the sandbox sends and the bare endpoint beside them) start clear of a tick, so
    that both or neither pay for it; the housekeeping's cost is fixed a tick, not a send.
    """
    every = _housekeeping_every()
    into = time.time() % every
    if into < HOUSEKEEPING_SETTLE_S:
        await asyncio.sleep(HOUSEKEEPING_SETTLE_S - into)
    elif every - into < needed_s:
        await asyncio.sleep(every - into + HOUSEKEEPING_SETTLE_S)


def pooled(label: str, *parts: Figures) -> Figures:
    """Several runs of one phase as one: their units, their seconds and their latencies added up.

    A baseline run both before and after the phase it is compared with, then pooled, cancels a drift of
    the machine's speed over the run (a neighbour's load coming or going), which one baseline run ahead
    of the phase would read into the ratio.
    """
    return Figures(
        label,
        sum(part.count for part in parts),
        sum(part.seconds for part in parts),
        [latency for part in parts for latency in part.latencies_ms],
    )


def pooled_cpu(*parts: tuple[dict[str, float], int]) -> dict[str, float]:
    """CPU milliseconds per unit over several runs, each ``(per_unit_ms, units)``: weighted by their units."""
    units = sum(count for _, count in parts) or 1
    names = dict.fromkeys(name for per_unit, _ in parts for name in per_unit)  # first part's order
    return {
        name: round(sum(per_unit.get(name, 0.0) * count for per_unit, count in parts) / units, 1)
        for name in names
    }


# Unmeasured calls before each measured phase, and where their indices start (clear of the phase's own).
WARM_UP = 20
WARM_UP_FROM = 1_000_000


async def warm_up(call: Callable[[int], Awaitable[Any]], *, concurrency: int, count: int = WARM_UP) -> None:
    """Run ``call`` a few times, unmeasured, with indices from WARM_UP_FROM.

    A process's first requests of a kind pay once for what later ones reuse: pooled connections, the
    SQL compile cache, the key and phone caches, imports on first use. Over a 200-unit phase that one-off
    cost read as a few milliseconds of CPU per unit, on the service's side more than on the baseline's.
    """
    await load("warm-up", lambda i: call(WARM_UP_FROM + i), total=count, concurrency=concurrency)


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


def compile_bytecode() -> None:
    """Compile the service's and the bench's modules to bytecode, as an installed wheel has them.

    The workflow sandbox imports a workflow's module afresh for every run. Without a .pyc
    (PYTHONDONTWRITEBYTECODE=1, as on this machine) every such import compiles the source again, about
    5 % of a worker's CPU under load, which a deployment from the wheel does not pay (pip compiles at
    install). Both the service's workflows and the bare baseline's are compiled, so neither side pays it.
    """
    root = Path(__file__).resolve().parent.parent
    for folder in (root / "src" / "switchboard", root / "bench"):
        compileall.compile_dir(str(folder), quiet=1)


@asynccontextmanager
async def temporal_dev_server() -> AsyncIterator[WorkflowEnvironment]:
    compile_bytecode()
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
    upgrade_to_head(url, quiet=True)
    return url


def fresh_database_url(server_url: str | None) -> str:
    """A fresh, migrated database: a SQLite file, or a new database on the PostgreSQL server of ``server_url``."""
    if not server_url:
        return fresh_sqlite_url()
    import psycopg
    from sqlalchemy.engine import make_url

    from switchboard.store.migrate import upgrade_to_head

    url = make_url(server_url)
    if url.host not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit(f"benchmarks run on loopback only, not against {url.host}")
    name = f"sb_bench_{uuid.uuid4().hex[:10]}"
    admin = url.set(drivername="postgresql", database="postgres").render_as_string(hide_password=False)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')

    def drop() -> None:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    atexit.register(drop)
    fresh = url.set(database=name).render_as_string(hide_password=False)
    upgrade_to_head(fresh, quiet=True)
    return fresh


def database_label(database_url: str) -> str:
    return "PostgreSQL" if database_url.startswith("postgresql") else "SQLite"


def settings_env(settings: Any) -> dict[str, str]:
    """The environment that gives a child process ``settings`` (every value that differs from the default)."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "TEMPORAL_", "SWITCHBOARD_"))
    }
    for name, field in type(settings).model_fields.items():
        value = getattr(settings, name)
        if value == field.default or value is None:
            continue
        alias = field.validation_alias if isinstance(field.validation_alias, str) else name
        env[alias.upper()] = str(value).lower() if isinstance(value, bool) else str(value)
    return env


# The running service processes' pids by role ("api", "worker"), while service_processes() holds them.
SERVICE_PIDS: dict[str, int] = {}


def _proc_cpu_seconds(pid: int) -> float:
    """User plus system CPU of one process (Linux /proc), 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (uvicorn's worker processes, say)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        queue.extend(children.get(current, []))
    return found


def temporal_server_pid(address: str) -> int | None:
    """The dev server listening on ``address`` (host:port), found by its command line."""
    port = address.rsplit(":", 1)[1]
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().split(b"\0")
        except (FileNotFoundError, ProcessLookupError):
            continue
        if b"start-dev" in args and port.encode() in args:
            return int(entry.name)
    return None


def postgres_server_pid(database_url: str) -> int | None:
    """The postmaster serving ``database_url`` (its backends are its children), None for SQLite."""
    if database_label(database_url) != "PostgreSQL":
        return None
    import psycopg
    from sqlalchemy.engine import make_url

    url = make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT pg_backend_pid()").fetchone()
        if row is None:
            return None
        # Read while the backend still lives: once the connection closes its /proc entry goes.
        stat = Path(f"/proc/{row[0]}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])


class CpuMeter:
    """CPU seconds each named process tree used over a phase, to say where a unit of work's time goes."""

    def __init__(self, roots: dict[str, int | None]) -> None:
        self._roots = {name: pid for name, pid in roots.items() if pid is not None}
        self._start: dict[str, float] = {}

    def _now(self) -> dict[str, float]:
        totals = {
            name: sum(_proc_cpu_seconds(pid) for pid in _descendants(root))
            for name, root in self._roots.items()
        }
        # This process: the load client, the fake servers and the baselines' workers.
        totals["bench process"] = time.process_time()
        return totals

    def start(self) -> None:
        self._start = self._now()

    def per_unit_ms(self, units: int) -> dict[str, float]:
        """CPU milliseconds per unit of work since start(), per process tree, and their total."""
        now = self._now()
        used = {name: (now[name] - self._start.get(name, 0.0)) * 1000 / max(units, 1) for name in now}
        used["total"] = sum(used.values())
        return {name: round(value, 1) for name, value in used.items()}


def cpu_line(label: str, per_unit: dict[str, float]) -> str:
    parts = ", ".join(f"{name} {value:.1f}" for name, value in per_unit.items() if name != "total")
    return f"  CPU ms per {label}: {per_unit['total']:.1f} ({parts})"


@dataclass
class BareRun:
    """One run of the bare workflow: under load, paced and offered (when asked for), its CPU a workflow."""

    loaded: Figures
    paced: Figures | None
    cpu: dict[str, float]
    offered: Offered | None = None


async def bare_baseline(
    env: WorkflowEnvironment,
    *,
    total: int,
    concurrency: int,
    paced: int = 0,
    when: str,
    of: str = "the service",
    offered_share: float = 0.0,
    offered_seconds: float = 0.0,
) -> BareRun:
    """The bare workflow with one no-op activity, on its own task queue and worker in this process.

    A benchmark runs it ``before`` its service starts and again ``after`` the service stops, with
    nothing else running, and pools the two runs (``pooled``, ``pooled_cpu``); ``when`` and ``of`` name
    the run in its figures' labels ("before the service"). ``paced`` more follow one at a time, then,
    with ``offered_share``, ``offered_seconds`` of them started at that share of this run's loaded
    throughput: the rate a service's offered-rate phase runs at next, and that phase's baseline
    (whether the machine, as it is then, keeps up with it).
    """
    queue = f"bench-bare-{when}-{uuid.uuid4().hex[:6]}"
    name = f"{when} {of}"
    async with Worker(
        env.client,
        task_queue=queue,
        workflows=[OneActivity],
        activities=[noop],
        max_concurrent_activities=100,
    ):

        async def bare_workflow(i: int) -> None:
            await env.client.execute_workflow(OneActivity.run, i, id=f"{queue}-{i}", task_queue=queue)

        await warm_up(bare_workflow, concurrency=concurrency)
        cpu = CpuMeter({"temporal server": temporal_server_pid(env.client.service_client.config.target_host)})
        cpu.start()
        loaded = await load(f"  baseline run {name}", bare_workflow, total=total, concurrency=concurrency)
        used = cpu.per_unit_ms(loaded.count)
        paced_figures = None
        if paced:
            paced_figures = await load(
                f"  baseline run {name}, paced",
                lambda i: bare_workflow(total + i),
                total=paced,
                concurrency=1,
            )
        offered = None
        if offered_share > 0 and offered_seconds > 0:
            offered_rate = offered_share * loaded.per_second
            count = max(2, int(offered_rate * offered_seconds))
            order = [f"{queue}-offered-{i}" for i in range(count)]
            began: dict[str, float] = {}
            ended: dict[str, float] = {}

            async def offered_workflow(i: int) -> None:
                began[order[i]] = time.perf_counter()
                await env.client.execute_workflow(OneActivity.run, i, id=order[i], task_queue=queue)
                ended[order[i]] = time.perf_counter()

            quiet_client_heap()
            cpu.start()
            await open_loop(offered_workflow, rate=offered_rate, count=count)
            offered_cpu = cpu.per_unit_ms(len(ended))
            label = f"  baseline offered {offered_rate:.0f}/s {name}"
            offered = Offered(offered_rate, count, *halves(label, order, began, ended), cpu=offered_cpu)
    return BareRun(loaded, paced_figures, used, offered)


@asynccontextmanager
async def service_under_test(settings: Any, *, deployed: bool) -> AsyncIterator[str]:
    """The service as `switchboard dev` runs it (one API process, one worker process) or as deployed
    (``deployed``: `switchboard api --workers 2` and a worker); yields the API's base URL."""
    async with service_processes(settings, api_workers=2 if deployed else 1) as url:
        yield url


def results_section(name: str, database_url: str, *, processes: bool) -> str:
    """The results.json key of one run: the script's name, then the database and shape when not the default."""
    if database_label(database_url) == "PostgreSQL":
        name += ".postgres"
    return name + (".processes" if processes else "")


async def settled(
    roots: list[int], *, window: float = 0.5, quiet_seconds: float = 0.02, limit: float = 30.0
) -> None:
    """Wait until the process trees of ``roots`` are idle: a finished start-up, or a phase's aftermath.

    /healthz answers as soon as one uvicorn worker is up, while the other and the Temporal worker may still
    be importing and registering for a second or two. That CPU would be charged to the first phase's units
    (and take cores from its load), so wait for two quiet windows in a row. The same holds for the work a
    phase leaves behind (the Temporal server's visibility and cleanup tasks) before the next one starts.
    """

    def used() -> float:
        return sum(_proc_cpu_seconds(pid) for root in roots for pid in _descendants(root))

    deadline = time.monotonic() + limit
    quiet = 0
    previous = used()
    while quiet < 2 and time.monotonic() < deadline:
        await asyncio.sleep(window)
        now = used()
        quiet = quiet + 1 if now - previous < quiet_seconds else 0
        previous = now
    if quiet < 2:
        print(
            f"  (still busy after {limit:.0f} s of waiting to settle: the next phase's figures include that)"
        )


@asynccontextmanager
async def service_processes(settings: Any, *, api_workers: int = 2) -> AsyncIterator[str]:
    """`switchboard api --workers N` and `switchboard worker` as their own processes (dev: N = 1).

    Yields the API's base URL once /healthz answers 200; both processes are stopped on exit. Their pids
    are in SERVICE_PIDS meanwhile (for CpuMeter).
    """
    import httpx

    env = settings_env(settings)
    port = free_port()
    logs = Path(tempfile.mkdtemp(prefix="sb-bench-logs-"))
    command = [sys.executable, "-m", "switchboard.cli"]
    api_args = ["api", "--host", "127.0.0.1", "--port", str(port), "--workers", str(api_workers)]
    processes = [
        await asyncio.create_subprocess_exec(
            *command,
            *api_args,
            env=env,
            stdout=(logs / "api.log").open("wb"),
            stderr=asyncio.subprocess.STDOUT,
        ),
        await asyncio.create_subprocess_exec(
            *command,
            "worker",
            env=env,
            stdout=(logs / "worker.log").open("wb"),
            stderr=asyncio.subprocess.STDOUT,
        ),
    ]
    base = f"http://127.0.0.1:{port}"
    SERVICE_PIDS.update(api=processes[0].pid, worker=processes[1].pid)
    try:
        async with httpx.AsyncClient(timeout=5) as client:
            for _ in range(300):
                try:
                    if (await client.get(f"{base}/healthz")).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.1)
            else:
                raise RuntimeError(f"the API did not come up; see {logs}")
        await settled([process.pid for process in processes])
        yield base
    finally:
        SERVICE_PIDS.clear()
        for process in processes:
            if process.returncode is None:
                process.terminate()
        for process in processes:
            try:
                await asyncio.wait_for(process.wait(), timeout=15)
            except TimeoutError:
                process.kill()


def load_client(base_url: str, *, timeout: float = 60.0) -> Any:
    """The load client: httpx on the pool the service's own clients use (switchboard/http_pool.py).

    httpcore's stock pool hands one idle connection to two of the 16 concurrent requests, and the
    loser goes round again: on this machine that cost the client about 3 ms of CPU a request and put
    190 ms before the first byte of about one request in twenty. A load client that stalls its own
    requests would charge that to whatever it loads.
    """
    from switchboard.http_pool import reserving_client

    return reserving_client(base_url=base_url, timeout=timeout)


@asynccontextmanager
async def bare_endpoint_process(*, workers: int) -> AsyncIterator[tuple[str, int]]:
    """bench/bare_endpoint.py as its own process with ``workers`` uvicorn workers; yields its URL and pid.

    The sandbox sends' baseline, laid out as the API under test is (one process, or a supervisor and
    its workers), so that both cross the same process boundary (bare_endpoint.py's docstring).
    """
    import httpx

    port = free_port()
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(Path(__file__).with_name("bare_endpoint.py")),
        "--port",
        str(port),
        "--workers",
        str(workers),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(timeout=5) as client:
            for _ in range(300):
                try:
                    if (await client.post(f"{base}/v1/messages", json={})).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.1)
            else:
                raise RuntimeError("the bare endpoint did not come up")
        await settled([process.pid])
        yield base, process.pid
    finally:
        if process.returncode is None:
            process.terminate()
        try:
            await asyncio.wait_for(process.wait(), timeout=15)
        except TimeoutError:
            process.kill()


__all__ = [
    "Figures",
    "figures_dict",
    "goal_line",
    "record_results",
    "bench_settings",
    "fresh_sqlite_url",
    "fresh_database_url",
    "database_label",
    "service_processes",
    "bare_endpoint_process",
    "load_client",
    "warm_up",
    "CpuMeter",
    "cpu_line",
    "temporal_server_pid",
    "postgres_server_pid",
    "SERVICE_PIDS",
    "service_under_test",
    "results_section",
    "settings_env",
    "load",
    "ratio_line",
    "serve_app",
    "temporal_dev_server",
    "statistics",
]
