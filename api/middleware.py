"""The outermost ASGI layer: rate-limit headers, request ids, last-resort 500s.

A plain ASGI middleware (not BaseHTTPMiddleware) so it adds no task or copy per
request. It puts the rate-limit headers that authentication computed onto
whatever response goes out, error responses included, and turns any exception
that escaped the handlers into the spec's 500 body after logging it.
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any

from domain.error_body import error_body

log = logging.getLogger("switchboard.api")

Scope = dict[str, Any]


class EdgeMiddleware:
    """Adds X-RateLimit-* and X-Request-Id; renders unexpected failures as 500."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        request_id = (headers.get(b"x-request-id") or os.urandom(8).hex().encode())[:64]
        state = scope.setdefault("state", {})
        state["request_id"] = request_id.decode(errors="replace")
        started = False

        async def send_wrapper(message: dict[str, Any]) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                extra = [(b"x-request-id", request_id)]
                for name, value in (state.get("rate_limit_headers") or {}).items():
                    extra.append((name.lower().encode(), str(value).encode()))
                message = {**message, "headers": list(message.get("headers", [])) + extra}
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        except Exception:
            log.exception(
                "unhandled error", extra={"request_id": state["request_id"], "path": scope.get("path")}
            )
            if started:
                raise
            body = json.dumps(error_body(500, "internal error; retry with backoff")).encode()
            await send_wrapper(
                {
                    "type": "http.response.start",
                    "status": 500,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
                }
            )
            await send({"type": "http.response.body", "body": body})
