"""The ``jwt_from_token_endpoint`` token cache, shared by every worker through the database.

Decisions:

- Key: (tenant, tool slug, HMAC-SHA256 of the rendered token request under the secrets key). Two bindings
  of one tenant that use the same tool against different hosts or credentials get separate tokens (a
  token issued by one API is never sent to another), and rotated credentials simply miss the cache.
  The HMAC (not a bare hash) keeps low-entropy credentials in the key from being guessed offline.
- At rest the token is sealed with AES-256-GCM (``SWITCHBOARD_SECRETS_KEY``), associated data
  ``tool-token:<tenant>:<slug>:<cache key>``, so a ciphertext moved to another row does not open.
- TTL: exactly ``expires_in_sec`` from the moment the token was stored (the tenant picks a value a little
  under the token's real lifetime).
- Single flight: inside one worker an ``asyncio.Lock`` per key queues the coroutines; across workers a
  lease on the row, claimed by compare-and-set (``store.tool_tokens.claim_lease``), lets exactly one
  worker fetch while the others poll the row every ``poll_seconds``. The lease lasts the token request's
  timeout plus a margin, so a crashed fetcher is replaced once it expires. A waiter gives up (infra)
  after one lease length; a failed fetch releases the lease at once so a waiter may try in turn.
- Invalidation (a 401 on the main request) is compare-and-delete on the sealed value that was sent, so a
  newer token that another worker stored in the meantime survives.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import uuid
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from switchboard.activities.tools.payloads import LEASE_MARGIN_SECONDS
from switchboard.domain.secrets_box import SecretDecryptionError, open_sealed, seal
from switchboard.domain.tools import TokenRequest
from switchboard.models.base import utcnow
from switchboard.store import tool_tokens
from switchboard.store.database import unit_of_work
from switchboard.store.tool_tokens import TokenKey

Fetch = Callable[[], Awaitable[str]]


class TokenWaitTimeout(Exception):
    """Another worker held the fetch lease for longer than this call was willing to wait."""


@dataclass(frozen=True)
class IssuedToken:
    """A token to send; ``sealed`` identifies it for invalidation, ``fetched`` says this call fetched it."""

    token: str
    sealed: str
    fetched: bool


class TokenCache:
    """Per (tenant, tool slug, token request) cache of bearer tokens with cross-process single flight."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        secrets_key: bytes,
        clock: Callable[[], datetime] = utcnow,
        poll_seconds: float = 0.05,
    ) -> None:
        self._sessions = sessions
        self._key = secrets_key
        self._clock = clock
        self._poll_seconds = poll_seconds
        self._locks: weakref.WeakValueDictionary[TokenKey, asyncio.Lock] = weakref.WeakValueDictionary()

    def key_for(self, *, tenant_id: str, tool_slug: str, request: TokenRequest) -> TokenKey:
        """The cache key of a rendered token request."""
        canonical = json.dumps(
            [
                request.method,
                request.url,
                sorted(request.headers.items()),
                request.body,
                list(request.response_path),
                request.expires_in_sec,
            ],
            sort_keys=True,
            separators=(",", ":"),
            default=str,
        )
        digest = hmac.new(self._key, canonical.encode(), hashlib.sha256).hexdigest()
        return TokenKey(tenant_id=tenant_id, tool_slug=tool_slug, cache_key=digest)

    async def get(
        self, key: TokenKey, *, fetch: Fetch, ttl_seconds: int, lease_seconds: float
    ) -> IssuedToken:
        """A fresh cached token, or one fetched by exactly one caller (this one or another worker)."""
        lock = self._locks.get(key)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[key] = lock
        async with lock:
            return await self._get(key, fetch=fetch, ttl_seconds=ttl_seconds, lease_seconds=lease_seconds)

    async def _get(
        self, key: TokenKey, *, fetch: Fetch, ttl_seconds: int, lease_seconds: float
    ) -> IssuedToken:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + lease_seconds
        while True:
            now = self._clock()
            async with unit_of_work(self._sessions) as session:
                row = await tool_tokens.read_fresh(session, key, now=now)
            if row is not None and row.token_sealed is not None:
                try:
                    token = open_sealed(self._key, row.token_sealed, associated_data=_aad(key))
                    return IssuedToken(token=token, sealed=row.token_sealed, fetched=False)
                except SecretDecryptionError:
                    # Sealed under an older SWITCHBOARD_SECRETS_KEY: useless, drop it and fetch anew.
                    await self.invalidate(key, sealed=row.token_sealed)
                    continue
            owner = uuid.uuid4().hex
            async with unit_of_work(self._sessions) as session:
                claimed = await tool_tokens.claim_lease(
                    session, key, owner=owner, now=now, until=now + timedelta(seconds=lease_seconds)
                )
            if claimed:
                return await self._fetch_and_store(key, owner=owner, fetch=fetch, ttl_seconds=ttl_seconds)
            if loop.time() >= deadline:
                raise TokenWaitTimeout(
                    f"another worker is still fetching the token after {lease_seconds:.0f} s"
                )
            await asyncio.sleep(self._poll_seconds)

    async def _fetch_and_store(
        self, key: TokenKey, *, owner: str, fetch: Fetch, ttl_seconds: int
    ) -> IssuedToken:
        try:
            token = await fetch()
        except BaseException:
            async with unit_of_work(self._sessions) as session:
                await tool_tokens.release_lease(session, key, owner=owner)
            raise
        sealed = seal(self._key, token, associated_data=_aad(key))
        now = self._clock()
        async with unit_of_work(self._sessions) as session:
            await tool_tokens.store_token(
                session,
                key,
                owner=owner,
                sealed=sealed,
                expires_at=now + timedelta(seconds=ttl_seconds),
                now=now,
            )
        return IssuedToken(token=token, sealed=sealed, fetched=True)

    async def invalidate(self, key: TokenKey, *, sealed: str) -> bool:
        """Drop the cached token if it is still ``sealed``; True when it was dropped."""
        async with unit_of_work(self._sessions) as session:
            return await tool_tokens.invalidate(session, key, sealed=sealed)


def _aad(key: TokenKey) -> str:
    return f"tool-token:{key.tenant_id}:{key.tool_slug}:{key.cache_key}"


def lease_seconds_for(timeout_ms: int) -> float:
    """How long a fetcher holds the lease: the token request's timeout plus a margin."""
    return timeout_ms / 1000 + LEASE_MARGIN_SECONDS
