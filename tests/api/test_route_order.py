"""The app serves its hot routers first; no route may shadow another, or reordering would change answers.

A request is matched against the routes in order (api.routers.serving_order puts the
channel webhook and the messages routers first). That is safe only while every route
is reached by its own requests: each route's path, its parameters filled with a value
no literal segment uses, must be served by that route and no earlier one.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.routing import APIRoute

from switchboard.api.app import create_app
from switchboard.api.routers import all_routers, serving_order
from switchboard.api.routing import flat_routes

_PARAM = re.compile(r"\{[^}]+\}")


async def _served_by(app: Any, method: str, path: str) -> Any:
    """The route the app picks for a request (FastAPI notes it in the scope before calling it)."""
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [],
        "client": ("127.0.0.1", 1),
        "server": ("switchboard.test", 80),
    }

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        return None

    # No lifespan ran: a handler that reaches for the service's state fails (a 500), after routing.
    await app(scope, receive, send)
    return scope.get("route")


async def test_every_route_is_served_by_itself(settings):
    app = create_app(settings)
    # Every route of ours, documented or not (the portal's pages); FastAPI's own pages note no route.
    routes = [r for r in flat_routes(app.routes) if isinstance(r, APIRoute)]
    assert len(routes) > 50
    for route in routes:
        path = _PARAM.sub("zq7", route.path)
        for method in sorted(route.methods or ()):
            if method == "HEAD":
                continue
            served = await _served_by(app, method, path)
            assert served is route, f"{method} {route.path} is served by {getattr(served, 'path', served)}"


def test_the_hot_routers_come_first_and_none_is_lost():
    documented = all_routers()
    serving = serving_order(documented)
    assert sorted(map(id, serving)) == sorted(map(id, documented))
    assert [r.prefix for r in serving[:2]] == ["/channel", "/v1/messages"]


@pytest.mark.parametrize("path", ["/channel/webhook", "/v1/messages"])
async def test_the_document_keeps_the_documented_order(settings, path):
    app = create_app(settings)
    paths = list(app.openapi()["paths"])
    # /healthz and the operator's routes come first in all_routers, as before the reorder.
    assert paths[0] == "/healthz"
    assert paths.index(path) > paths.index("/v1/admin/tenants")
