"""Shared helpers of the webhook tests: a scriptable loopback receiver, database look-ups and a
time-skipping harness (its own worker with the registered workflows and the webhook activities).

(No tests here; the name keeps it among the webhook test files.)
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import select
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from switchboard.activities.webhooks import build_webhook_activities
from switchboard.activities.webhooks.config import WebhookConfig
from switchboard.activities.webhooks.types import DeliveryReport
from switchboard.domain.events import MESSAGE_RECEIVED
from switchboard.domain.webhook_policy import WebhookPolicy
from switchboard.models.events import OwnerNotification, WebhookAttempt, WebhookDelivery, WebhookEndpoint
from switchboard.settings import Settings
from switchboard.store.database import create_engine, session_factory
from switchboard.store.events import record_event
from switchboard.worker import build_deps, close_deps
from switchboard.workflows.all_workflows import WORKFLOWS
from switchboard.workflows.event_dispatch import DispatchEventWorkflow
from switchboard.workflows.webhook_delivery import DeliverWebhookWorkflow
from tests.support.http_server import serve_app
from tests.support.tenants import TenantFixture


@dataclass
class Captured:
    path: str
    body: bytes
    headers: dict[str, str]
    at: float
    # Every header line as received, repeated names included (``headers`` keeps one value a name).
    header_lines: list[tuple[str, str]] = field(default_factory=list)

    def header_values(self, name: str) -> list[str]:
        return [value for key, value in self.header_lines if key == name.lower()]


@dataclass
class Receiver:
    """A tenant endpoint: records every request and answers from a script (then ``default``)."""

    default: tuple[int, dict[str, str]] = (200, {})
    script: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    # Seconds to stall before answering, one entry per request (then none).
    delays: list[float] = field(default_factory=list)
    # When set, every request waits for it before answering (a test decides when the POST ends).
    gate: asyncio.Event | None = None
    requests: list[Captured] = field(default_factory=list)

    def app(self) -> Starlette:
        async def hook(request: Request) -> Response:
            self.requests.append(
                Captured(
                    request.url.path,
                    await request.body(),
                    dict(request.headers),
                    time.monotonic(),
                    request.headers.items(),
                )
            )
            if self.delays:
                await asyncio.sleep(self.delays.pop(0))
            if self.gate is not None:
                await self.gate.wait()
            status, headers = self.script.pop(0) if self.script else self.default
            body = b"" if status in (204, 304) else b"receiver says no" if status >= 300 else b"ok"
            return Response(body, status_code=status, headers=headers)

        return Starlette(
            routes=[Route("/hook", hook, methods=["POST"]), Route("/other", hook, methods=["POST", "GET"])]
        )

    def at(self, path: str) -> list[Captured]:
        return [r for r in self.requests if r.path == path]

    async def wait_for(self, count: int, *, within: float = 20.0) -> list[Captured]:
        """Wait until ``/hook`` received ``count`` requests."""
        deadline = time.monotonic() + within
        while len(self.at("/hook")) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"receiver got {len(self.at('/hook'))} requests, expected {count}")
            await asyncio.sleep(0.05)
        return self.at("/hook")


class Inbox:
    """An aiosmtpd handler that keeps every message it is given."""

    def __init__(self) -> None:
        self.messages: list[Any] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(envelope)
        return "250 Message accepted for delivery"


class Db:
    """Read-side helpers over the test's database."""

    def __init__(self, database_url: str) -> None:
        self.engine = create_engine(database_url)
        self.sessions = session_factory(self.engine)

    async def all(self, stmt: Any) -> list[Any]:
        async with self.sessions() as session:
            return list((await session.execute(stmt)).scalars())

    async def attempts(self, delivery_id: str | None = None) -> list[WebhookAttempt]:
        stmt = select(WebhookAttempt).order_by(WebhookAttempt.attempted_at, WebhookAttempt.attempt)
        if delivery_id:
            stmt = stmt.where(WebhookAttempt.delivery_id == delivery_id)
        return await self.all(stmt)

    async def deliveries(self) -> list[WebhookDelivery]:
        return await self.all(select(WebhookDelivery).order_by(WebhookDelivery.id))

    async def webhook(self, webhook_id: str) -> WebhookEndpoint:
        async with self.sessions() as session:
            row = await session.get(WebhookEndpoint, webhook_id)
            assert row is not None
            return row

    async def notifications(self, kind: str | None = None) -> list[OwnerNotification]:
        stmt = select(OwnerNotification).order_by(OwnerNotification.created_at)
        if kind:
            stmt = stmt.where(OwnerNotification.kind == kind)
        return await self.all(stmt)

    async def wait(self, probe: Any, *, within: float = 20.0) -> Any:
        """Poll ``await probe()`` until it returns something truthy."""
        deadline = time.monotonic() + within
        while True:
            value = await probe()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError("condition not reached in time")
            await asyncio.sleep(0.05)

    async def close(self) -> None:
        await self.engine.dispose()


