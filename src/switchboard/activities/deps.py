"""What activities are built from (worker.py constructs one of these)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import httpx
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from temporalio.client import Client

from switchboard.settings import Settings

if TYPE_CHECKING:
    from switchboard.activities.llm.registry import ProviderRegistry


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
