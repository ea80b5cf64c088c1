"""Who is calling: the tenant, key, mode and role behind an X-API-Key.

Lookups are cached in process for a few seconds (``API_KEY_CACHE_SECONDS``) so
steady-state requests cost no database round trip for authentication, while a
revocation or plan change still takes effect everywhere within that time (and
at once in the process that revoked). Concurrent requests with a key that is not
cached (new to the process, or just expired) share one lookup: a busy key's
expiry would otherwise send every request in flight to the database at once.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from switchboard.domain.api_keys import hash_key, key_mode
from switchboard.domain.errors import Unauthorized
from switchboard.domain.rate_limits import Limits, limits_for
from switchboard.store import tenancy


@dataclass(frozen=True)
class Principal:
    tenant_id: str
    key_id: str
    mode: str
    role: str
    plan: str
    limits: Limits

    @property
    def is_sandbox(self) -> bool:
        return self.mode == "test"


@dataclass(frozen=True)
class _Entry:
    principal: Principal | None
    revoked_at: datetime | None
    fetched: float


class ApiKeyCache:
    """Resolve keys to principals with a short-lived in-process cache."""

    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], *, ttl_seconds: float, max_entries: int = 50_000
    ):
        self._sessions = sessions
        self._ttl = ttl_seconds
        self._max = max_entries
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        # Lookups in flight, by key digest: later requests for the key wait for the same one.
        self._loading: dict[str, asyncio.Task[_Entry]] = {}

    async def resolve(self, api_key: str | None) -> Principal:
        """The principal for a key, or the spec's 401 (MALFORMED/INVALID/EXPIRED)."""
        if not api_key:
            raise Unauthorized("X-API-Key header is required", code="INVALID_API_KEY")
        key_mode(api_key)
        digest = hash_key(api_key)
        entry = self._entries.get(digest)
        if entry is None or time.monotonic() - entry.fetched > self._ttl:
            # Shielded: a caller that goes away (a client disconnect) does not cancel the others' lookup.
            entry = await asyncio.shield(self._shared_load(digest))
        if entry.principal is None:
            raise Unauthorized("API key is not valid", code="INVALID_API_KEY")
        if entry.revoked_at is not None:
            raise Unauthorized("API key has been revoked", code="EXPIRED_API_KEY")
        return entry.principal

    def forget(self, key_hash: str | None = None) -> None:
        """Drop one cached key (or all), e.g. right after a revocation here.

        A lookup in flight for it is dropped too: it may have read the key before the revocation, so
        its answer is given to the requests already waiting for it but not cached.
        """
        if key_hash is None:
            self._entries.clear()
            self._loading.clear()
        else:
            self._entries.pop(key_hash, None)
            self._loading.pop(key_hash, None)

    def _shared_load(self, digest: str) -> asyncio.Task[_Entry]:
        """The lookup in flight for this key, or a new one; its entry is cached when it succeeds."""
        task = self._loading.get(digest)
        if task is None:
            task = self._loading[digest] = asyncio.create_task(self._load(digest))
            task.add_done_callback(lambda done: self._settle(digest, done))
        return task

    def _settle(self, digest: str, task: asyncio.Task[_Entry]) -> None:
        if self._loading.get(digest) is not task:
            return  # forgotten meanwhile: not cached
        del self._loading[digest]
        if not task.cancelled() and task.exception() is None:
            self._store(digest, task.result())

    async def _load(self, digest: str) -> _Entry:
        async with self._sessions() as session:
            found = await tenancy.find_key(session, digest)
        now = time.monotonic()
        if found is None:
            return _Entry(None, None, now)
        key, tenant = found
        limits = limits_for(
            mode=key.mode,
            plan=tenant.plan,
            custom_per_second=tenant.rate_limit_per_second,
            custom_per_day=tenant.rate_limit_per_day,
        )
        principal = Principal(tenant.id, key.id, key.mode, key.role, tenant.plan, limits)
        return _Entry(principal, key.revoked_at, now)

    def _store(self, digest: str, entry: _Entry) -> None:
        self._entries[digest] = entry
        self._entries.move_to_end(digest)
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)
