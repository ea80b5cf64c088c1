"""The service's HTTP pool hands an idle connection to one request at a time (switchboard/http_pool.py).

A real server on loopback answers many concurrent requests. What is counted is how often httpcore's
HTTP/1.1 connection refuses a request because another one got there first (``ConnectionNotAvailable``,
after which the pool tries again). The count is observed by wrapping httpcore's own method. On
httpcore's stock pool the same load produces that refusal: the control shows the count can see it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

import httpcore
import httpx
import pytest
from httpcore._async import http11
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from switchboard.http_pool import ReservingTransport
from switchboard.tls import client_ssl_context
from tests.support.http_server import serve_app

CONCURRENT = 16
ROUNDS = 25


async def _echo(request: Request) -> JSONResponse:
    body = await request.json()
    await asyncio.sleep(0)  # let other requests in, as a real handler's awaits do
    return JSONResponse({"n": body["n"]})


@pytest.fixture
async def server() -> AsyncIterator[str]:
    async with serve_app(Starlette(routes=[Route("/echo", _echo, methods=["POST"])])) as url:
        yield url


@pytest.fixture
def refusals(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per request an HTTP/1.1 connection refused as already taken."""
    seen: list[int] = []
    original = http11.AsyncHTTP11Connection.handle_async_request

    async def counting(self: http11.AsyncHTTP11Connection, request: httpcore.Request) -> httpcore.Response:
        try:
            return await original(self, request)
        except httpcore.ConnectionNotAvailable:
            seen.append(1)
            raise

    monkeypatch.setattr(http11.AsyncHTTP11Connection, "handle_async_request", counting)
    return seen


async def _load(client: httpx.AsyncClient) -> list[int]:
    """CONCURRENT callers, ROUNDS requests each; the numbers the server echoed, in order."""
    answered: list[int] = []

    async def caller(first: int) -> None:
        for n in range(first, first + ROUNDS):
            response = await client.post("/echo", json={"n": n})
            assert response.status_code == 200
            answered.append(response.json()["n"])

    await asyncio.gather(*(caller(i * ROUNDS) for i in range(CONCURRENT)))
    return sorted(answered)


def _reserving(limits: httpx.Limits) -> httpx.AsyncBaseTransport:
    return ReservingTransport(ssl_context=client_ssl_context(), limits=limits)


def _stock(limits: httpx.Limits) -> httpx.AsyncBaseTransport:
    return httpx.AsyncHTTPTransport(verify=client_ssl_context(), limits=limits)


LIMITS = {
    "httpx's default limits": httpx.Limits(max_connections=100, max_keepalive_connections=20),
    # Fewer connections than callers: requests queue, and the pool closes surplus idle connections.
    "tight limits": httpx.Limits(max_connections=8, max_keepalive_connections=2),
}


@pytest.mark.parametrize("limits", LIMITS.values(), ids=LIMITS.keys())
async def test_no_request_is_given_a_connection_another_request_holds(
    server: str, refusals: list[int], limits: httpx.Limits
) -> None:
    async with httpx.AsyncClient(base_url=server, transport=_reserving(limits)) as client:
        answered = await _load(client)
    assert answered == list(range(CONCURRENT * ROUNDS))
    assert refusals == []


async def test_the_stock_pool_under_the_same_load_is_refused_and_tries_again(
    server: str, refusals: list[int]
) -> None:
    """The control: without reservations, the count above is not zero."""
    async with httpx.AsyncClient(
        base_url=server, transport=_stock(LIMITS["httpx's default limits"])
    ) as client:
        answered = await _load(client)
    assert answered == list(range(CONCURRENT * ROUNDS))
    assert len(refusals) > 0


async def test_connections_are_reused_not_opened_per_request(server: str) -> None:
    """Reserving connections does not cost a connection per request: 400 requests open at most one per caller."""
    connects: list[str] = []

    async def trace(event: str, _info: dict[str, object]) -> None:
        if event == "connection.connect_tcp.complete":
            connects.append(event)

    async with httpx.AsyncClient(
        base_url=server, transport=_reserving(LIMITS["httpx's default limits"])
    ) as client:
        client.event_hooks["request"] = [_traced(trace)]
        await _load(client)
    assert 0 < len(connects) <= CONCURRENT


def _traced(
    trace: Callable[[str, dict[str, object]], Awaitable[None]],
) -> Callable[[httpx.Request], Awaitable[None]]:
    """A request hook that asks httpcore to report each request's steps to ``trace``."""

    async def hook(request: httpx.Request) -> None:
        request.extensions["trace"] = trace

    return hook
