"""Process-wide resources the API lifespan builds (no module globals)."""

from __future__ import annotations

from dataclasses import dataclass, field

import httpx
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from temporalio.client import Client

from switchboard.activities.inbound_apply import InboundApplier
from switchboard.activities.llm.rate_cards import RateCardBook
from switchboard.api.principal import ApiKeyCache
from switchboard.api.rate_limiter import RateLimiter
from switchboard.api.sandbox_phones import SandboxPhoneCache
from switchboard.settings import Settings


@dataclass
class AppState:
    settings: Settings
    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]
    # Sessions whose every statement commits as it runs (an autocommit engine with its own pool): for
    # reads and single atomic statements on the hot paths, which then cost no BEGIN/COMMIT round trips.
    autocommit: async_sessionmaker[AsyncSession]
    autocommit_engine: AsyncEngine
    temporal: Client
    keys: ApiKeyCache
    # A sandbox send's number and its customer's pause flag, kept a few seconds (api/sandbox_phones.py).
    sandbox_phones: SandboxPhoneCache
    limiter: RateLimiter
    rate_cards: RateCardBook
    http: httpx.AsyncClient
    # The connected client the process's delivery worker runs on, while it runs (api/delivery_worker.py).
    # Only DeliverWebhook and SendMessage (a send without a media link) may be started through it: eager
    # starts are matched by task queue, not by workflow type, and that worker runs nothing else.
    delivery_client: Client | None = None
    # Applies channel webhook payloads while the channel waits (POST /channel/webhook).
    inbound: InboundApplier = field(init=False)

    def __post_init__(self) -> None:
        self.inbound = InboundApplier(self)

    @property
    def delivery_starter(self) -> Client:
        """The API worker's client while it runs, so that deliveries and sends start eagerly here; else ``temporal``."""
        return self.delivery_client or self.temporal

    @property
    def statement_sessions(self) -> async_sessionmaker[AsyncSession]:
        """The autocommit sessions, under the name work shared with the worker (``CommitAndStart``) uses."""
        return self.autocommit
