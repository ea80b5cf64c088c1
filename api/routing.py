"""Route class that enforces JSON bodies (415 otherwise).

FastAPI would try to read a non-JSON body and answer a confusing validation
error; the spec wants 415 for a Content-Type other than application/json.
Routes that take multipart forms (media upload) are exempt.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterator, Sequence
from typing import Any

from fastapi import Request, Response, params
from fastapi.routing import APIRoute
from starlette.routing import BaseRoute

from domain.errors import UnsupportedMediaType

_BODY_METHODS = {"POST", "PUT", "PATCH"}


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


def _has_body(request: Request) -> bool:
    length = request.headers.get("content-length")
    return (length is not None and length != "0") or "transfer-encoding" in request.headers


class JsonRoute(APIRoute):
    """An APIRoute that answers 415 to a non-JSON request body."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        takes_form = any(isinstance(p.field_info, params.Form) for p in self.dependant.body_params)
        if takes_form:
            return handler

        async def json_only(request: Request) -> Response:
            if request.method in _BODY_METHODS and _has_body(request):
                content_type = request.headers.get("content-type", "")
                if not _is_json(content_type):
                    raise UnsupportedMediaType(
                        f"Content-Type must be application/json, got {content_type or 'none'}"
                    )
            return await handler(request)

        return json_only


def flat_routes(routes: Sequence[BaseRoute]) -> Iterator[BaseRoute]:
    """Every route, descending into included routers (newer FastAPI keeps them nested)."""
    for route in routes:
        nested = getattr(route, "original_router", None)
        if nested is not None:
            yield from flat_routes(nested.routes)
        else:
            yield route
