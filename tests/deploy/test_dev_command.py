"""`switchboard dev` (what `make dev` runs): the API and the worker as processes of their own.

Run as a newcomer runs it, in an empty directory on free ports: the Temporal dev server, the API and
the worker are children of the command, a live send goes through all of them and the simulator, and
Ctrl-C (SIGINT to the command's whole process group, as a terminal sends it) or a dying service stops
every child; a port already in use stops it before any service starts.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.support.http_server import free_port

# Settings the command must build itself; the test process's own (a test database, a task queue) must
# not leak into it.
LEAKY = ("DATABASE_URL", "TEMPORAL_", "SWITCHBOARD_", "CHANNEL_", "OPENAI_", "SIMULATOR_", "PUBLIC_BASE_URL")


@dataclass
class Dev:
    process: asyncio.subprocess.Process
    api: str
    live_key: str
    phone_number_id: str
    stderr: Path

    def children(self) -> dict[int, str]:
        """The command's child processes: pid to command line."""
        pid = self.process.pid
        listed = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        return {int(child): _cmdline(int(child)) for child in listed}


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except FileNotFoundError:
        return ""


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state == "Z"


async def _all_gone(pids: list[int]) -> bool:
    """Whether every one of ``pids`` exits (or is a reaped-to-be zombie) within 30 s."""
    for _ in range(300):
        if all(_gone(pid) for pid in pids):
            return True
        await asyncio.sleep(0.1)
    return False


async def start_dev(cwd: Path, api_port: int) -> asyncio.subprocess.Process:
    """`switchboard dev` in ``cwd``, in a process group of its own (as a terminal runs it)."""
    sim_port, temporal_port, ui_port = (free_port() for _ in range(3))
    env = {name: value for name, value in os.environ.items() if not name.upper().startswith(LEAKY)}
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "switchboard.cli",
        "dev",
        "--api-port",
        str(api_port),
        "--simulator-port",
        str(sim_port),
        "--temporal-port",
        str(temporal_port),
        "--temporal-ui-port",
        str(ui_port),
        # A summary line a second instead of a minute, so the test can read one.
        "--summary-every",
        "1",
        cwd=cwd,
        env={**env, "WORKER_METRICS_PORT": str(free_port())},
        stdout=asyncio.subprocess.PIPE,
        stderr=(cwd / "stderr.log").open("wb"),
        start_new_session=True,
    )


def kill_group(process: asyncio.subprocess.Process) -> None:
    """SIGKILL the command's whole process group, children included (a failed test leaks nothing)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@pytest.fixture
async def dev(tmp_path: Path) -> AsyncIterator[Dev]:
    api_port = free_port()
    stderr = tmp_path / "stderr.log"
    process = await start_dev(tmp_path, api_port)
    assert process.stdout is not None
    banner: dict[str, str] = {}
    try:
        async with asyncio.timeout(120):
            while "phone number" not in banner:
                line = (await process.stdout.readline()).decode()
                assert line, f"switchboard dev exited before its banner: {stderr.read_text()[-2000:]}"
                words = line.split()
                if line.startswith("  live key"):
                    banner["live key"] = words[-1]
                if line.startswith("  phone number"):
                    banner["phone number"] = words[-1].rstrip(")")
        yield Dev(process, f"http://127.0.0.1:{api_port}", banner["live key"], banner["phone number"], stderr)
    finally:
        kill_group(process)
        if process.returncode is None:
            await process.wait()


async def test_dev_runs_api_and_worker_as_processes_and_ctrl_c_stops_them_all(dev: Dev) -> None:
    children = dev.children()
    commands = sorted(" ".join(cmd.split()[2:4]) for cmd in children.values() if "switchboard.cli" in cmd)
    assert commands == ["switchboard.cli api", "switchboard.cli worker"], children
    assert any("temporal server start-dev" in cmd for cmd in children.values()), children
    # The API sends this message itself (an eager start), so nothing here waits for the worker process:
    # wait for its start-up, or the Ctrl-C below may reach it before it handles signals.
    async with asyncio.timeout(60):
        while True:
            if " worker started" in dev.stderr.read_text():
                break
            await asyncio.sleep(0.1)
    async with httpx.AsyncClient(base_url=dev.api, timeout=30) as client:
        sent = await client.post(
            "/v1/messages",
            headers={"X-API-Key": dev.live_key},
            json={
                "phone_number_id": dev.phone_number_id,
                "to": "14155550100",
                "type": "text",
                "text": {"body": "through the API's eager start"},
            },
        )
    assert sent.status_code == 201, sent.text
    assert sent.json()["status"] == "sent" and sent.json()["wa_message_id"]
    # Quiet: the send logged nothing (no line per send at the default level); the summary counts it.
    assert "send recorded" not in dev.stderr.read_text()
    assert dev.process.stdout is not None
    async with asyncio.timeout(60):
        while "1 send (1 sent)" not in (line := (await dev.process.stdout.readline()).decode()):
            assert line, f"switchboard dev exited: {dev.stderr.read_text()[-2000:]}"
    assert " last 1 s: 1 send (1 sent) · 0 inbound messages · " in line
    os.killpg(dev.process.pid, signal.SIGINT)  # Ctrl-C in a terminal: the whole foreground group
    assert await asyncio.wait_for(dev.process.wait(), timeout=60) == 0
    assert await _all_gone(list(children))
    assert " worker stopped" in dev.stderr.read_text()  # the worker shut down, not killed


async def test_a_dying_service_stops_dev_with_a_failure(dev: Dev) -> None:
    children = dev.children()
    [worker] = [pid for pid, cmd in children.items() if "switchboard.cli worker" in cmd]
    os.kill(worker, signal.SIGKILL)
    assert await asyncio.wait_for(dev.process.wait(), timeout=60) == 128 + signal.SIGKILL
    assert await _all_gone(list(children))
    with pytest.raises(httpx.TransportError):
        async with httpx.AsyncClient(timeout=2) as client:
            await client.get(f"{dev.api}/healthz")


async def test_a_port_in_use_stops_dev_before_it_starts_a_service(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = await start_dev(tmp_path, port)
        try:
            out, _ = await asyncio.wait_for(process.communicate(), timeout=120)
        finally:
            kill_group(process)
    assert process.returncode == 1
    stderr = (tmp_path / "stderr.log").read_text()
    assert f"port {port} is in use" in stderr
    assert b"Switchboard is running" not in out
