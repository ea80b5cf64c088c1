"""ProcessInbound and InboundHousekeeping on real Temporal servers, and the retention rules."""

from __future__ import annotations

import asyncio
import json
import time
from datetime import UTC, datetime, timedelta

import pytest
from fastapi import FastAPI, Request
from sqlalchemy import func, select

from switchboard.activities.inbound_housekeeping import RetentionActivities, retention_days
from switchboard.domain.inbound import payload_id
from switchboard.domain.signatures import verify_service_signature
from switchboard.models.base import utcnow
from switchboard.models.events import RawInbound
from switchboard.models.inbound import HousekeepingInput, InboundItemRecord, InboundPayload
from switchboard.store.database import create_engine
from switchboard.workflows.inbound import ProcessInboundWorkflow
from switchboard.workflows.inbound_housekeeping import InboundHousekeepingWorkflow
from tests.fixtures.channel import raw
from tests.support.http_server import serve_app
from tests.support.inbound import (
    channel_fixture,  # noqa: F401 - the channel fixture
    db,
    events,
    provision_fixture_number,
    rows,
    status_payload,
)

NOW = datetime(2026, 6, 1, tzinfo=UTC)


@pytest.mark.parametrize(("configured", "days"), [(None, 14), (3, 7), (7, 7), (21, 21), (30, 30), (90, 30)])
def test_retention_is_clamped_to_7_to_30_days(configured, days):
    assert retention_days(configured) == days


async def seed(settings, *ages_days: float, processed: bool = True) -> list[str]:
    """Raw envelopes and ledger rows received the given number of days before NOW."""
    ids = []
    async with db(settings) as session:
        for n, age in enumerate(ages_days):
            when = NOW - timedelta(days=age)
            rid = f"raw-{age}-{n}-{processed}"
            session.add(
                RawInbound(id=rid, body="{}", received_at=when, processed_at=when if processed else None)
            )
            session.add(InboundItemRecord(key=f"pn|message:{rid}", payload_id=rid, applied_at=when))
            ids.append(rid)
    return ids


@pytest.mark.parametrize(
    ("retention", "kept_ages"),
    [(None, [1, 6.9, 8, 13.9]), (7, [1, 6.9]), (30, [1, 6.9, 8, 13.9, 15, 29])],
)
async def test_prune_keeps_only_envelopes_within_retention(retention, kept_ages, settings):
    if retention is not None:
        settings = settings.model_copy(update={"raw_inbound_retention_days": retention})
    ages = [1, 6.9, 8, 13.9, 15, 29, 31, 400]
    await seed(settings, *ages)
    await seed(settings, 20, processed=False)
    engine = create_engine(settings.database_url)
    from switchboard.worker import build_deps, close_deps

    deps = build_deps(None, settings, engine)  # type: ignore[arg-type]
    try:
        result = await RetentionActivities(deps).prune_raw_inbound(HousekeepingInput(now=NOW))
    finally:
        await close_deps(deps)
        await engine.dispose()
    kept = sorted(NOW - r.received_at for r in await rows(settings, RawInbound))
    expected = sorted(timedelta(days=a) for a in [*kept_ages, *([20] if retention == 30 else [])])
    assert kept == expected
    assert result.raw_deleted == len(ages) + 1 - len(kept) == result.ledger_deleted
    assert result.raw_unprocessed_deleted == (0 if retention == 30 else 1)
    assert result.retention_days == (retention or 14)
    assert len(await rows(settings, InboundItemRecord)) == len(kept)


