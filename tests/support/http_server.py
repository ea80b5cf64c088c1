"""Run an ASGI app on a real loopback port inside the test's event loop.

Tests mock at the network edge: fake upstreams, webhook receivers, tool
endpoints and model-provider APIs are real HTTP servers on 127.0.0.1, so the
code under test (and the official SDKs) go through real sockets.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import uvicorn


def free_port() -> int:
    """A port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def bound_socket(port: int = 0) -> socket.socket:
    """A socket bound to 127.0.0.1:``port`` (0: any free port), for uvicorn to listen on.

    Binding here, instead of picking a free port and letting uvicorn bind it later, leaves no moment
    in which another process (CI runs two suites side by side) can take the port in between.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    return sock


@asynccontextmanager
async def serve_app(app: Any, *, port: int | None = None) -> AsyncIterator[str]:
    """Serve ``app`` on 127.0.0.1 and yield its base URL (no trailing slash)."""
    sock = bound_socket(port or 0)
    port = int(sock.getsockname()[1])
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    # The test process owns signals; uvicorn must not install its own handlers.
    server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        for _ in range(500):
            if server.started:
                break
            if task.done():
                task.result()
            await asyncio.sleep(0.01)
        else:
            raise RuntimeError(f"server on port {port} did not start")
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        try:
            await asyncio.wait_for(task, timeout=10)
        finally:
            sock.close()
