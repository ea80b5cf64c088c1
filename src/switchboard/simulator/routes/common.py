"""Shared request plumbing for the Graph routes: state access, auth, JSON bodies."""

from __future__ import annotations

import json
import re
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request

from switchboard.simulator.delivery import WebhookPoster
from switchboard.simulator.graph_errors import expired_token, invalid_parameter, invalid_token, unknown_path
from switchboard.simulator.state import SimState
from switchboard.simulator.triggers import EXPIRED_TOKEN

_VERSION = re.compile(r"^v\d+\.\d+$")


def get_state(request: Request) -> SimState:
    """The app's simulator state."""
    return request.app.state.sim


def get_poster(request: Request) -> WebhookPoster:
    """The app's webhook poster (built in the lifespan)."""
    return request.app.state.poster


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return request.query_params.get("access_token") or None


def graph_auth(request: Request) -> str:
    """Check the API version segment and the bearer token the way Graph does; return the token."""
    version = request.path_params.get("version", "")
    if not _VERSION.match(version):
        if request.url.path.startswith("/_sim/"):
            # A mistyped control path is ours to answer, not Graph's.
            raise HTTPException(status_code=404, detail="Not Found")
        raise unknown_path(request.url.path)
    return check_bearer(request)


def check_bearer(request: Request) -> str:
    """Refuse a missing, expired or (when tokens are configured) unknown bearer token with code 190."""
    token = _bearer(request)
    if token is None:
        raise invalid_token()
    if token == EXPIRED_TOKEN:
        raise expired_token()
    allowed = get_state(request).config.access_tokens
    if allowed is not None and token not in allowed:
        raise invalid_token()
    return token


async def json_body(request: Request) -> Any:
    """The request's JSON body, or a Graph 400 when it is not JSON."""
    raw = await request.body()
    try:
        return json.loads(raw) if raw else {}
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise invalid_parameter(f"The request body is not valid JSON: {exc}") from exc


State = Annotated[SimState, Depends(get_state)]
Poster = Annotated[WebhookPoster, Depends(get_poster)]
Token = Annotated[str, Depends(graph_auth)]
