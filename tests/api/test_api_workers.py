"""`switchboard api --workers 2`: connections spread over both processes, and a dead worker is replaced.

uvicorn's own multi-process mode shares one listening socket, and the first worker to wake accepts
every pending connection: a client's keep-alive pool could land on one process. Each worker now has
a socket of its own (SO_REUSEPORT, api/worker_sockets.py) and the kernel spreads connections over them.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from switchboard.api.worker_sockets import SpreadMultiprocess, reuse_port_socket, worker_sockets
from tests.support.http_server import free_port
from tests.support.processes import spawn_api

CONNECTIONS = 32


def _children(pid: int) -> list[int]:
    """The supervisor's worker processes (spawned by multiprocessing; not its resource tracker, if any)."""
    found = []
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes()
        except FileNotFoundError:
            continue
        if b"spawn_main" in command:
            found.append(int(child))
    return found


def _established_inodes(port: int) -> set[str]:
    """The socket inodes of established TCP connections whose local port is ``port`` (the server's ends)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local_port = int(fields[1].rsplit(":", 1)[1], 16)
            if local_port == port and fields[3] == "01":  # 01: ESTABLISHED
                inodes.add(fields[9])
    return inodes


def _socket_inodes(pid: int) -> set[str]:
    found = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except FileNotFoundError:
            continue
        if target.startswith("socket:["):
            found.add(target[len("socket:[") : -1])
    return found


def _connections_by_process(parent: int, port: int) -> Counter[int]:
    """How many of the server's ends of established connections on ``port`` each child process holds."""
    established = _established_inodes(port)
    return Counter({child: len(_socket_inodes(child) & established) for child in _children(parent)})


@pytest.fixture
def api(settings) -> Iterator[tuple[subprocess.Popen[bytes], int]]:  # type: ignore[no-untyped-def]
    port = free_port()
    process = spawn_api(settings, port, workers=2)
    try:
        yield process, port
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def _healthy(base: str) -> None:
    async with httpx.AsyncClient() as client:
        for _ in range(300):
            try:
                if (await client.get(f"{base}/healthz")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)
    raise AssertionError(f"{base} did not come up")


async def _both_serving(parent: int, port: int) -> None:
    """Until each worker process has a listening socket open on the port (they start one after the other)."""
    for _ in range(300):
        children = _children(parent)
        if len(children) == 2 and all(_socket_inodes(child) for child in children):
            await _healthy(f"http://127.0.0.1:{port}")
            return
        await asyncio.sleep(0.1)
    raise AssertionError("the workers did not start")


def _get_health(connection: socket.socket) -> bytes:
    connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
    return connection.recv(4096)


async def test_connections_opened_at_once_spread_over_both_workers_and_each_serves(api):
    process, port = api
    await _both_serving(process.pid, port)
    # Opened together and kept, as a proxy's or a load client's keep-alive pool is.
    connections = [socket.create_connection(("127.0.0.1", port)) for _ in range(CONNECTIONS)]
    try:
        # Counted once every connection is accepted and before any request: an answered connection
        # idle past uvicorn's keep-alive timeout (5 s, reachable on a loaded CI machine) is closed.
        for _ in range(100):
            held = _connections_by_process(process.pid, port)
            if sum(held.values()) == CONNECTIONS:
                break
            await asyncio.sleep(0.1)
        answers = await asyncio.gather(*(asyncio.to_thread(_get_health, c) for c in connections))
        assert all(answer.startswith(b"HTTP/1.1 200") for answer in answers)
    finally:
        for connection in connections:
            connection.close()
    # The kernel hashes each connection to one of the two sockets: an even split is likeliest, and fewer
    # than 4 of 32 on one side has a probability of about 3 in a million. One shared socket put 16/0,
    # 15/1 or 11/5 on this machine.
    assert sum(held.values()) == CONNECTIONS
    assert len(held) == 2 and min(held.values()) >= 4, held
    # /metrics, answered by one of them, counts what both served (prometheus_client's multiprocess mode).
    async with httpx.AsyncClient() as client:
        text = (await client.get(f"http://127.0.0.1:{port}/metrics")).text
    served = sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "switchboard_http_requests_total" and sample.labels["route"] == "/healthz"
    )
    assert served >= CONNECTIONS, served


async def test_a_dead_worker_is_replaced_on_its_own_socket(api):
    process, port = api
    await _both_serving(process.pid, port)
    before = _children(process.pid)
    listening = {child: _socket_inodes(child) for child in before}
    victim = before[0]
    os.kill(victim, signal.SIGKILL)
    for _ in range(300):
        now = [child for child in _children(process.pid) if child != victim]
        if len(now) == 2 and all(_socket_inodes(child) for child in now):
            break
        await asyncio.sleep(0.1)
    replacement = next(child for child in _children(process.pid) if child not in before)
    # The replacement listens on the socket the dead worker had (the parent kept it open), not on both.
    shared = _socket_inodes(replacement) & (listening[victim] | listening[before[1]])
    assert shared and shared <= listening[victim]
    await _healthy(f"http://127.0.0.1:{port}")


def test_every_worker_needs_a_socket_of_its_own():
    from uvicorn import Config

    sock = reuse_port_socket("127.0.0.1", free_port(), backlog=16)
    try:
        with pytest.raises(ValueError, match="2 workers need as many sockets"):
            SpreadMultiprocess(Config("switchboard.api.asgi:app", workers=2), [sock])
    finally:
        sock.close()


def test_a_port_another_program_holds_is_refused():
    """SO_REUSEPORT shares a port only between sockets that all ask for it."""
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    try:
        with pytest.raises(OSError):
            reuse_port_socket("127.0.0.1", holder.getsockname()[1], backlog=16)
    finally:
        holder.close()


def test_a_port_a_running_api_holds_is_refused_to_a_second_one():
    """Its sockets share the port among themselves; a second API on the port fails instead of joining them."""
    port = free_port()
    running = worker_sockets("127.0.0.1", port, workers=2, backlog=16)
    try:
        with pytest.raises(OSError):
            worker_sockets("127.0.0.1", port, workers=2, backlog=16)
    finally:
        for sock in running:
            sock.close()
    # Released, the port is free again.
    for sock in worker_sockets("127.0.0.1", port, workers=2, backlog=16):
        sock.close()
