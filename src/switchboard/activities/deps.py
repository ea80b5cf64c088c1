"""What activities are built from (worker.py constructs one of these)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import httpx
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker
from temporalio.client import Client

from switchboard.settings import Settings

if TYPE_CHECKING:
    from switchboard.activities.llm.providers import ProviderRegistry


class CommitAndStart(Protocol):
    """What work that commits and then starts or signals workflows needs (applying inbound items).

    Both ``ActivityDeps`` (a worker's activities) and the API's ``AppState`` (POST /channel/webhook
    applies a payload while the channel waits) have these.
    """

    @property
    def settings(self) -> Settings: ...

    @property
    def sessions(self) -> async_sessionmaker[AsyncSession]: ...

    @property
    def temporal(self) -> Client: ...

    @property
    def delivery_starter(self) -> Client:
        """The client DeliverWebhook runs are started through: one a worker of this process runs on, if any,
        so that the start can be eager."""
        ...

    @property
    def statement_sessions(self) -> async_sessionmaker[AsyncSession]:
        """Sessions for reads and single self-contained statements (autocommit where there is an engine)."""
        ...


@dataclass
class ActivityDeps:
    settings: Settings
    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]
    # For upstream channel, tenant webhooks and media downloads (not tools:
    # tool calls go through the egress-guarded client).
    http: httpx.AsyncClient
    # For activities that start workflows after their commit (event dispatch).
    temporal: Client
    # For URLs a tenant supplied (media links): refuses private, loopback and
    # metadata addresses after DNS resolution unless TOOL_EGRESS_ALLOW_PRIVATE.
    egress_http: httpx.AsyncClient
    # The model providers' adapters (built on first use by the agent activities; closed with the deps).
    providers: ProviderRegistry | None = None
    # An autocommit engine and its sessions (PostgreSQL): a read or one atomic statement then costs one
    # round trip instead of BEGIN, the statement and COMMIT. None: the main engine serves those too
    # (SQLite, whose writers are better kept on one pool, and deps built by hand in tests).
    autocommit_engine: AsyncEngine | None = None
    autocommit: async_sessionmaker[AsyncSession] | None = None

    @property
    def delivery_starter(self) -> Client:
        """The worker's own client: a delivery started here may run on this worker at once (eager start)."""
        return self.temporal

    @property
    def statement_sessions(self) -> async_sessionmaker[AsyncSession]:
        """Sessions for reads and single self-contained statements: autocommit ones, else the main ones."""
        return self.autocommit or self.sessions

    @asynccontextmanager
    async def one_statement(self) -> AsyncIterator[AsyncConnection]:
        """A connection for one statement that is atomic by itself (an upsert); committed on exit."""
        if self.autocommit_engine is not None:
            async with self.autocommit_engine.connect() as conn:
                yield conn
        else:
            async with self.engine.begin() as conn:
                yield conn
