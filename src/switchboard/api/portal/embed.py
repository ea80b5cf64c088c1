"""Embedding the inbox without an API key in the page: signed links, a session cookie, and the inbox API behind it.

1. The tenant's server asks ``POST /v1/inbox-embed/links`` (a live owner/admin
   key) for a link. The answer's ``url`` carries a signed token in its
   fragment (``/portal/inbox#embed=...``): a fragment is never sent to a
   server, so the token stays out of access logs, proxies and Referer headers.
2. The inbox page posts the token once to ``POST /portal/inbox/session``; it is
   checked (signature, kind, expiry, the issuing key still valid) and
   exchanged for an HttpOnly session cookie scoped to ``/portal/inbox`` plus
   an anti-forgery value the page keeps in sessionStorage and sends back as
   ``X-Portal-CSRF``. The page then drops the fragment from its URL.
3. The page's calls go to ``/portal/inbox/api/...``: the same handlers as
   ``/v1/inbox-embed/...``, acting as the issuing key (tenant, role, rate
   limits), narrowed to the link's phone number when it named one, and with
   the link's ``requireAgentLogin`` imposed on every reply.

Cookie attributes: over https ``Secure; SameSite=None; Partitioned`` (a
cross-site iframe, partitioned per embedding site). Browsers drop
``SameSite=None`` cookies that are not ``Secure``, so over plain http (local
development on loopback) the cookie is ``SameSite=Lax`` without ``Secure``:
the embedding page must then be same-site, e.g. another port on 127.0.0.1.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Body, Cookie, Depends, Header, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.ext.asyncio import AsyncSession

from switchboard.api.deps import Caller, OwnerOrAdmin, Session, State
from switchboard.api.pagination import Paging
from switchboard.api.portal import tokens
from switchboard.api.principal import Principal
from switchboard.api.routers import inbox, inbox_reply
from switchboard.api.routing import JsonRoute
from switchboard.api.state import AppState
from switchboard.domain.errors import (
    Forbidden,
    InternalFailure,
    NotFound,
    RateLimited,
    Unauthorized,
    ValidationFailed,
)
from switchboard.domain.rate_limits import Limits, limits_for
from switchboard.models.base import iso_millis
from switchboard.models.messaging import Contact, Conversation
from switchboard.models.tenancy import ApiKey, Tenant
from switchboard.store import conversations, messages
from switchboard.store.scoping import owned

COOKIE = "sb_inbox"
COOKIE_PATH = "/portal/inbox"
CSRF_HEADER = "X-Portal-CSRF"
SESSION_SECONDS = 3600
LINK_DEFAULT_SECONDS = 900
LINK_MAX_SECONDS = 3600
MAX_CONTACT_IDS = 100
# Refused tokens and sessions are counted per client address at the standard live limits.
REFUSED_LIMITS = limits_for(mode="live", plan="standard")

links_router = APIRouter(prefix="/v1/inbox-embed", tags=["inbox embed"], route_class=JsonRoute)
session_router = APIRouter(prefix=COOKIE_PATH, route_class=JsonRoute, include_in_schema=False)


class EmbedLinkCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    requireAgentLogin: bool = Field(
        default=False, description="the inbox asks who is replying; replies are HUMAN_PORTAL"
    )
    phone_number_id: str | None = Field(
        default=None, description="show only this business number's conversations (channel id)"
    )
    ttl_seconds: int = Field(default=LINK_DEFAULT_SECONDS, ge=60, le=LINK_MAX_SECONDS)


class SessionOpen(BaseModel):
    model_config = ConfigDict(extra="forbid")

    token: str = Field(min_length=1, max_length=tokens.MAX_TOKEN_LENGTH)


def _secrets_key(state: AppState) -> bytes:
    try:
        return state.settings.secrets_key_bytes
    except ValueError:
        raise InternalFailure(
            "embed links need SWITCHBOARD_SECRETS_KEY (the base64 of 32 random bytes)",
            code="EMBED_NOT_CONFIGURED",
        ) from None


@links_router.post("/links", status_code=201)
async def create_embed_link(
    body: EmbedLinkCreate, who: OwnerOrAdmin, session: Session, state: State
) -> dict[str, Any]:
    """A short-lived signed URL of the inbox page for an iframe (live owner or admin key)."""
    if who.is_sandbox:
        raise Forbidden("embed links are issued with a live key", code="LIVE_KEY_REQUIRED")
    if body.phone_number_id is not None:
        await messages.phone_for_send(session, who.tenant_id, body.phone_number_id)
    token, claims = tokens.issue(
        _secrets_key(state),
        typ=tokens.LINK,
        tenant_id=who.tenant_id,
        key_id=who.key_id,
        require_agent_login=body.requireAgentLogin,
        phone_number_id=body.phone_number_id,
        now=int(time.time()),
        ttl_seconds=body.ttl_seconds,
    )
    base = state.settings.public_base_url.rstrip("/")
    return {
        "url": f"{base}/portal/inbox#embed={token}",
        "expires_at": _iso(claims.exp),
        "ttl_seconds": body.ttl_seconds,
        "requireAgentLogin": claims.ral,
        "phone_number_id": claims.pn,
    }


@links_router.get("/contacts")
async def list_contacts(
    who: Caller,
    session: Session,
    ids: Annotated[str, Query(description="comma-separated contact ids (at most 100)")],
) -> dict[str, Any]:
    """Names and identifiers of contacts of the inbox's conversations (what the conversation list shows)."""
    return {"data": await _contacts(session, who.tenant_id, ids, phone_number_id=None)}


