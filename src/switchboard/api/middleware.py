"""The outermost ASGI layer: body limits, rate-limit headers, request ids, last-resort 500s.

A plain ASGI middleware (not BaseHTTPMiddleware) so it adds no task or copy per
request. It puts the rate-limit headers that authentication computed onto
whatever response goes out, error responses included, and turns any exception
that escaped the handlers into the spec's 500 body after logging it. Every
line logged while a request is served carries its ``request_id`` and, once the
caller is authenticated, its ``tenant_id``.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator, Mapping
from typing import Any

from switchboard import metrics
from switchboard.domain.error_body import error_json
from switchboard.logs import bound_log_fields

log = logging.getLogger("switchboard.api")

Scope = dict[str, Any]


MIB = 1024 * 1024
# JSON bodies are small; media uploads carry files up to the channel's 100 MB
# document cap; channel webhooks (history syncs) can be a few MB.
_LIMITS = (("/v1/media", 101 * MIB), ("/v1/messages/upload-media", 101 * MIB), ("/channel/", 8 * MIB))
DEFAULT_BODY_LIMIT = MIB


def route_label(scope: Scope) -> str:
    """The matched route's template (``/v1/messages/{id}``), never the raw path: a bounded label."""
    route = scope.get("route")
    template = getattr(route, "path", None)
    if isinstance(template, str):
        return template
    path = str(scope.get("path", ""))
    return "/portal/static" if path.startswith("/portal/static") else "unmatched"


def _count(scope: Scope, headers: dict[bytes, bytes], status: int, began: float) -> None:
    """Count the answered request; at LOG_LEVEL=DEBUG also log one line for it."""
    route, method = route_label(scope), str(scope.get("method", ""))
    api_key = headers.get(b"x-api-key", b"").decode(errors="replace") or None
    mode = metrics.key_mode(api_key, admin=b"x-admin-key" in headers)
    seconds = time.perf_counter() - began
    metrics.HTTP_REQUESTS.labels(route, method, str(status), mode).inc()
    metrics.HTTP_LATENCY.labels(route, method).observe(seconds)
    if log.isEnabledFor(logging.DEBUG):
        log.debug(
            "request answered",
            extra={"method": method, "route": route, "status": status, "ms": round(seconds * 1000, 1)},
        )


def body_limit(path: str) -> int:
    """The largest request body accepted on ``path``."""
    return next((limit for prefix, limit in _LIMITS if path.startswith(prefix)), DEFAULT_BODY_LIMIT)


class RequestLogFields(Mapping[str, object]):
    """The ids of the request being served, read from its scope state when a line is logged."""

    def __init__(self, state: dict[str, Any]) -> None:
        self._state = state

    def _fields(self) -> dict[str, object]:
        fields: dict[str, object] = {"request_id": self._state.get("request_id")}
        # Authentication (api.deps) puts the caller here; until then the tenant is unknown.
        tenant_id = getattr(self._state.get("principal"), "tenant_id", None)
        if tenant_id is not None:
            fields["tenant_id"] = tenant_id
        return fields

    def __getitem__(self, key: str) -> object:
        return self._fields()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._fields())

    def __len__(self) -> int:
        return len(self._fields())


class BodyTooLarge(Exception):
    """The request body grew past its limit while being read."""


class EdgeMiddleware:
    """Enforces body limits (413), adds X-RateLimit-* and X-Request-Id, renders unexpected failures as 500."""

    def __init__(self, app: Any) -> None:
        self.app = app

    @staticmethod
    async def _reject_413(send: Any, limit: int, extra: list[tuple[bytes, bytes]]) -> None:
        body = error_json(413, f"request body larger than {limit} bytes")
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            *extra,
        ]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    @staticmethod
    def _extra(state: dict[str, Any], request_id: bytes) -> list[tuple[bytes, bytes]]:
        extra = [(b"x-request-id", request_id)]
        for name, value in (state.get("rate_limit_headers") or {}).items():
            extra.append((name.lower().encode(), str(value).encode()))
        return extra

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        request_id = (headers.get(b"x-request-id") or os.urandom(8).hex().encode())[:64]
        state = scope.setdefault("state", {})
        state["request_id"] = request_id.decode(errors="replace")
        started = False
        too_large = False
        began = time.perf_counter()
        status = 500

        async def send_wrapper(message: dict[str, Any]) -> None:
            nonlocal started, status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            if too_large and not started:
                # The framework turned the aborted read into a parse error; the truth is a 413.
                started, status = True, 413
                await self._reject_413(send, limit, self._extra(state, request_id))
                return
            if too_large:
                return
            if message["type"] == "http.response.start":
                started = True
                message = {
                    **message,
                    "headers": list(message.get("headers", [])) + self._extra(state, request_id),
                }
            await send(message)

        limit = body_limit(scope.get("path", ""))
        declared = headers.get(b"content-length", b"")
        if declared.isdigit() and int(declared) > limit:
            await self._reject_413(send, limit, self._extra(state, request_id))
            _count(scope, headers, 413, began)
            return
        received = 0

        async def counted_receive() -> dict[str, Any]:
            nonlocal received, too_large
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    too_large = True
                    raise BodyTooLarge(limit)
            return dict(message)

        with bound_log_fields(RequestLogFields(state)):
            try:
                await self.app(scope, counted_receive, send_wrapper)
            except BodyTooLarge:
                if not started:
                    status = 413
                    await self._reject_413(send, limit, self._extra(state, request_id))
            except Exception:
                log.exception(
                    "unhandled error", extra={"request_id": state["request_id"], "path": scope.get("path")}
                )
                if started:
                    raise
                body = error_json(500, "internal error; retry with backoff")
                await send_wrapper(
                    {
                        "type": "http.response.start",
                        "status": 500,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
            finally:
                _count(scope, headers, status, began)
