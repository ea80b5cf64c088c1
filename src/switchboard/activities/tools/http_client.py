"""The one egress-guarded HTTP client that tool requests (and token pre-requests) go through.

Decisions:

- Host pinning against DNS rebinding: httpx keeps the URL as written (so the ``Host`` header, TLS SNI and
  certificate verification all use the real host name), but its connection pool gets our own network
  backend, whose ``connect_tcp`` resolves the host once through the :class:`EgressGuard` and opens the
  socket to one of exactly those vetted addresses. Pooled connections are keyed by host name, so a
  connection verified for one name is never reused for another. (httpx offers no constructor argument
  for the network backend, so :class:`GuardedTransport` replaces the transport's ``_pool``, with
  httpcore's pool that never hands one idle connection to two requests: ``switchboard.http_pool``.)
- Redirects are never followed: a tool makes exactly one request, and a 3xx is classified like any
  other status (undeclared, it is infra).
- ``timeout_ms`` bounds the whole exchange (resolution, connect, send, and reading the body), not each
  phase separately.
- The body is read as a stream and the read stops past ``max_response_bytes`` (1 MiB) of *decoded*
  content, so a gzip bomb is cut off too.
- No environment proxies, no ``.netrc``: ``trust_env`` is off (a proxy would resolve names itself and
  defeat the guard).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import httpcore
import httpx

from switchboard.activities.tools.egress import EgressGuard, EgressRefused
from switchboard.http_pool import ReservingTransport
from switchboard.tls import client_ssl_context

MAX_RESPONSE_BYTES = 1 << 20
USER_AGENT = "switchboard-tools/1"


class ResponseTooLarge(Exception):
    """The answer was longer than the cap; the rest of it was not read."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the response is larger than {limit} bytes")
        self.limit = limit


@dataclass(frozen=True)
class ToolHttpResponse:
    """A complete, size-capped answer: ``body`` is parsed JSON, else text, else None when empty."""

    status_code: int
    body: Any
    size_bytes: int


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """Opens TCP connections only to addresses the egress guard vetted for the requested host."""

    def __init__(self, guard: EgressGuard, inner: httpcore.AsyncNetworkBackend | None = None) -> None:
        self._guard = guard
        self._inner = inner or httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Resolve and vet ``host``, then connect to the first vetted address that answers."""
        try:
            async with asyncio.timeout(timeout):
                addresses = await self._guard.vet(host, port)
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout(f"resolving {host} timed out") from exc
        except OSError as exc:
            raise httpcore.ConnectError(f"cannot resolve {host}: {exc}") from exc
        failure: Exception | None = None
        for address in addresses:
            try:
                return await self._inner.connect_tcp(
                    address, port, timeout=timeout, local_address=local_address, socket_options=socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        raise failure or httpcore.ConnectError(f"{host} has no address to connect to")

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Never: a tool reaches hosts, not local sockets."""
        raise EgressRefused(path, "unix sockets are not tool destinations")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class GuardedTransport(ReservingTransport):
    """httpx's transport with a connection pool built on :class:`GuardedBackend`."""

    def __init__(self, guard: EgressGuard, *, limits: httpx.Limits) -> None:
        super().__init__(
            ssl_context=client_ssl_context(trust_env=False),
            limits=limits,
            trust_env=False,
            network_backend=GuardedBackend(guard),
        )


def egress_client(*, allow_private: bool) -> httpx.AsyncClient:
    """The guarded client for URLs a tenant supplied: its webhooks, its media links.

    Webhook POSTs reuse connections (activities/webhooks/http.py). An idle one is dropped after 4 s,
    before the 5 s after which uvicorn and Node close theirs; one a server closed sooner is seen closed
    and replaced. Only a close in flight at the very moment of a POST fails it (a failed attempt,
    retried on the schedule like any other).
    """
    return httpx.AsyncClient(
        transport=GuardedTransport(
            EgressGuard(allow_private=allow_private),
            limits=httpx.Limits(max_connections=100, keepalive_expiry=4.0),
        ),
        timeout=httpx.Timeout(30.0, connect=5.0),
        follow_redirects=False,
        trust_env=False,
    )


class ToolHttpClient:
    """Sends tool requests through the egress guard with a total timeout and a response size cap."""

    def __init__(
        self,
        guard: EgressGuard,
        *,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
        limits: httpx.Limits | None = None,
    ) -> None:
        transport = GuardedTransport(guard, limits=limits or httpx.Limits(max_connections=200))
        self._client = httpx.AsyncClient(transport=transport, follow_redirects=False, trust_env=False)
        self._max_response_bytes = max_response_bytes

    async def send(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str],
        timeout_ms: int,
        params: Mapping[str, Any] | None = None,
        json_body: Any = None,
    ) -> ToolHttpResponse:
        """Send one request; raises EgressRefused, ResponseTooLarge, TimeoutError or httpx.HTTPError."""
        seconds = timeout_ms / 1000
        request = self._client.build_request(
            method,
            url,
            params=dict(params) if params else None,
            headers={"User-Agent": USER_AGENT, "Accept": "application/json", **headers},
            json=json_body,
            timeout=httpx.Timeout(seconds),
        )
        async with asyncio.timeout(seconds):
            response = await self._client.send(request, stream=True)
            try:
                data = await self._read_capped(response)
            finally:
                await response.aclose()
        return ToolHttpResponse(response.status_code, _parse_body(data, response), len(data))

    async def _read_capped(self, response: httpx.Response) -> bytes:
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self._max_response_bytes:
            raise ResponseTooLarge(self._max_response_bytes)
        chunks, size = [], 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > self._max_response_bytes:
                raise ResponseTooLarge(self._max_response_bytes)
            chunks.append(chunk)
        return b"".join(chunks)

    async def aclose(self) -> None:
        """Close pooled connections (worker shutdown)."""
        await self._client.aclose()


def _parse_body(data: bytes, response: httpx.Response) -> Any:
    if not data.strip():
        return None
    try:
        return json.loads(data)
    except ValueError:
        return data.decode(response.encoding or "utf-8", errors="replace")
