"""A tenant's API on a loopback port: records every request, answers as the test scripts it.

``POST /oauth/token`` issues ``tok-1``, ``tok-2``, ... (optionally slowly, to widen a race window);
every other path goes to ``respond``, which the test replaces. ``reject_next`` makes the next main
requests answer 401 (an expired or revoked token) before ``respond`` is consulted.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    query: list[tuple[str, str]]
    headers: dict[str, str]
    body: Any


def json_reply(status: int = 200, body: Any = None) -> Response:
    """A JSON answer."""
    return JSONResponse(body if body is not None else {"ok": True}, status_code=status)


@dataclass
class FakeApi:
    """The scriptable API; ``requests`` holds the main requests, ``token_requests`` the token fetches."""

    respond: Callable[[Recorded], Response | Awaitable[Response]] = field(default=lambda _rec: json_reply())
    token_delay: float = 0.0
    token_status: int = 200
    token_field: str = "access_token"
    reject_next: int = 0
    requests: list[Recorded] = field(default_factory=list)
    token_requests: list[Recorded] = field(default_factory=list)

    def app(self) -> Starlette:
        """The ASGI app to serve."""
        return Starlette(
            routes=[
                Route("/oauth/token", self._token, methods=["GET", "POST"]),
                Route("/{path:path}", self._main, methods=["GET", "POST", "PUT", "PATCH", "DELETE"]),
            ]
        )

    async def _record(self, request: Request) -> Recorded:
        raw = await request.body()
        return Recorded(
            method=request.method,
            path=request.url.path,
            query=list(request.query_params.multi_items()),
            headers={k.lower(): v for k, v in request.headers.items()},
            body=json.loads(raw) if raw else None,
        )

    async def _token(self, request: Request) -> Response:
        recorded = await self._record(request)
        self.token_requests.append(recorded)
        number = len(self.token_requests)
        if self.token_delay:
            await asyncio.sleep(self.token_delay)
        if self.token_status != 200:
            return json_reply(self.token_status, {"error": "invalid_client"})
        return json_reply(200, {self.token_field: f"tok-{number}", "expires_in": 3600})

    async def _main(self, request: Request) -> Response:
        recorded = await self._record(request)
        self.requests.append(recorded)
        if self.reject_next > 0:
            self.reject_next -= 1
            return json_reply(401, {"error": "token expired"})
        result = self.respond(recorded)
        return await result if isinstance(result, Awaitable) else result


def streamed(total_bytes: int, *, chunk: int = 64 * 1024) -> Response:
    """A chunked answer of ``total_bytes`` with no Content-Length (the cap must count while reading)."""

    async def body() -> AsyncIterator[bytes]:
        sent = 0
        while sent < total_bytes:
            size = min(chunk, total_bytes - sent)
            sent += size
            yield b"x" * size

    return StreamingResponse(body(), media_type="application/json")


async def slow_reply(seconds: float) -> Response:
    """An answer that comes after ``seconds``."""
    await asyncio.sleep(seconds)
    return json_reply()