async def _contacts(
    session: AsyncSession, tenant_id: str, ids: str, *, phone_number_id: str | None
) -> list[dict[str, Any]]:
    wanted = [value for value in dict.fromkeys(part.strip() for part in ids.split(",")) if value]
    if len(wanted) > MAX_CONTACT_IDS:
        raise ValidationFailed(
            f"ids names at most {MAX_CONTACT_IDS} contacts",
            code="VALIDATION_FAILED",
            details={"field": "ids"},
        )
    if not wanted:
        return []
    # Only contacts of conversations this caller could open (visible numbers, the link's number).
    visible = (
        conversations.inbox_conversations(tenant_id, phone_number_id=phone_number_id)
        .with_only_columns(Conversation.contact_id)  # type: ignore[call-overload]
        .order_by(None)
    )
    stmt = owned(Contact, tenant_id).where(
        Contact.id.in_(wanted),  # type: ignore[attr-defined]
        Contact.id.in_(visible),  # type: ignore[attr-defined]
    )
    rows: list[Contact] = list((await session.execute(stmt)).scalars().all())
    return [
        {"id": c.id, "name": c.name, "username": c.username, "bsuid": c.bsuid, "phone": c.phone} for c in rows
    ]


def _iso(epoch: int) -> str:
    return iso_millis(datetime.fromtimestamp(epoch, tz=UTC))


async def _principal_for(state: AppState, claims: tokens.Claims) -> Principal:
    """The issuing key as a principal, while it exists, is live and is not revoked."""
    async with state.sessions() as session:
        key = await session.get(ApiKey, claims.kid)
        tenant = await session.get(Tenant, claims.tid) if key is not None else None
    if key is None or tenant is None or key.tenant_id != claims.tid or key.mode != "live":
        raise Unauthorized("the key that issued this inbox link no longer exists", code="INVALID_EMBED_TOKEN")
    if key.revoked_at is not None:
        raise Unauthorized("the key that issued this inbox link has been revoked", code="EMBED_KEY_REVOKED")
    limits = limits_for(
        mode=key.mode,
        plan=tenant.plan,
        custom_per_second=tenant.rate_limit_per_second,
        custom_per_day=tenant.rate_limit_per_day,
    )
    return Principal(tenant.id, key.id, key.mode, key.role, tenant.plan, limits)


