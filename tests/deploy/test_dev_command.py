"""`switchboard dev` (what `make dev` runs): the API and the worker as processes of their own.

Run as a newcomer runs it, in an empty directory on free ports: the Temporal dev server, the API and
the worker are children of the command, a live send goes through all of them and the simulator, and
Ctrl-C (SIGINT to the command alone) or a dying service stops every child.
"""

from __future__ import annotations

import asyncio
import os
import signal
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


@pytest.fixture
async def dev(tmp_path: Path) -> AsyncIterator[Dev]:
    api_port, sim_port, temporal_port, ui_port = (free_port() for _ in range(4))
    env = {name: value for name, value in os.environ.items() if not name.upper().startswith(LEAKY)}
    stderr = tmp_path / "stderr.log"
    process = await asyncio.create_subprocess_exec(
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
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=stderr.open("wb"),
    )
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
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_dev_runs_api_and_worker_as_processes_and_ctrl_c_stops_them_all(dev: Dev) -> None:
    children = dev.children()
    commands = sorted(" ".join(cmd.split()[2:4]) for cmd in children.values() if "switchboard.cli" in cmd)
    assert commands == ["switchboard.cli api", "switchboard.cli worker"], children
    assert any("temporal server start-dev" in cmd for cmd in children.values()), children
    async with httpx.AsyncClient(base_url=dev.api, timeout=30) as client:
        sent = await client.post(
            "/v1/messages",
            headers={"X-API-Key": dev.live_key},
            json={
                "phone_number_id": dev.phone_number_id,
                "to": "14155550100",
                "type": "text",
                "text": {"body": "through the worker process"},
            },
        )
    assert sent.status_code == 201, sent.text
    assert sent.json()["status"] == "sent" and sent.json()["wa_message_id"]
    dev.process.send_signal(signal.SIGINT)
    assert await asyncio.wait_for(dev.process.wait(), timeout=60) == 0
    assert await _all_gone(list(children))
    assert '"worker stopped"' in dev.stderr.read_text()  # the worker shut down, not killed


async def test_a_dying_service_stops_dev_with_a_failure(dev: Dev) -> None:
    children = dev.children()
    [worker] = [pid for pid, cmd in children.items() if "switchboard.cli worker" in cmd]
    os.kill(worker, signal.SIGKILL)
    assert await asyncio.wait_for(dev.process.wait(), timeout=60) != 0
    assert await _all_gone(list(children))
    with pytest.raises(httpx.TransportError):
        async with httpx.AsyncClient(timeout=2) as client:
            await client.get(f"{dev.api}/healthz")
