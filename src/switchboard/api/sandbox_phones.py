"""A sandbox send's number and its customer's pause flag, cached in process for a few seconds.

A sandbox send persists nothing and sends nothing, so its one database read, the number with its
customer's pause flag (``messages.sending_phone``), was a third of its API CPU on PostgreSQL
(docs/decisions/0010-sandbox-sends-in-process.md). Of what that read returns, a sandbox send's checks use the
number's owner, its WABA and display number (none of which any endpoint changes) and the pause flag.
So this process keeps the read for ``SANDBOX_PHONE_CACHE_SECONDS`` (5 s by default; 0 reads every
time), as it keeps an API key's lookup (``API_KEY_CACHE_SECONDS``): a pause or a resume takes effect
at once in the process that wrote it (``forget``, called after the commit) and in every other
process within that time. When an entry expires, the requests in flight each read it once: a
handful of reads every few seconds, where the API key cache shares one lookup (a key's expiry
reaches every request of a busy tenant at once). Live sends never read from here: their read also
counts the number's queue and finds the recipient's conversation, which must be current.

Only a read that found the caller's own number is kept, so a number registered a moment ago is
found at once, and a refused read is read again. The tenant check runs on every request, cached or
not: another tenant's request for a cached number gets the same 403 the read gives it.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncEngine

from switchboard.models.tenancy import PhoneNumber
from switchboard.store import messages
from switchboard.store.database import reads_on_loop


@dataclass(frozen=True)
class _Entry:
    phone: PhoneNumber
    facts: messages.PhoneFacts
    fetched: float


class SandboxPhoneCache:
    """Per-process cache of ``messages.sending_phone`` for sandbox sends, by the number's channel id."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        ttl_seconds: float,
        max_entries: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._engine = engine
        self._ttl = ttl_seconds
        self._clock = clock
        self._max = max_entries
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        # Bumped by ``forget``: a read that began before a forget may hold what the forget was for,
        # so its answer serves its own request but is not kept.
        self._generation = 0

    async def sending_phone(
        self, tenant_id: str, phone_number_id: str
    ) -> tuple[PhoneNumber, messages.PhoneFacts]:
        """The tenant's number and its facts (INVALID_PHONE_NUMBER_ID / PHONE_NUMBER_NOT_IN_TENANT)."""
        entry = self._entries.get(phone_number_id)
        if entry is not None and self._clock() - entry.fetched <= self._ttl:
            # The read's tenant check, made again: another tenant may name a number cached for its owner.
            return messages.owned_phone(entry.phone, tenant_id, phone_number_id), entry.facts
        generation = self._generation
        # On a bare connection, and on SQLite on the event loop, as a live send's read.
        async with self._engine.connect() as connection:
            with reads_on_loop(self._engine):
                phone, facts = await messages.sending_phone(
                    connection, tenant_id, phone_number_id, count_queued=False
                )
        if self._ttl > 0 and generation == self._generation:
            self._store(phone_number_id, _Entry(phone, facts, self._clock()))
        return phone, facts

    def forget(self) -> None:
        """Drop every cached number: called after a commit that may change what a sandbox send checks."""
        self._entries.clear()
        self._generation += 1

    def _store(self, phone_number_id: str, entry: _Entry) -> None:
        self._entries[phone_number_id] = entry
        self._entries.move_to_end(phone_number_id)
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)
