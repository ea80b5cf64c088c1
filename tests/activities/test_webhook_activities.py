"""Webhook activities run directly: idempotent planning, attempts recorded once, settling once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import event as sa_event
from sqlalchemy import update
from sqlmodel import col
from temporalio.testing import ActivityEnvironment

from switchboard.activities.webhooks.config import WebhookConfig
from switchboard.activities.webhooks.delivery import WebhookDeliveryActivities
from switchboard.activities.webhooks.dispatching import WebhookDispatchActivities
from switchboard.activities.webhooks.types import AttemptInput, DeliveryOutcome, FinishInput
from switchboard.domain.events import MESSAGE_RECEIVED
from switchboard.models.events import WebhookEndpoint
from switchboard.store.events import record_event
from switchboard.store.webhooks.deliveries import delivery_id_for
from switchboard.worker import build_deps, close_deps
from tests.support.http_server import serve_app
from tests.workflows.test_webhook_support import Db, Receiver

AT = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
async def kit(settings, temporal_env, database_url, app_client, tenant) -> AsyncIterator[dict]:
    receiver = Receiver()
    db = Db(database_url)
    deps = build_deps(temporal_env.client, settings, db.engine)
    async with serve_app(receiver.app()) as base_url:
        response = await app_client.post(
            "/v1/webhooks", json={"url": f"{base_url}/hook"}, headers=tenant.headers()
        )
        async with db.sessions() as session:
            event = await record_event(
                session,
                tenant_id=tenant.id,
                kind=MESSAGE_RECEIVED,
                occurred_at=AT,
                payload={"event": MESSAGE_RECEIVED, "tenant_id": tenant.id},
            )
            await session.commit()
        yield {
            "receiver": receiver,
            "db": db,
            "webhook": response.json(),
            "event_id": event.id,
            "dispatch": WebhookDispatchActivities(deps, WebhookConfig()),
            "delivery": WebhookDeliveryActivities(deps, WebhookConfig()),
            "deps": deps,
        }
    await close_deps(deps)
    await db.close()


async def test_planning_twice_creates_one_deterministic_delivery(kit):
    env = ActivityEnvironment()
    first = await env.run(kit["dispatch"].plan_deliveries, kit["event_id"])
    second = await env.run(kit["dispatch"].plan_deliveries, kit["event_id"])
    assert first == second and first.event_found
    [ref] = first.deliveries
    assert ref.delivery_id == delivery_id_for(kit["event_id"], kit["webhook"]["id"])
    assert ref.delivery_id.startswith("dlv_" + kit["event_id"][4:14])
    assert len(await kit["db"].deliveries()) == 1
    missing = await env.run(kit["dispatch"].plan_deliveries, "evt_missing")
    assert (missing.event_found, missing.deliveries) == (False, [])


async def test_an_attempt_is_posted_and_recorded_once(kit):
    env = ActivityEnvironment()
    [ref] = (await env.run(kit["dispatch"].plan_deliveries, kit["event_id"])).deliveries
    request = AttemptInput(delivery_id=ref.delivery_id, attempt=1, at=AT)
    first = await env.run(kit["delivery"].attempt_delivery, request)
    again = await env.run(kit["delivery"].attempt_delivery, request)
    assert (first.success, first.status_code) == (True, 200)
    assert (again.success, again.status_code, again.latency_ms) == (True, 200, first.latency_ms)
    assert len(kit["receiver"].requests) == 1
    [row] = await kit["db"].attempts()
    assert (row.attempt, row.attempted_at, row.webhook_id) == (1, AT, kit["webhook"]["id"])
    webhook = await kit["db"].webhook(kit["webhook"]["id"])
    assert (webhook.last_success_at, webhook.failing_since) == (AT, None)


async def test_failures_start_the_clock_and_settling_happens_once(kit):
    env = ActivityEnvironment()
    kit["receiver"].default = (503, {"Retry-After": "30"})
    [ref] = (await env.run(kit["dispatch"].plan_deliveries, kit["event_id"])).deliveries
    for attempt in (1, 2):
        result = await env.run(
            kit["delivery"].attempt_delivery,
            AttemptInput(delivery_id=ref.delivery_id, attempt=attempt, at=AT + timedelta(minutes=attempt)),
        )
        assert (result.success, result.status_code, result.retry_after_seconds) == (False, 503, 30.0)
    webhook = await kit["db"].webhook(kit["webhook"]["id"])
    assert (webhook.failing_since, webhook.last_failure_at) == (
        AT + timedelta(minutes=1),
        AT + timedelta(minutes=2),
    )
    finish = FinishInput(
        delivery_id=ref.delivery_id, outcome=DeliveryOutcome.FAILED, at=AT + timedelta(minutes=3)
    )
    assert (await env.run(kit["delivery"].finish_delivery, finish)).auto_disabled is False
    await env.run(kit["delivery"].finish_delivery, finish)
    assert (await kit["db"].webhook(kit["webhook"]["id"])).exhausted_since_success == 1
    [delivery] = await kit["db"].deliveries()
    assert (delivery.status, delivery.attempts) == ("failed", 2)
    stopped = await env.run(
        kit["delivery"].attempt_delivery, AttemptInput(delivery_id=ref.delivery_id, attempt=3, at=AT)
    )
    assert stopped.stopped and len(kit["receiver"].requests) == 2


async def test_a_deleted_webhook_stops_its_delivery(kit, app_client, tenant):
    env = ActivityEnvironment()
    [ref] = (await env.run(kit["dispatch"].plan_deliveries, kit["event_id"])).deliveries
    await app_client.delete(f"/v1/webhooks/{kit['webhook']['id']}", headers=tenant.headers())
    result = await env.run(
        kit["delivery"].attempt_delivery, AttemptInput(delivery_id=ref.delivery_id, attempt=1, at=AT)
    )
    assert result.stopped and kit["receiver"].requests == []
    finished = await env.run(
        kit["delivery"].finish_delivery,
        FinishInput(delivery_id=ref.delivery_id, outcome=DeliveryOutcome.CANCELED, at=AT),
    )
    assert finished.notification_ids == []


async def test_a_webhook_deleted_during_the_post_records_nothing(kit, app_client, tenant):
    """The attempt row is copied from its delivery's: once the webhook (and so the delivery) is gone, none."""
    env = ActivityEnvironment()
    [ref] = (await env.run(kit["dispatch"].plan_deliveries, kit["event_id"])).deliveries
    kit["receiver"].gate = asyncio.Event()
    attempt = asyncio.create_task(
        env.run(kit["delivery"].attempt_delivery, AttemptInput(delivery_id=ref.delivery_id, attempt=1, at=AT))
    )
    await kit["receiver"].wait_for(1)
    deleted = await app_client.delete(f"/v1/webhooks/{kit['webhook']['id']}", headers=tenant.headers())
    assert deleted.status_code == 200, deleted.text
    kit["receiver"].gate.set()  # the POST succeeds only now, after the webhook is gone
    result = await attempt
    assert result.stopped and not result.success
    assert await kit["db"].attempts() == []
    assert await kit["db"].deliveries() == []


