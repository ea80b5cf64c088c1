"""Deliveries end to end on the dev server: the real worker, the API and a loopback receiver."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import update

from switchboard.activities.workflow_starts import dispatch_events
from switchboard.domain.events import MESSAGE_DELIVERED, MESSAGE_RECEIVED
from switchboard.domain.signatures import verify_service_signature
from switchboard.models.events import Event
from switchboard.store.events import record_event
from switchboard.workflows.event_dispatch import SweepEventOutboxWorkflow
from tests.support.http_server import serve_app
from tests.workflows.test_webhook_support import Db, Receiver


@pytest.fixture
async def receiver() -> AsyncIterator[tuple[Receiver, str]]:
    hook = Receiver()
    async with serve_app(hook.app()) as base_url:
        yield hook, base_url


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[Db]:
    handle = Db(database_url)
    yield handle
    await handle.close()


async def make_webhook(app_client, tenant, url: str, **body: object) -> dict:
    response = await app_client.post("/v1/webhooks", json={"url": url, **body}, headers=tenant.headers())
    assert response.status_code == 201, response.text
    return dict(response.json())


async def add_event(db: Db, tenant, kind: str, *, created_at: datetime | None = None) -> str:
    occurred = datetime(2026, 3, 4, 5, 6, 7, 890000, tzinfo=UTC)
    payload = {
        "object": "service_events",
        "event": kind,
        "occurred_at": "2026-03-04T05:06:07.890Z",
        "tenant_id": tenant.id,
        "phone_number_id": tenant.phone_number_id,
        "message": {"id": "wamid.X"},
    }
    async with db.sessions() as session:
        event = await record_event(
            session,
            tenant_id=tenant.id,
            kind=kind,
            payload=payload,
            occurred_at=occurred,
            phone_number_id=tenant.phone_number_id,
        )
        if created_at:
            # The returned event is a copy of the row (store/events.py): the row itself is updated.
            await session.execute(update(Event).where(Event.id == event.id).values(created_at=created_at))
        await session.commit()
        return event.id


async def test_test_event_is_signed_and_delivered_once(app_client, tenant, worker, receiver, db):
    hook, base_url = receiver
    webhook = await make_webhook(
        app_client, tenant, f"{base_url}/hook", phone_number_id=tenant.phone_number_id
    )
    response = await app_client.post(f"/v1/webhooks/{webhook['id']}/test", headers=tenant.headers())
    assert response.status_code == 202, response.text
    started = response.json()
    [request] = await hook.wait_for(1)
    envelope = json.loads(request.body)
    assert list(envelope)[:3] == ["object", "event", "delivery_id"]
    assert envelope["event"] == "webhook.test" and envelope["delivery_id"] == started["delivery_id"]
    assert (envelope["tenant_id"], envelope["phone_number_id"], envelope["webhook_id"], envelope["test"]) == (
        tenant.id,
        tenant.phone_number_id,
        webhook["id"],
        True,
    )
    assert envelope["occurred_at"].endswith("Z")
    headers = request.headers
    assert headers["content-type"] == "application/json"
    assert headers["x-service-event"] == "webhook.test"
    assert headers["x-service-delivery"] == started["delivery_id"]
    assert headers["x-service-signature"].startswith("sha256=")
    assert verify_service_signature(request.body, headers["x-service-signature"], webhook["secret"])
    assert not verify_service_signature(
        request.body + b" ", headers["x-service-signature"], webhook["secret"]
    )
    [attempt] = await db.wait(lambda: db.attempts(started["delivery_id"]))
    assert (attempt.attempt, attempt.success, attempt.status_code, attempt.error) == (1, True, 200, None)
    assert attempt.latency_ms is not None and attempt.latency_ms >= 0
    [delivery] = await db.wait(lambda: _settled(db))
    assert (delivery.id, delivery.status, delivery.attempts) == (started["delivery_id"], "succeeded", 1)

    async def dispatched() -> Event | None:
        async with db.sessions() as session:
            event = await session.get(Event, started["event_id"])
            return event if event is not None and event.dispatched_at is not None else None

    # DispatchEvent stamps the event after it started the delivery, which may settle first.
    await db.wait(dispatched)
    # A second dispatch of the same event changes nothing.
    await dispatch_events(worker.client, task_queue=worker.task_queue, event_ids=[started["event_id"]])
    assert len(hook.at("/hook")) == 1 and len(await db.attempts()) == 1


async def _settled(db: Db) -> list:
    return [d for d in await db.deliveries() if d.status != "pending"]


async def test_only_active_matching_webhooks_receive_an_event(app_client, tenant, worker, receiver, db):
    hook, base_url = receiver
    everything = await make_webhook(app_client, tenant, f"{base_url}/hook")
    statuses_only = await make_webhook(app_client, tenant, f"{base_url}/hook", events=["Statuses"])
    disabled = await make_webhook(app_client, tenant, f"{base_url}/hook")
    await app_client.patch(
        f"/v1/webhooks/{disabled['id']}", json={"enabled": False}, headers=tenant.headers()
    )
    received = await add_event(db, tenant, MESSAGE_RECEIVED)
    delivered = await add_event(db, tenant, MESSAGE_DELIVERED)
    await dispatch_events(worker.client, task_queue=worker.task_queue, event_ids=[received, delivered])
    requests = await hook.wait_for(3)
    seen = sorted((r.headers["x-service-event"], r.headers["x-service-delivery"]) for r in requests)
    deliveries = {(d.event_id, d.webhook_id) for d in await db.deliveries()}
    assert deliveries == {
        (received, everything["id"]),
        (delivered, everything["id"]),
        (delivered, statuses_only["id"]),
    }
    assert [kind for kind, _ in seen] == [MESSAGE_DELIVERED, MESSAGE_DELIVERED, MESSAGE_RECEIVED]
    secrets = {everything["id"]: everything["secret"], statuses_only["id"]: statuses_only["secret"]}
    webhook_of = {d.id: d.webhook_id for d in await db.deliveries()}
    for request in requests:
        secret = secrets[webhook_of[request.headers["x-service-delivery"]]]
        assert verify_service_signature(request.body, request.headers["x-service-signature"], secret)


async def test_redirects_are_failures_and_not_followed(app_client, tenant, worker, receiver, db):
    hook, base_url = receiver
    hook.default = (308, {"Location": f"{base_url}/other"})
    webhook = await make_webhook(app_client, tenant, f"{base_url}/hook")
    started = (await app_client.post(f"/v1/webhooks/{webhook['id']}/test", headers=tenant.headers())).json()
    [attempt] = await db.wait(lambda: db.attempts(started["delivery_id"]))
    assert (attempt.success, attempt.status_code) == (False, 308)
    assert "redirects are not followed" in attempt.error
    assert hook.at("/other") == []


async def test_outbox_sweeper_dispatches_what_a_crash_left_behind(app_client, tenant, worker, receiver, db):
    hook, base_url = receiver
    await make_webhook(app_client, tenant, f"{base_url}/hook")
    stale = await add_event(db, tenant, MESSAGE_RECEIVED, created_at=datetime.now(UTC) - timedelta(minutes=1))
    fresh = await add_event(db, tenant, MESSAGE_RECEIVED)
    async with db.sessions() as session:
        await session.execute(update(Event).where(Event.id == fresh).values(created_at=datetime.now(UTC)))
        await session.commit()
    result = await worker.client.execute_workflow(
        SweepEventOutboxWorkflow.run, id=f"sweep-{worker.task_queue}", task_queue=worker.task_queue
    )
    assert result.events == 1
    [request] = await hook.wait_for(1)
    assert request.headers["x-service-delivery"] == (await db.deliveries())[0].id
    assert {d.event_id for d in await db.deliveries()} == {stale}
