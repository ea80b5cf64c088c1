"""A delivery's first attempt made before its run starts (activities/webhooks/first_attempts.py).

The slots and the drain on their own, then ``start_planned`` as an API process runs it, on a real
database, the dev server, the worker and a loopback receiver: the run started with the outcome in its
input, a failed first attempt retried by the run, and a start that failed after the attempt recovered by
the outbox sweeper without posting again.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from switchboard.activities.deps import ActivityDeps
from switchboard.activities.webhooks.config import WebhookConfig, config_from_settings
from switchboard.activities.webhooks.delivery import WebhookDeliveryActivities
from switchboard.activities.webhooks.dispatching import (
    RecordedPlan,
    plan_recorded,
    start_planned,
)
from switchboard.activities.webhooks.first_attempts import FirstAttempts
from switchboard.activities.webhooks.types import AttemptInput, AttemptResult, DeliveryRef
from switchboard.activities.workflow_starts import delivery_workflow_id
from switchboard.domain.events import MESSAGE_RECEIVED
from switchboard.domain.webhook_policy import WebhookPolicy
from switchboard.models.base import utcnow
from switchboard.models.events import Event
from switchboard.settings import Settings
from switchboard.store.events import record_event
from switchboard.worker import build_deps, close_deps
from tests.support.delivery_runs import run_history, run_input, run_result, sweep_outbox_now
from tests.support.http_server import free_port, serve_app
from tests.workflows.test_webhook_support import Db, Receiver

# --- the slots and the drain ------------------------------------------------------------------------


def _ref(n: int) -> DeliveryRef:
    return DeliveryRef(delivery_id=f"dlv_{n}", webhook_id="wh_1", event_id=f"evt_{n}", event_kind="k")


async def test_work_beyond_the_slots_is_refused_until_slots_come_back():
    first = FirstAttempts(attempt=lambda _: asyncio.sleep(0, AttemptResult()), size=3)
    gate = asyncio.Event()
    ran: list[str] = []

    def held(name: str):
        async def work() -> None:
            await gate.wait()
            ran.append(name)

        return work

    assert first.begin(2, held("a"))
    assert not first.begin(2, held("b"))  # one slot left
    assert first.begin(1, held("c"))
    assert not first.begin(1, held("d"))
    assert first.in_flight == 2
    gate.set()
    await first.drain()
    assert sorted(ran) == ["a", "c"] and first.in_flight == 0


async def test_a_drained_instance_takes_no_more_work_and_a_failed_task_gives_its_slots_back(caplog):
    first = FirstAttempts(attempt=lambda _: asyncio.sleep(0, AttemptResult()), size=1)

    async def fails() -> None:
        raise RuntimeError("boom")

    assert first.begin(1, fails)
    await asyncio.sleep(0.01)
    assert first.in_flight == 0
    assert "first attempts failed" in caplog.text
    assert first.begin(1, lambda: asyncio.sleep(0))  # its slot came back
    await first.drain()
    assert not first.begin(1, lambda: asyncio.sleep(0))


async def test_attempt_each_keeps_the_outcomes_and_leaves_a_raised_one_to_its_run():
    seen: list[AttemptInput] = []

    async def attempt(request: AttemptInput) -> AttemptResult:
        seen.append(request)
        if request.delivery_id == "dlv_2":
            raise OSError("database down")
        return AttemptResult(success=True, status_code=200, settled=True)

    results = await FirstAttempts(attempt, size=4).attempt_each([_ref(1), _ref(2), _ref(3)])
    assert sorted(results) == ["dlv_1", "dlv_3"]
    assert all(r.success and r.settled for r in results.values())
    assert sorted((r.delivery_id, r.attempt) for r in seen) == [("dlv_1", 1), ("dlv_2", 1), ("dlv_3", 1)]


# --- the sweeper's wait -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({}, timedelta(seconds=20)),
        ({"webhook_sweep_min_age_seconds": 1}, timedelta(seconds=20)),
        ({"webhook_sweep_min_age_seconds": 90}, timedelta(seconds=90)),
        ({"webhook_request_timeout_seconds": 2, "webhook_sweep_min_age_seconds": 1}, timedelta(seconds=12)),
        ({"webhook_request_timeout_seconds": 30}, timedelta(seconds=40)),
    ],
)
def test_the_sweeper_waits_longer_than_a_first_attempt_and_its_start_can_take(fields, expected):
    settings = Settings(database_url="sqlite+aiosqlite://", **fields)
    assert config_from_settings(settings).sweep_min_age == expected


# --- start_planned as an API process runs it --------------------------------------------------------


@dataclass
class ApiDeps:
    """What the API's state gives ``start_planned`` (``CommitAndStart``): the worker's deps, a starter
    client of the test's choosing, and first attempts."""

    base: ActivityDeps
    starter: Client
    first_attempts: FirstAttempts

    @property
    def settings(self) -> Settings:
        return self.base.settings

    @property
    def sessions(self) -> async_sessionmaker[AsyncSession]:
        return self.base.sessions

    @property
    def statement_sessions(self) -> async_sessionmaker[AsyncSession]:
        return self.base.statement_sessions

    @property
    def temporal(self) -> Client:
        return self.starter

    @property
    def delivery_starter(self) -> Client:
        return self.starter


