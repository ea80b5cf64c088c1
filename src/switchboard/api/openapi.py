"""The OpenAPI document, made to tell the truth about what the service answers.

FastAPI documents each route's success answer and a 422 in its own
validation-error shape that this service never sends (validation failures are
the spec's 400). This post-processor, run once when the document is first
asked for, rewrites every operation so that a client generator or a fuzzer
sees what really happens:

- every status the operation can answer, each with the spec's error body
  (``statusCode``, ``message``, ``error``, ``details``, ``code``); which ones
  is derived from the route itself (authentication, role check, path
  parameters, request body) plus the table ``_EXTRA`` for the conflicts,
  semantic (422) failures and upstream failures that particular operations have;
- the rate-limit headers (``X-RateLimit-*``; ``Retry-After`` on 429);
- ``X-API-Key`` and ``X-Admin-Key`` as security schemes instead of optional
  header parameters;
- the send payload of ``POST /v1/messages`` with its required fields, its
  ``type`` enum and examples of the main send types.
"""

from __future__ import annotations

from collections.abc import Sequence
from http import HTTPStatus
from typing import Any

from fastapi import APIRouter, FastAPI, params
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute
from starlette.routing import BaseRoute

from switchboard.api.deps import operator, principal
from switchboard.api.openapi_send import (
    SEND_EXAMPLES,
    SEND_PATHS,
    SEND_RESPONSE_SCHEMA,
    SEND_SCHEMA,
    SENT_EXAMPLES,
)
from switchboard.api.routing import flat_routes

ERROR_SCHEMA: dict[str, Any] = {
    "title": "Error",
    "type": "object",
    "description": "The body of every error answer.",
    "required": ["statusCode", "message", "error", "code"],
    "properties": {
        "statusCode": {"type": "integer", "description": "the HTTP status, repeated"},
        "message": {"type": "string", "description": "what went wrong, for a person"},
        "error": {"type": "string", "description": "the status text (e.g. Not Found)"},
        "details": {"type": "object", "description": "e.g. field and value", "additionalProperties": True},
        "code": {
            "type": "string",
            "description": "a stable machine-readable code; the status's generic one (NOT_FOUND, ...) when "
            "nothing more specific applies",
        },
        "retry_after_seconds": {"type": "integer", "description": "on 429: seconds to wait"},
        "error_message": {"type": "string", "description": "on failed sends: the upstream's text"},
    },
    "additionalProperties": True,
}

_RATE_HEADERS: dict[str, Any] = {
    "X-RateLimit-Limit": {
        "description": "requests per second allowed for this key (or, unauthenticated, this address)",
        "schema": {"type": "integer"},
    },
    "X-RateLimit-Remaining": {
        "description": "requests left in the current 1 s window",
        "schema": {"type": "integer"},
    },
    "X-RateLimit-Reset": {
        "description": "Unix time (seconds) when the window resets",
        "schema": {"type": "integer"},
    },
}
_RETRY_AFTER = {
    "Retry-After": {
        "description": "seconds to wait before retrying",
        "required": True,
        "schema": {"type": "integer"},
    }
}
_ALLOW = {
    "Allow": {"description": "the methods this path accepts", "required": True, "schema": {"type": "string"}}
}

_DESCRIPTIONS = {
    400: "Validation failed (MISSING_REQUIRED_FIELD, VALIDATION_FAILED, INVALID_JSON, ...)",
    401: "Missing, malformed, unknown or revoked key (INVALID_API_KEY, EXPIRED_API_KEY, MALFORMED_API_KEY)",
    403: "Forbidden (ROLE_FORBIDDEN, customer_sending_disabled, ...)",
    404: "Not found, including another tenant's resource",
    405: "Method not allowed",
    409: "Conflict (request_in_progress, already exists, still referenced, ...)",
    413: "Request body too large",
    415: "Content-Type is not application/json",
    422: "Semantically invalid",
    429: "Rate limited; wait Retry-After seconds",
    500: "Internal error; retry with backoff",
    502: "Upstream failed",
    503: "Upstream or workflow engine unavailable",
    504: "Upstream timed out; retry with the same Idempotency-Key",
}

_UPSTREAM = (502, 503, 504)
_SEND = (403, 404, 409, 422, *_UPSTREAM)

