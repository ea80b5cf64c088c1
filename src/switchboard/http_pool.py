"""httpcore's connection pool, without handing one idle HTTP/1.1 connection to two requests.

httpcore 1.0 assigns an idle connection to a waiting request and leaves it idle until that request's
task runs and starts sending on it. Meanwhile, any other request's pass over the pool sees the same
connection idle and assigns it again. The task that comes second gets ``ConnectionNotAvailable`` and
goes round the pool's loop once more, where the same thing can happen again. Under 16 concurrent
requests to one host on the bench machine, 2,000 requests went round 6,191 extra times. About one in
twenty waited 150 ms or more before its first byte left, 190 ms on average (docs/decisions/0007-http-connections.md). The same pass can also close such a connection as a surplus idle one (encode/httpcore
issue #1110). httpx2's fork of the pool excludes these reserved connections; httpcore 1.0.9, the
newest release, does not.

``ReservingConnectionPool`` wraps each connection it creates so that the connection reads as neither
idle nor available while a request of the pool holds it and has not started on it. The pool's own
pass then gives a waiting request another connection, or opens one, and never closes the held one.
Everything else is httpcore's.
"""

from __future__ import annotations

import ssl
from typing import Any

import httpcore
import httpx

from switchboard.tls import client_ssl_context


class ReservingConnectionPool(httpcore.AsyncConnectionPool):
    """An ``httpcore.AsyncConnectionPool`` whose connections are reserved by the request they are assigned to."""

    def create_connection(self, origin: httpcore.Origin) -> httpcore.AsyncConnectionInterface:
        return _Reservable(super().create_connection(origin), self)

    def holds(self, connection: httpcore.AsyncConnectionInterface) -> bool:
        """Whether a request in this pool was assigned ``connection`` and has not yet finished with it."""
        return any(request.connection is connection for request in self._requests)


class _Reservable(httpcore.AsyncConnectionInterface):
    """A pooled connection that is not offered again while it is reserved (module docstring)."""

    def __init__(self, inner: httpcore.AsyncConnectionInterface, pool: ReservingConnectionPool) -> None:
        self._inner = inner
        self._pool = pool

    def _reserved(self) -> bool:
        # Only an idle connection can be reserved: one that is sending or receiving is unavailable anyway.
        return self._inner.is_idle() and self._pool.holds(self)

    async def handle_async_request(self, request: httpcore.Request) -> httpcore.Response:
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()

    def info(self) -> str:
        return self._inner.info()

    def can_handle_request(self, origin: httpcore.Origin) -> bool:
        return self._inner.can_handle_request(origin)

    def is_available(self) -> bool:
        return self._inner.is_available() and not self._reserved()

    def has_expired(self) -> bool:
        return self._inner.has_expired()

    def is_idle(self) -> bool:
        return self._inner.is_idle() and not self._pool.holds(self)

    def is_closed(self) -> bool:
        return self._inner.is_closed()

    def __repr__(self) -> str:
        return f"<Reservable {self._inner!r}>"


DEFAULT_LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20)


def reserving_pool(
    *,
    ssl_context: ssl.SSLContext,
    limits: httpx.Limits = DEFAULT_LIMITS,
    network_backend: httpcore.AsyncNetworkBackend | None = None,
) -> ReservingConnectionPool:
    """The pool an httpx transport builds, from the same limits, with reservations."""
    return ReservingConnectionPool(
        ssl_context=ssl_context,
        max_connections=limits.max_connections,
        max_keepalive_connections=limits.max_keepalive_connections,
        keepalive_expiry=limits.keepalive_expiry,
        network_backend=network_backend,
    )


class ReservingTransport(httpx.AsyncHTTPTransport):
    """httpx's transport on a :class:`ReservingConnectionPool` (HTTP/1.1, no proxy of its own)."""

    def __init__(
        self,
        *,
        ssl_context: ssl.SSLContext,
        limits: httpx.Limits = DEFAULT_LIMITS,
        trust_env: bool = True,
        network_backend: httpcore.AsyncNetworkBackend | None = None,
    ) -> None:
        super().__init__(verify=ssl_context, trust_env=trust_env, limits=limits)
        # httpx exposes no hook for its pool; replacing it is how a custom httpcore pool is given.
        self._pool = reserving_pool(ssl_context=ssl_context, limits=limits, network_backend=network_backend)


def reserving_client(**client_options: Any) -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` on a :class:`ReservingTransport`, verifying with the service's context.

    ``verify`` still matters beside the custom transport: httpx gives it to the transports it mounts
    for proxies named in the environment.
    """
    return httpx.AsyncClient(
        transport=ReservingTransport(ssl_context=client_ssl_context()),
        verify=client_ssl_context(),
        **client_options,
    )