NO_WAIT = WebhookConfig(policy=WebhookPolicy(retry_schedule_seconds=(0, 0, 0), jitter_ratio=0.0))


@pytest.fixture
async def kit(
    settings, temporal_env, database_url, app_client, tenant, worker
) -> AsyncIterator[dict[str, Any]]:
    """A webhook at a loopback receiver, a recorded event for it, and the worker's deps."""
    receiver = Receiver()
    db = Db(database_url)
    deps = build_deps(temporal_env.client, settings, db.engine)
    async with serve_app(receiver.app()) as base_url:
        created = await app_client.post(
            "/v1/webhooks", json={"url": f"{base_url}/hook"}, headers=tenant.headers()
        )
        assert created.status_code == 201, created.text
        async with db.sessions() as session:
            event = await record_event(
                session,
                tenant_id=tenant.id,
                kind=MESSAGE_RECEIVED,
                occurred_at=utcnow(),
                payload={"event": MESSAGE_RECEIVED, "tenant_id": tenant.id},
            )
            await session.commit()
        yield {"receiver": receiver, "db": db, "deps": deps, "event_id": event.id, "settings": settings}
    await close_deps(deps)
    await db.close()


async def _plan(db: Db, event_id: str) -> RecordedPlan:
    """The event's deliveries, created and committed as an inbound item's transaction does."""
    async with db.sessions() as session:
        plan = await plan_recorded(session, [event_id])
        await session.commit()
    assert len(plan.deliveries) == 1
    return plan


async def _history(client: Client, workflow_id: str) -> tuple[dict[str, Any], list[int]]:
    """The run's input as JSON and its history's event types."""
    history = await run_history(client, workflow_id)
    return run_input(history), [e.event_type for e in history.events]


async def _stamped(db: Db, event_id: str) -> bool:
    (event,) = await db.all(select(Event).where(Event.id == event_id))
    return event.dispatched_at is not None