BASE_POLICY = WebhookPolicy(
    retry_schedule_seconds=(0, 60, 600, 3600),
    jitter_ratio=0.2,
    request_timeout_seconds=2.0,
    overload_floor_seconds=120.0,
    retry_after_max_seconds=3600.0,
)


@dataclass
class Harness:
    env: WorkflowEnvironment
    client: Client
    task_queue: str
    db: Db
    receiver: Receiver
    url: str
    api: httpx.AsyncClient
    tenant: TenantFixture
    step: timedelta = timedelta(seconds=30)

    async def webhook(self, **body: object) -> dict:
        response = await self.api.post(
            "/v1/webhooks", json={"url": self.url, **body}, headers=self.tenant.headers()
        )
        assert response.status_code == 201, response.text
        return dict(response.json())

    async def event(self) -> str:
        now = datetime.now(UTC)
        async with self.db.sessions() as session:
            event = await record_event(
                session,
                tenant_id=self.tenant.id,
                kind=MESSAGE_RECEIVED,
                occurred_at=now,
                payload={"object": "service_events", "event": MESSAGE_RECEIVED, "tenant_id": self.tenant.id},
            )
            await session.commit()
            return event.id

    async def finish(self, handle: Any) -> Any:
        """Advance the virtual clock step by step until the workflow closes; its result.

        Not the SDK's unlocked result wait: once nothing is pending, the test
        server jumps its clock by ten years, which would void every window.
        """
        with self.env.auto_time_skipping_disabled():
            while (await handle.describe()).status == WorkflowExecutionStatus.RUNNING:
                await self.env.sleep(self.step)
            return await handle.result()

    async def dispatch(self, event_id: str, *, workflow_id: str | None = None) -> list[str]:
        handle = await self.client.start_workflow(
            DispatchEventWorkflow.run,
            event_id,
            id=workflow_id or f"event-{event_id}",
            task_queue=self.task_queue,
        )
        return list(await self.finish(handle))

    async def outcome(self, delivery_id: str) -> DeliveryReport:
        return await self.finish(
            self.client.get_workflow_handle_for(DeliverWebhookWorkflow.run, f"delivery-{delivery_id}")
        )

    async def deliver(self) -> DeliveryReport:
        [delivery_id] = await self.dispatch(await self.event())
        return await self.outcome(delivery_id)

    async def gaps(self, delivery_id: str) -> list[float]:
        times = [a.attempted_at for a in await self.db.attempts(delivery_id)]
        return [(b - a).total_seconds() for a, b in zip(times, times[1:], strict=False)]


def harness_factory(
    time_skipping_env: WorkflowEnvironment,
    settings: Settings,
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    database_url: str,
) -> Callable[..., Any]:
    """``start(config)``: an async context with a receiver, a worker on the time-skipping server and a Harness."""

    @asynccontextmanager
    async def start(
        config: WebhookConfig, *, settings_changes: dict | None = None, owner: TenantFixture | None = None
    ) -> AsyncIterator[Harness]:
        receiver = Receiver()
        db = Db(database_url)
        worker_settings = settings.model_copy(update=settings_changes or {})
        deps = build_deps(time_skipping_env.client, worker_settings, db.engine)
        worker = Worker(
            time_skipping_env.client,
            task_queue=settings.temporal_task_queue,
            workflows=list(WORKFLOWS),
            activities=build_webhook_activities(deps, config),
        )
        async with serve_app(receiver.app()) as base_url, worker:
            yield Harness(
                time_skipping_env,
                time_skipping_env.client,
                settings.temporal_task_queue,
                db,
                receiver,
                f"{base_url}/hook",
                app_client,
                owner or tenant,
            )
        await close_deps(deps)
        await db.close()

    return start
