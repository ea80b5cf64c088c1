"""Route class that enforces JSON bodies (415 otherwise) free of NUL characters (400).

FastAPI would try to read a non-JSON body and answer a confusing validation
error; the spec wants 415 for a Content-Type other than application/json.
Routes that take multipart forms (media upload) are exempt.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine, Iterator, Sequence
from typing import Any

from fastapi import Request, Response, params
from fastapi.routing import APIRoute
from starlette.routing import BaseRoute, Match, Route
from starlette.types import Scope

from switchboard.domain.errors import UnsupportedMediaType, ValidationFailed
from switchboard.domain.nul_text import might_hold_nul, nul_path

_BODY_METHODS = {"POST", "PUT", "PATCH"}


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


def _has_body(request: Request) -> bool:
    length = request.headers.get("content-length")
    return (length is not None and length != "0") or "transfer-encoding" in request.headers


async def _refuse_nul(request: Request) -> None:
    """400 for a JSON body holding U+0000 anywhere (Starlette caches the body for the handler)."""
    raw = await request.body()
    if not might_hold_nul(raw):
        return
    try:
        body = json.loads(raw)
    except ValueError:
        return  # malformed JSON: the handler's own parsing answers it
    field = nul_path(body)
    if field is not None:
        raise ValidationFailed(
            f"{field} contains the NUL character (\\u0000), which no text field accepts",
            code="VALIDATION_FAILED",
            details={"field": field},
        )


class JsonRoute(APIRoute):
    """An APIRoute that answers 415 to a non-JSON request body, and leaves fixed paths to their own routes.

    ``/v1/messages/{message_id}`` would otherwise also match ``/v1/messages/mark-read``: a GET there
    would look up a message called "mark-read" (404), and a 405 there would list GET in its ``Allow``.
    A path that some route spells out in full belongs to the routes that spell it (any other method is a
    405 naming theirs), as the OpenAPI document says.
    """

    _fixed_paths: frozenset[str] | None = None

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if self.param_convertors and scope.get("type") == "http":
            fixed = self._fixed_paths
            if fixed is None:
                fixed = self._fixed_paths = fixed_paths(scope["app"].router.routes)
            if scope.get("path") in fixed:
                return Match.NONE, {}
        return super().matches(scope)

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
                await _refuse_nul(request)
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


def fixed_paths(routes: Sequence[BaseRoute]) -> frozenset[str]:
    """The paths routes spell out in full (no parameter)."""
    return frozenset(
        route.path for route in flat_routes(routes) if isinstance(route, Route) and not route.param_convertors
    )