async def _count_in(request: Request, state: AppState, bucket: str, limits: Limits) -> None:
    decision = await state.limiter.check(bucket, limits, now=time.time())
    request.state.rate_limit_headers = {
        "X-RateLimit-Limit": decision.limit,
        "X-RateLimit-Remaining": decision.remaining,
        "X-RateLimit-Reset": decision.reset,
    }
    if decision.daily_exhausted or not decision.allowed:
        raise RateLimited("rate limit exceeded", retry_after_seconds=decision.retry_after)


async def _count(request: Request, state: AppState, who: Principal) -> None:
    """Count the request against the issuing key's limits, as X-API-Key requests are."""
    await _count_in(request, state, who.key_id, who.limits)
    request.state.principal = who


async def _count_refusal(request: Request, state: AppState) -> None:
    """Count a refused token or session against the client address (slows down guessing)."""
    address = request.client.host if request.client else "unknown"
    await _count_in(request, state, f"addr:{address}", REFUSED_LIMITS)


def _set_cookie(response: Response, request: Request, state: AppState, value: str, max_age: int) -> None:
    """Secure, SameSite=None and Partitioned over https; SameSite=Lax over plain http (see above).

    Written by hand: the standard library only knows Partitioned from Python 3.14 on.
    """
    secure = request.url.scheme == "https" or state.settings.public_base_url.startswith("https://")
    attributes = [f"{COOKIE}={value}", f"Max-Age={max_age}", f"Path={COOKIE_PATH}", "HttpOnly"]
    attributes += ["Secure", "SameSite=None", "Partitioned"] if secure else ["SameSite=Lax"]
    response.headers.append("set-cookie", "; ".join(attributes))


def _token_error(exc: tokens.BadToken, *, what: str) -> Unauthorized:
    if exc.reason == "expired":
        return Unauthorized(f"this inbox {what} has expired", code=f"EXPIRED_EMBED_{what.upper()}")
    return Unauthorized(f"this inbox {what} is not valid", code=f"INVALID_EMBED_{what.upper()}")


@session_router.post("/session")
async def open_session(body: SessionOpen, request: Request, state: State) -> JSONResponse:
    """Exchange a link's token for the inbox session cookie (and the page's X-Portal-CSRF value)."""
    secret = _secrets_key(state)
    now = int(time.time())
    try:
        link = tokens.verify(secret, body.token, typ=tokens.LINK, now=now)
        who = await _principal_for(state, link)
    except tokens.BadToken as exc:
        await _count_refusal(request, state)
        raise _token_error(exc, what="token") from None
    except Unauthorized:
        await _count_refusal(request, state)
        raise
    await _count(request, state, who)
    value, claims = tokens.issue(
        secret,
        typ=tokens.SESSION,
        tenant_id=link.tid,
        key_id=link.kid,
        require_agent_login=link.ral,
        phone_number_id=link.pn,
        now=now,
        ttl_seconds=SESSION_SECONDS,
    )
    response = JSONResponse(
        {**_session_view(claims), "csrf": tokens.csrf_token(secret, claims.jti)},
        headers={"Cache-Control": "no-store"},
    )
    # The value is base64url and dots only: nothing to quote.
    _set_cookie(response, request, state, value, SESSION_SECONDS)
    return response


@session_router.delete("/session")
async def close_session(request: Request, state: State) -> JSONResponse:
    """Forget the session cookie (signing out of the embedded inbox)."""
    response = JSONResponse({"closed": True}, headers={"Cache-Control": "no-store"})
    _set_cookie(response, request, state, "", 0)
    return response


def _session_view(claims: tokens.Claims) -> dict[str, Any]:
    return {
        "requireAgentLogin": claims.ral,
        "phone_number_id": claims.pn,
        "expires_at": _iso(claims.exp),
    }


@dataclass(frozen=True)
class EmbedCaller:
    who: Principal
    claims: tokens.Claims


