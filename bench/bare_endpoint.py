"""The sandbox sends' baseline: a bare FastAPI endpoint, served the way `switchboard api` serves the API.

Not a bench of its own (`make bench` runs every script in bench/; this one returns at once without
``--port``). send_throughput.py starts it as its own process, with as many uvicorn workers as the API
under test has, so the baseline crosses the same process boundary as a sandbox send: the client in
the bench's process, the server in another. Served in the bench's own event loop instead (the earlier
rounds' baseline, which send_throughput.py still prints for reference), a request never waits for a
second process to be scheduled, and on the bench machine that wait alone puts a tail of 200 ms and
more under about one request in ten (docs/decisions/0012-bench-method.md).

Run: .venv/bin/python bench/bare_endpoint.py --port N [--workers N]   (127.0.0.1 only)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import uvicorn
from fastapi import FastAPI


def bare_app() -> FastAPI:
    """One POST /v1/messages that answers a small JSON body: FastAPI and uvicorn's cost, nothing of ours."""
    app = FastAPI()

    @app.post("/v1/messages")
    async def send(body: dict) -> dict:  # type: ignore[type-arg]
        return {"id": "x", "status": "sent", "echo": body.get("type")}

    return app


# What uvicorn imports in each worker process when there are several (as `switchboard api --workers N`).
app = bare_app()


def serve(port: int, workers: int) -> None:
    """As `switchboard api` serves: the app object for one worker; for more, its import string, each
    worker on a listening socket of its own (switchboard/api/worker_sockets.py)."""
    if workers > 1:
        from switchboard.api.worker_sockets import serve as serve_workers

        # The workers import this module by name: spawned processes start with this sys.path.
        sys.path.insert(0, str(Path(__file__).parent))
        serve_workers("bare_endpoint:app", host="127.0.0.1", port=port, workers=workers)
    else:
        uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, help="serve on 127.0.0.1:PORT; without it, do nothing")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    if args.port:
        serve(args.port, args.workers)