async def test_housekeeping_workflow_sweeps_and_prunes(channel, app_client, tenant, settings, temporal_env):
    await provision_fixture_number(app_client, tenant)
    body = raw("text")
    async with db(settings) as session:
        session.add(
            RawInbound(id="old", body="{}", received_at=utcnow() - timedelta(days=40), processed_at=utcnow())
        )
        session.add(
            RawInbound(id=payload_id(body), body=body.decode(), received_at=utcnow() - timedelta(minutes=5))
        )
    result = await temporal_env.client.execute_workflow(
        InboundHousekeepingWorkflow.run,
        id=f"housekeeping-{settings.temporal_task_queue}",
        task_queue=settings.temporal_task_queue,
    )
    assert (result.sweep.started, result.retention.raw_deleted) == (1, 1)
    summary = await temporal_env.client.get_workflow_handle_for(
        ProcessInboundWorkflow.run, f"inbound-{settings.temporal_task_queue}-{payload_id(body)}"
    ).result()
    assert summary.applied == 1
    (left,) = await rows(settings, RawInbound)
    assert left.id == payload_id(body) and left.processed_at is not None


async def test_status_for_an_unknown_message_is_dropped_after_about_30s(
    app_client, tenant, settings, time_skipping_env
):
    from switchboard.worker import build_deps, build_worker, close_deps

    await provision_fixture_number(app_client, tenant)
    engine = create_engine(settings.database_url)
    deps = build_deps(time_skipping_env.client, settings, engine)
    body = status_payload("wamid.never-stored", "delivered")
    payload = InboundPayload(payload_id=payload_id(body), body=body.decode(), received_at=utcnow())
    try:
        async with build_worker(time_skipping_env.client, deps):
            handle = await time_skipping_env.client.start_workflow(
                ProcessInboundWorkflow.run,
                payload,
                id=f"unknown-{time.time_ns()}",
                task_queue=settings.temporal_task_queue,
            )
            summary = await handle.result()
            description = await handle.describe()
            waited = description.close_time - description.start_time
    finally:
        await close_deps(deps)
        await engine.dispose()
    assert (summary.items, summary.applied, summary.dropped, summary.deferred) == (1, 0, 1, [])
    assert timedelta(seconds=29) <= waited < timedelta(seconds=60)
    assert await events(settings, tenant.id) == []


async def test_worker_registers_the_housekeeping_schedule(settings, temporal_env):
    from switchboard.worker import SCHEDULES, ensure_schedules

    assert ("inbound-housekeeping", InboundHousekeepingWorkflow.run, timedelta(minutes=1)) in SCHEDULES
    await ensure_schedules(temporal_env.client, settings)
    handle = temporal_env.client.get_schedule_handle(f"{settings.temporal_task_queue}-inbound-housekeeping")
    description = await handle.describe()
    assert description.schedule.spec.intervals[0].every == timedelta(minutes=1)
    for suffix, *_ in SCHEDULES:
        await temporal_env.client.get_schedule_handle(f"{settings.temporal_task_queue}-{suffix}").delete()


async def test_inbound_message_reaches_the_tenant_webhook_signed(channel, app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    received: asyncio.Queue[tuple[bytes, dict[str, str]]] = asyncio.Queue()
    receiver = FastAPI()

    @receiver.post("/hook")
    async def hook(request: Request) -> dict[str, bool]:
        await received.put((await request.body(), dict(request.headers)))
        return {"ok": True}

    async with serve_app(receiver) as base:
        created = await app_client.post(
            "/v1/webhooks",
            json={"url": f"{base}/hook", "events": ["channel.message.received"]},
            headers=tenant.headers(),
        )
        assert created.status_code == 201, created.text
        secret = created.json()["secret"]
        await channel.deliver(raw("text"))
        body, headers = await asyncio.wait_for(received.get(), timeout=20)
    assert verify_service_signature(body, headers["x-service-signature"], secret)
    envelope = json.loads(body)
    assert (envelope["event"], envelope["message"]["id"]) == ("channel.message.received", "wamid.xyzxyz")
    assert headers["x-service-event"] == "channel.message.received"
    assert envelope["delivery_id"] == headers["x-service-delivery"]
    async with db(settings) as session:
        assert (await session.execute(select(func.count()).select_from(RawInbound))).scalar_one() == 1