# Statuses beyond the ones derived from the route's shape, per operation.
_EXTRA: dict[tuple[str, str], tuple[int, ...]] = {
    ("post", "/v1/admin/tenants"): (422,),
    ("post", "/v1/admin/tenants/{tenant_id}/phone-numbers"): (422,),
    ("post", "/v1/messages"): _SEND,
    ("post", "/v1/messages/media"): _SEND,
    ("post", "/v1/messages/upload-media"): _SEND,
    ("post", "/v1/media"): (404, *_UPSTREAM),
    ("post", "/v1/messages/mark-read"): (404, *_UPSTREAM),
    ("post", "/v1/messages/{message_id}/retry"): (403, 409, 422, *_UPSTREAM),
    ("post", "/v1/wabas/{waba_id}/templates"): (422, *_UPSTREAM),
    ("post", "/v1/wabas/{waba_id}/templates/sync"): _UPSTREAM,
    ("post", "/v1/phone-numbers/{phone_id}/username"): (422, *_UPSTREAM),
    ("post", "/v1/inbox-embed/conversations/{id}/messages"): _SEND,
    ("get", "/v1/webhooks/health-by-phone"): (404,),
    ("post", "/v1/webhooks"): (404, 422),
    ("patch", "/v1/webhooks/{webhook_id}"): (422,),
    ("post", "/v1/webhooks/{webhook_id}/test"): (503,),
    ("post", "/v1/agents"): (422,),
    ("patch", "/v1/agents/{agent_id}"): (422,),
    ("post", "/v1/agent-tools"): (422,),
    ("patch", "/v1/agent-tools/{slug}"): (422,),
    ("post", "/v1/agents/{agent_id}/versions"): (422,),
    ("post", "/v1/agent-bindings"): (404, 422),
    ("patch", "/v1/agent-bindings/{binding_id}"): (422,),
    ("patch", "/v1/agent-versions/{version_id}"): (405,),
    ("post", "/v1/inbox-embed/links"): (404,),
    ("get", "/channel/webhook"): (403,),
    ("post", "/channel/webhook"): (400, 401, 413),
}


def _route_facts(app: FastAPI) -> dict[tuple[str, str], dict[str, bool]]:
    """What each route's shape says about its failures: auth, role check, body kind."""
    facts: dict[tuple[str, str], dict[str, bool]] = {}
    for route in flat_routes(app.routes):
        if not isinstance(route, APIRoute) or not route.include_in_schema:
            continue
        calls: set[object] = set()
        stack = [route.dependant]
        while stack:
            dep = stack.pop()
            if dep.call is not None:
                calls.add(dep.call)
                calls.add(getattr(dep.call, "__qualname__", ""))
            stack.extend(dep.dependencies)
        form = any(isinstance(p.field_info, params.Form) for p in route.dependant.body_params)
        for method in route.methods or ():
            facts[(method.lower(), route.path_format)] = {
                "api_key": principal in calls,
                "admin_key": operator in calls,
                "role": any(isinstance(c, str) and c.startswith("require_role") for c in calls),
                "form": form,
            }
    return facts


def _error_response(status: int) -> dict[str, Any]:
    response: dict[str, Any] = {
        "description": _DESCRIPTIONS.get(status, HTTPStatus(status).phrase),
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }
    headers = dict(_RATE_HEADERS)
    if status == 429:
        headers.update(_RETRY_AFTER)
    if status == 405:
        headers.update(_ALLOW)
    response["headers"] = headers
    return response


def _statuses(method: str, path: str, op: dict[str, Any], fact: dict[str, bool]) -> set[int]:
    statuses = {500}
    if fact["api_key"] or fact["admin_key"]:
        # Failed authentication is counted too: a flood of bad keys is 429.
        statuses |= {401, 429}
    if fact["role"]:
        statuses.add(403)
    if op.get("parameters") or "requestBody" in op:
        statuses.add(400)
    if any(p.get("in") == "path" for p in op.get("parameters", [])):
        statuses.add(404)
    if "requestBody" in op:
        statuses |= {400, 413}
        if not fact["form"]:
            statuses.add(415)
    if method in ("post", "patch", "delete") and path.startswith("/v1/") and not fact["admin_key"]:
        # Unique names, still-referenced resources, concurrent edits.
        statuses.add(409)
    if fact["admin_key"] and method in ("post", "patch", "delete"):
        statuses.add(409)
    statuses |= set(_EXTRA.get((method, path), ()))
    return statuses