def _statement_recorder(kit) -> tuple[list[str], str, Callable[[], AbstractContextManager[None]]]:
    """Record each statement as "<engine>: <verb> <table>"; the label of the engine reads run on."""
    ran: list[str] = []
    engines = {"main": kit["db"].engine}
    if kit["deps"].autocommit_engine is not None:
        engines["autocommit"] = kit["deps"].autocommit_engine

    def noting(label: str):
        def note(conn, cursor, statement, parameters, context, executemany):
            words = statement.split()
            verb = words[0].lower()
            table = (
                words[words.index("FROM") + 1] if verb == "select" else words[2 if verb == "insert" else 1]
            )
            ran.append(f"{label}: {verb} {table}")

        return note

    @contextmanager
    def recording() -> Iterator[None]:
        listeners = {label: noting(label) for label in engines}
        for label, engine in engines.items():
            sa_event.listen(engine.sync_engine, "before_cursor_execute", listeners[label])
        try:
            yield
        finally:
            for label, engine in engines.items():
                sa_event.remove(engine.sync_engine, "before_cursor_execute", listeners[label])

    return ran, "autocommit" if "autocommit" in engines else "main", recording


async def test_a_first_time_success_costs_two_statements_on_postgresql_and_four_on_sqlite(kit):
    """Load (one joined read), then the attempt, its count with the settling, and the webhook's clock.

    A success on a webhook that was healthy when loaded reads nothing more: no second read of the
    delivery or of the webhook. On PostgreSQL the read and the record each run alone on the
    autocommit engine, the record's three writes as one statement (no BEGIN and COMMIT around
    either); on SQLite the three writes commit together in one transaction on the main engine.
    """
    env = ActivityEnvironment()
    [ref] = (await env.run(kit["dispatch"].plan_deliveries, kit["event_id"])).deliveries
    ran, reading, recording = _statement_recorder(kit)
    with recording():
        result = await env.run(
            kit["delivery"].attempt_delivery, AttemptInput(delivery_id=ref.delivery_id, attempt=1, at=AT)
        )
    assert (result.success, result.settled) == (True, True)
    if kit["db"].engine.dialect.name == "postgresql":
        assert ran == ["autocommit: select webhook_deliveries", "autocommit: with attempt"], ran
    else:
        assert ran == [
            f"{reading}: select webhook_deliveries",
            "main: insert webhook_attempts",
            "main: update webhook_deliveries",
            "main: update webhook_endpoints",
        ], ran
    [delivery] = await kit["db"].deliveries()
    assert (delivery.status, delivery.attempts, delivery.completed_at) == ("succeeded", 1, AT)
    [row] = await kit["db"].attempts()
    assert (row.tenant_id, row.webhook_id, row.delivery_id, row.attempt) == (
        (await kit["db"].deliveries())[0].tenant_id,
        kit["webhook"]["id"],
        ref.delivery_id,
        1,
    )
    assert (row.success, row.status_code, row.attempted_at, row.error) == (True, 200, AT, None)