async def embed_caller(
    request: Request,
    state: State,
    session_cookie: Annotated[str | None, Cookie(alias=COOKIE)] = None,
    csrf: Annotated[str | None, Header(alias=CSRF_HEADER)] = None,
) -> EmbedCaller:
    """The session behind an embedded inbox's call: cookie, then anti-forgery header, then the key."""
    secret = _secrets_key(state)
    try:
        if not session_cookie:
            raise Unauthorized(
                "no inbox session: open the inbox from a fresh embed link", code="EMBED_SESSION_REQUIRED"
            )
        try:
            claims = tokens.verify(secret, session_cookie, typ=tokens.SESSION, now=int(time.time()))
        except tokens.BadToken as exc:
            raise _token_error(exc, what="session") from None
        if not tokens.csrf_matches(secret, claims.jti, csrf):
            raise Forbidden(f"{CSRF_HEADER} is missing or wrong", code="CSRF_CHECK_FAILED")
        who = await _principal_for(state, claims)
    except (Unauthorized, Forbidden):
        await _count_refusal(request, state)
        raise
    await _count(request, state, who)
    return EmbedCaller(who, claims)


Embed = Annotated[EmbedCaller, Depends(embed_caller)]


async def _in_scope(session: AsyncSession, caller: EmbedCaller, conversation_id: str) -> None:
    """404 for a conversation outside the link's phone number (as for another tenant's)."""
    conversation = await conversations.visible_conversation(session, caller.who.tenant_id, conversation_id)
    if caller.claims.pn is not None and conversation.phone_number_id != caller.claims.pn:
        raise NotFound("conversation", conversation_id)


@session_router.get("/api/session")
async def session_info(caller: Embed) -> dict[str, Any]:
    """What the page needs to know about its session (requireAgentLogin, scope, expiry)."""
    return _session_view(caller.claims)


@session_router.get("/api/conversations")
async def session_conversations(
    caller: Embed,
    session: Session,
    paging: Paging,
    status: Annotated[str | None, Query()] = None,
    phone_number_id: Annotated[str | None, Query()] = None,
) -> dict[str, Any]:
    """GET /v1/inbox-embed/conversations for the embedded session."""
    return await inbox.list_conversations(
        caller.who, session, paging, status=status, phone_number_id=caller.claims.pn or phone_number_id
    )


@session_router.get("/api/conversations/{id}")
async def session_conversation(id: str, caller: Embed, session: Session) -> Any:
    """GET /v1/inbox-embed/conversations/{id} for the embedded session."""
    await _in_scope(session, caller, id)
    return await inbox.get_conversation(id, caller.who, session)


@session_router.get("/api/conversations/{id}/messages")
async def session_messages(id: str, caller: Embed, session: Session, paging: Paging) -> dict[str, Any]:
    """GET /v1/inbox-embed/conversations/{id}/messages for the embedded session."""
    await _in_scope(session, caller, id)
    return await inbox.list_conversation_messages(id, caller.who, session, paging)


@session_router.post("/api/conversations/{id}/archive")
async def session_archive(id: str, caller: Embed, session: Session) -> Any:
    """POST /v1/inbox-embed/conversations/{id}/archive for the embedded session."""
    await _in_scope(session, caller, id)
    return await inbox.archive_conversation(id, caller.who, session)


@session_router.post("/api/conversations/{id}/messages", status_code=201, response_model=None)
async def session_reply(
    id: str,
    caller: Embed,
    state: State,
    body: Annotated[dict[str, Any], Body()],
    idempotency_key: Annotated[str | None, Header(alias="Idempotency-Key", max_length=255)] = None,
) -> JSONResponse:
    """The human reply, with the link's requireAgentLogin imposed (HUMAN_PORTAL or HUMAN_EMBED_ANONYMOUS)."""
    async with state.sessions() as session:
        await _in_scope(session, caller, id)
    body = {**body, "requireAgentLogin": caller.claims.ral}
    return await inbox_reply.reply(id, state, caller.who, body, idempotency_key)


@session_router.get("/api/contacts")
async def session_contacts(caller: Embed, session: Session, ids: Annotated[str, Query()]) -> dict[str, Any]:
    """GET /v1/inbox-embed/contacts for the embedded session."""
    return {"data": await _contacts(session, caller.who.tenant_id, ids, phone_number_id=caller.claims.pn)}
