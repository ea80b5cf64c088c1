"""Request dependencies: the authenticated principal, rate limits, sessions.

Every /v1 route depends on ``principal`` (X-API-Key, counted against the key's
limits) and operator routes on ``operator`` (X-Admin-Key alone); tenant-scoped
admin routes take both.

A request whose key is missing, malformed, unknown or revoked has no key to be
counted against, yet the spec puts the rate-limit headers on every response:
it is counted against its client address instead, at the standard live limits
(100/s, 100,000/day), and its 401 carries that bucket's headers. Past that
limit the address gets 429 instead, which also slows down key guessing.
"""

from __future__ import annotations

import hmac
import time
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Header, Request
from sqlalchemy.ext.asyncio import AsyncSession

from switchboard.api.principal import Principal
from switchboard.api.state import AppState
from switchboard.domain.errors import Forbidden, RateLimited, Unauthorized
from switchboard.domain.rate_limits import Limits, limits_for
from switchboard.store.database import unit_of_work


async def app_state(request: Request) -> AppState:
    """The process-wide resources built by the lifespan.

    ``async`` although it awaits nothing: FastAPI runs a plain ``def`` dependency in its thread pool, a
    thread hop per request (about a twentieth of a sandbox send's API CPU).
    """
    return request.app.state.switchboard


State = Annotated[AppState, Depends(app_state)]


# Requests that fail authentication are counted per client address at these limits.
UNAUTHENTICATED_LIMITS = limits_for(mode="live", plan="standard")


async def _count(request: Request, state: AppState, bucket: str, limits: Limits) -> None:
    """Count one request in ``bucket``, note its rate-limit headers, 429 when over the limit."""
    decision = await state.limiter.check(bucket, limits, now=time.time())
    request.state.rate_limit_headers = {
        "X-RateLimit-Limit": decision.limit,
        "X-RateLimit-Remaining": decision.remaining,
        "X-RateLimit-Reset": decision.reset,
    }
    if decision.daily_exhausted:
        raise RateLimited(
            f"daily limit of {limits.per_day} requests exceeded", retry_after_seconds=decision.retry_after
        )
    if not decision.allowed:
        raise RateLimited(
            f"rate limit of {limits.per_second} requests/s exceeded",
            retry_after_seconds=decision.retry_after,
        )


async def count_unauthenticated(request: Request, state: AppState) -> None:
    """Count a request that failed authentication against its client address (headers for its 401)."""
    address = request.client.host if request.client else "unknown"
    await _count(request, state, f"addr:{address}", UNAUTHENTICATED_LIMITS)


async def principal(request: Request, state: State) -> Principal:
    """Authenticate the key and count the request against its limits.

    X-API-Key is read from the request rather than declared as a header parameter: the document
    describes it as a security scheme (api.openapi), and FastAPI's handling of a declared header cost
    about 2 % of a sandbox send's API CPU.
    """
    try:
        who = await state.keys.resolve(request.headers.get("x-api-key"))
    except Unauthorized:
        await count_unauthenticated(request, state)
        raise
    await _count(request, state, who.key_id, who.limits)
    request.state.principal = who
    return who


Caller = Annotated[Principal, Depends(principal)]


def require_role(*roles: str):
    """A dependency that lets only these roles through (ROLE_FORBIDDEN otherwise)."""

    async def check(who: Caller) -> Principal:
        if who.role not in roles:
            raise Forbidden(f"this operation needs the {' or '.join(roles)} role", code="ROLE_FORBIDDEN")
        return who

    return check


OwnerOrAdmin = Annotated[Principal, Depends(require_role("owner", "admin"))]


async def operator(
    request: Request, state: State, x_admin_key: Annotated[str | None, Header(alias="X-Admin-Key")] = None
) -> None:
    """Check X-Admin-Key against the operator key (constant-time)."""
    expected = state.settings.switchboard_admin_key
    if not x_admin_key or not expected or not hmac.compare_digest(x_admin_key.encode(), expected.encode()):
        if getattr(request.state, "rate_limit_headers", None) is None:
            # Not already counted against an API key (tenant-scoped admin routes take both).
            await count_unauthenticated(request, state)
        raise Unauthorized("X-Admin-Key is missing or wrong", code="INVALID_ADMIN_KEY")


Operator = Annotated[None, Depends(operator)]


async def db_session(state: State) -> AsyncIterator[AsyncSession]:
    """One unit of work per request: committed when the handler returns."""
    async with unit_of_work(state.sessions) as session:
        yield session


# "function" scope: the commit happens before the response is sent, so a client
# that reads right after a 2xx sees its write, and a failed commit is an error.
Session = Annotated[AsyncSession, Depends(db_session, scope="function")]