async def test_a_success_ends_a_failing_spell_that_began_during_its_post(kit):
    """Loaded healthy, but a concurrent attempt marked the webhook failing while this POST was out.

    The clock's UPDATE decides in SQL, after the POST: the success still resets the failing clock
    (deciding from the webhook as loaded before the POST would have left it failing).
    """
    env = ActivityEnvironment()
    [ref] = (await env.run(kit["dispatch"].plan_deliveries, kit["event_id"])).deliveries
    async with kit["db"].sessions() as session:  # healthy, and reset moments ago: nothing to write, as loaded
        await session.execute(
            update(WebhookEndpoint)
            .where(col(WebhookEndpoint.id) == kit["webhook"]["id"])
            .values(last_success_at=AT - timedelta(seconds=5))
        )
        await session.commit()
    kit["receiver"].gate = asyncio.Event()
    attempt = asyncio.create_task(
        env.run(kit["delivery"].attempt_delivery, AttemptInput(delivery_id=ref.delivery_id, attempt=1, at=AT))
    )
    await kit["receiver"].wait_for(1)
    async with kit["db"].sessions() as session:
        await session.execute(
            update(WebhookEndpoint)
            .where(col(WebhookEndpoint.id) == kit["webhook"]["id"])
            .values(failing_since=AT - timedelta(minutes=5), last_failure_at=AT - timedelta(seconds=1))
        )
        await session.commit()
    kit["receiver"].gate.set()
    result = await attempt
    assert (result.success, result.settled) == (True, True)
    webhook = await kit["db"].webhook(kit["webhook"]["id"])
    assert (webhook.failing_since, webhook.last_success_at) == (None, AT)


async def test_on_sqlite_a_first_time_success_makes_no_thread_hop(kit, database_url, hops):
    """Its reads run on the event loop and its record in the write turn (store/sqlite_driver.py)."""
    if not database_url.startswith("sqlite"):
        pytest.skip("reads on the loop and the write turn are SQLite's")
    env = ActivityEnvironment()
    [ref] = (await env.run(kit["dispatch"].plan_deliveries, kit["event_id"])).deliveries
    request = AttemptInput(delivery_id=ref.delivery_id, attempt=1, at=AT)
    hops.clear()
    result = await env.run(kit["delivery"].attempt_delivery, request)
    assert (result.success, result.settled) == (True, True)
    assert hops == []
    # A retried activity reads the recorded attempt, on the loop too, and posts nothing.
    again = await env.run(kit["delivery"].attempt_delivery, request)
    assert (again.success, len(kit["receiver"].requests), hops) == (True, 1, [])