async def test_the_run_starts_with_the_first_attempts_outcome_and_posts_nothing_itself(kit, temporal_env):
    deps, db, hook = kit["deps"], kit["db"], kit["receiver"]
    first = FirstAttempts(WebhookDeliveryActivities(deps, NO_WAIT).attempt_delivery, size=4)
    api = ApiDeps(base=deps, starter=temporal_env.client, first_attempts=first)
    plan = await _plan(db, kit["event_id"])

    assert await start_planned(api, NO_WAIT, plan)  # True at once: the attempt runs in its own task
    await first.drain()

    (delivery,) = plan.deliveries
    workflow_id = delivery_workflow_id(delivery.delivery_id)
    report = await temporal_env.client.get_workflow_handle(workflow_id).result()
    assert (report["outcome"], report["attempts"]) == ("succeeded", 1)
    given, types = await _history(temporal_env.client, workflow_id)
    assert given["first_attempt"]["success"] and given["first_attempt"]["settled"]
    assert given["first_attempt"]["status_code"] == 200
    # One workflow task that completes the run: no local activity's marker, no patch marker or upsert.
    assert types == [
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
        EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
        EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
        EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
    ]
    assert len(await hook.wait_for(1)) == 1
    assert [(a.attempt, a.success) for a in await db.attempts(delivery.delivery_id)] == [(1, True)]
    assert await _stamped(db, kit["event_id"])
    ((row,),) = [await db.deliveries()]
    assert (row.status, row.attempts) == ("succeeded", 1)


async def test_a_failed_first_attempt_is_retried_by_the_run(kit, temporal_env):
    deps, db, hook = kit["deps"], kit["db"], kit["receiver"]
    hook.script = [(500, {})]
    first = FirstAttempts(WebhookDeliveryActivities(deps, NO_WAIT).attempt_delivery, size=4)
    api = ApiDeps(base=deps, starter=temporal_env.client, first_attempts=first)
    plan = await _plan(db, kit["event_id"])

    assert await start_planned(api, NO_WAIT, plan)
    await first.drain()

    (delivery,) = plan.deliveries
    workflow_id = delivery_workflow_id(delivery.delivery_id)
    report = await temporal_env.client.get_workflow_handle(workflow_id).result()
    assert (report["outcome"], report["attempts"]) == ("succeeded", 2)
    given, _ = await _history(temporal_env.client, workflow_id)
    assert (given["first_attempt"]["success"], given["first_attempt"]["status_code"]) == (False, 500)
    assert len(await hook.wait_for(2)) == 2
    assert [(a.attempt, a.success) for a in await db.attempts(delivery.delivery_id)] == [
        (1, False),
        (2, True),
    ]


async def test_a_start_that_fails_after_the_attempt_is_recovered_by_the_sweeper_without_a_second_post(
    kit, temporal_env
):
    deps, db, hook = kit["deps"], kit["db"], kit["receiver"]
    unreachable = await Client.connect(
        f"127.0.0.1:{free_port()}", lazy=True, data_converter=temporal_env.client.data_converter
    )
    first = FirstAttempts(WebhookDeliveryActivities(deps, NO_WAIT).attempt_delivery, size=4)
    api = ApiDeps(base=deps, starter=unreachable, first_attempts=first)
    plan = await _plan(db, kit["event_id"])

    assert await start_planned(api, NO_WAIT, plan)
    await first.drain()
    (delivery,) = plan.deliveries
    # Posted and recorded (the delivery settled), but no run, and the event is not stamped.
    assert len(await hook.wait_for(1)) == 1
    ((row,),) = [await db.deliveries()]
    assert (row.status, row.attempts) == ("succeeded", 1)
    assert not await _stamped(db, kit["event_id"])

    # Temporal is back: the sweeper's DispatchEvent starts the settled delivery's run, which reads the
    # attempt back instead of posting it again.
    swept = await sweep_outbox_now(temporal_env.client, kit["settings"])
    assert swept.events >= 1
    workflow_id = delivery_workflow_id(delivery.delivery_id)
    report = await run_result(temporal_env.client, workflow_id)  # DispatchEvent starts it
    assert (report["outcome"], report["attempts"]) == ("succeeded", 1)
    given, _ = await _history(temporal_env.client, workflow_id)
    assert given.get("first_attempt") is None
    assert len(hook.at("/hook")) == 1
    assert [(a.attempt, a.success) for a in await db.attempts(delivery.delivery_id)] == [(1, True)]
    for _ in range(200):
        if await _stamped(db, kit["event_id"]):
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("DispatchEvent did not stamp the event")
