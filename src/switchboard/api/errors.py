"""Map every failure to the spec's error body.

``{"statusCode", "message", "error", "details"?, "code"?}`` answers every error:
our typed ServiceErrors, FastAPI's request validation, unknown routes, wrong
methods and unexpected exceptions (a 500 with a logged traceback, never a trace
in the response).
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match, Route

from switchboard import metrics
from switchboard.api.routing import flat_routes
from switchboard.domain.error_body import error_body
from switchboard.domain.errors import ServiceError

log = logging.getLogger("switchboard.api")


def service_error_response(exc: ServiceError) -> JSONResponse:
    """Render a typed service error."""
    body = error_body(exc.status_code, exc.message, code=exc.code, details=exc.details)
    body.update(exc.extra)
    return JSONResponse(body, status_code=exc.status_code, headers=exc.headers or None)


def _field_path(loc: tuple[Any, ...]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "header")]
    return ".".join(parts) if parts else ".".join(str(p) for p in loc)


def validation_error_response(exc: RequestValidationError) -> JSONResponse:
    """FastAPI's validation errors in the spec's shape (400)."""
    errors = list(exc.errors())
    for err in errors:
        if err.get("type") == "missing":
            field = _field_path(tuple(err.get("loc", ())))
            return JSONResponse(
                error_body(
                    400, f"{field} is required", code="MISSING_REQUIRED_FIELD", details={"field": field}
                ),
                status_code=400,
            )
    first = errors[0] if errors else {}
    if first.get("type") == "json_invalid":
        return JSONResponse(
            error_body(400, "request body is not valid JSON", code="INVALID_JSON"), status_code=400
        )
    field = _field_path(tuple(first.get("loc", ())))
    details: dict[str, Any] = {"field": field, "reason": first.get("msg", "invalid value")}
    # Never echo what may be a secret (tokens, keys, passwords) back in an error.
    secretish = any(word in field.lower() for word in ("token", "secret", "key", "password"))
    if "input" in first and isinstance(first["input"], str | int | float | bool) and not secretish:
        details["value"] = first["input"]
    return JSONResponse(
        error_body(
            400, f"{field}: {first.get('msg', 'invalid value')}", code="VALIDATION_FAILED", details=details
        ),
        status_code=400,
    )


def allowed_methods(request: Request) -> str:
    """The methods every route of this path accepts, for the ``Allow`` header of a 405.

    Starlette's own 405 names only the first route that matched the path, while
    this API often has one route per method on the same path.
    """
    methods: set[str] = set()
    for route in flat_routes(request.app.router.routes):
        if not isinstance(route, Route) or not route.methods:
            continue
        match, _ = route.matches({**request.scope, "method": "GET"})
        if match is not Match.NONE:
            methods |= set(route.methods)
    if "GET" in methods:
        methods.add("HEAD")
    return ", ".join(sorted(methods))


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers that give every error the spec's body."""

    async def on_service_error(request: Request, exc: Exception) -> JSONResponse:
        if not isinstance(exc, ServiceError):  # registered for ServiceError only
            raise TypeError(f"unexpected {type(exc).__name__}")
        if exc.status_code == 405 and "Allow" not in exc.headers:
            exc.headers["Allow"] = allowed_methods(request)
        if exc.status_code == 429:
            metrics.REFUSALS.labels(exc.code or "RATE_LIMITED").inc()
        return service_error_response(exc)

    async def on_validation(_: Request, exc: Exception) -> JSONResponse:
        if not isinstance(exc, RequestValidationError):  # registered for RequestValidationError only
            raise TypeError(f"unexpected {type(exc).__name__}")
        return validation_error_response(exc)

    async def on_http(request: Request, exc: Exception) -> JSONResponse:
        if not isinstance(exc, StarletteHTTPException):  # registered for StarletteHTTPException only
            raise TypeError(f"unexpected {type(exc).__name__}")
        status = exc.status_code
        headers = dict(exc.headers or {})
        if status == 404:
            message = "no such route" if exc.detail in (None, "Not Found") else str(exc.detail)
        elif status == 405:
            message = "method not allowed on this route"
            headers["Allow"] = allowed_methods(request)
        else:
            message = str(exc.detail)
        return JSONResponse(error_body(status, message), status_code=status, headers=headers or None)

    app.add_exception_handler(ServiceError, on_service_error)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)