def _security(doc: dict[str, Any]) -> None:
    schemes = doc.setdefault("components", {}).setdefault("securitySchemes", {})
    schemes["ApiKey"] = {
        "type": "apiKey",
        "in": "header",
        "name": "X-API-Key",
        "description": "gsk_live_... (live) or gsk_test_... (sandbox); identifies the tenant",
    }
    schemes["AdminKey"] = {
        "type": "apiKey",
        "in": "header",
        "name": "X-Admin-Key",
        "description": "the operator key (SWITCHBOARD_ADMIN_KEY)",
    }


def _send_body(op: dict[str, Any], path: str) -> None:
    op["requestBody"] = {
        "required": True,
        "content": {
            "application/json": {
                "schema": {"$ref": "#/components/schemas/SendMessage"},
                **({"examples": SEND_EXAMPLES} if path == "/v1/messages" else {}),
            }
        },
    }
    for status in ("200", "201", "202"):
        ok = op["responses"].setdefault(status, {"description": HTTPStatus(int(status)).phrase})
        ok["content"] = {"application/json": {"schema": SEND_RESPONSE_SCHEMA}}
        if path == "/v1/messages" and status == "201":
            ok["content"]["application/json"]["examples"] = SENT_EXAMPLES
    op["responses"]["200"]["description"] = "An idempotent replay or an already-sent retry"
    op["responses"]["202"]["description"] = "Accepted and queued: the upstream is slow; follow by webhook"


def documented_routes(app: FastAPI, routers: Sequence[APIRouter]) -> list[BaseRoute]:
    """The app's routes in the routers' documented order (the app serves the hot ones first)."""
    rank = {id(router): index for index, router in enumerate(routers)}
    # FastAPI's own routes (the document, the docs pages) are not from a router: they keep their place first.
    return sorted(app.routes, key=lambda route: rank.get(id(getattr(route, "original_router", None)), -1))


def build_openapi(app: FastAPI, routers: Sequence[APIRouter]) -> dict[str, Any]:
    """FastAPI's document, corrected (see the module docstring), its paths in ``routers``' order."""
    doc = get_openapi(
        title=app.title,
        version=app.version,
        description=app.description,
        routes=documented_routes(app, routers),
    )
    facts = _route_facts(app)
    schemas = doc.setdefault("components", {}).setdefault("schemas", {})
    schemas.pop("HTTPValidationError", None)
    schemas.pop("ValidationError", None)
    schemas["Error"] = ERROR_SCHEMA
    schemas["SendMessage"] = SEND_SCHEMA
    _security(doc)
    for path, ops in doc.get("paths", {}).items():
        for method, op in ops.items():
            fact = facts.get(
                (method, path), {"api_key": False, "admin_key": False, "role": False, "form": False}
            )
            op["parameters"] = [
                p for p in op.get("parameters", []) if p.get("name") not in ("X-API-Key", "X-Admin-Key")
            ]
            if not op["parameters"]:
                del op["parameters"]
            security: list[dict[str, list[str]]] = []
            if fact["api_key"] and fact["admin_key"]:
                security = [{"ApiKey": [], "AdminKey": []}]
            elif fact["api_key"]:
                security = [{"ApiKey": []}]
            elif fact["admin_key"]:
                security = [{"AdminKey": []}]
            op["security"] = security
            responses = op.setdefault("responses", {})
            responses.pop("422", None)
            if method == "post" and path in SEND_PATHS:
                _send_body(op, path)
            if method == "post" and path in ("/v1/messages/{message_id}/retry", "/v1/messages/upload-media"):
                responses.setdefault("200", {"description": "An earlier retry of this message, unchanged"})
                responses.setdefault("202", {"description": "Accepted and queued: the upstream is slow"})
            if method == "post" and path == "/channel/webhook":
                op["parameters"] = [
                    {
                        "name": "X-Hub-Signature-256",
                        "in": "header",
                        "required": True,
                        "description": "sha256=<hex HMAC-SHA256 of the raw body with CHANNEL_APP_SECRET>",
                        "schema": {"type": "string"},
                    }
                ]
                op["requestBody"] = {
                    "required": True,
                    "content": {"application/json": {"schema": {"type": "object"}}},
                }
            for status in sorted(_statuses(method, path, op, fact)):
                responses[str(status)] = _error_response(status)
            if fact["api_key"] or fact["admin_key"]:
                for status, response in responses.items():
                    if status.startswith("2"):
                        response.setdefault("headers", {}).update(_RATE_HEADERS)
    return doc


def install_openapi(app: FastAPI, routers: Sequence[APIRouter]) -> None:
    """Serve the corrected document at /openapi.json (built once, on first request)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build_openapi(app, routers)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented override of the schema
