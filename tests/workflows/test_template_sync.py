"""SyncTemplates on the time-skipping server against a loopback fake upstream.

The workflow runs with the real activities: it pages through every WABA
(continuing as new between runs), reads each WABA's templates through the same
code as POST .../templates/sync, retries a 5xx after its backoff (skipped in
time), skips a WABA whose token the upstream refuses, and changes nothing when
run again.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import httpx
import pytest
from temporalio.worker import Worker

from switchboard.activities.template_sync import PAGE_SIZE, template_sync_activities
from switchboard.models.messaging import Template
from switchboard.models.template_sync import TemplateSyncInput, TemplateSyncTotals
from switchboard.store.database import create_engine
from switchboard.workflows.template_sync import SyncTemplatesWorkflow
from tests.conftest import ADMIN_KEY
from tests.support.fake_channel import FakeChannel, Scripted, cloud_error
from tests.support.http_server import serve_app
from tests.support.inbound import rows
from tests.support.tenants import TenantFixture, provision_tenant


@pytest.fixture
async def upstream() -> AsyncIterator[tuple[FakeChannel, str]]:
    channel = FakeChannel()
    async with serve_app(channel.app()) as base_url:
        yield channel, base_url


@pytest.fixture
def settings(settings, upstream):  # type: ignore[no-untyped-def]
    return settings.model_copy(update={"channel_api_base_url": upstream[1]})


def listing(count: int, *, status: str = "APPROVED", prefix: str = "tpl") -> list[dict[str, Any]]:
    return [
        {
            "id": f"{prefix}{n}",
            "name": f"{prefix}_{n:03d}",
            "language": "en_US",
            "category": "UTILITY",
            "status": status,
            "components": [{"type": "BODY", "text": "Hi"}],
        }
        for n in range(count)
    ]


async def run_sync(env: Any, settings: Any, **request: Any) -> TemplateSyncTotals:
    from switchboard.worker import build_deps, close_deps

    engine = create_engine(settings.database_url)
    deps = build_deps(env.client, settings, engine)
    worker = Worker(
        env.client,
        task_queue=settings.temporal_task_queue,
        workflows=[SyncTemplatesWorkflow],
        activities=template_sync_activities(deps),
    )
    try:
        async with worker:
            return await env.client.execute_workflow(
                SyncTemplatesWorkflow.run,
                TemplateSyncInput(**request),
                id=f"template-sync-{uuid.uuid4().hex[:8]}",
                task_queue=settings.temporal_task_queue,
            )
    finally:
        await close_deps(deps)
        await engine.dispose()


async def statuses(settings: Any, waba_id: str) -> dict[str, str]:
    found = await rows(settings, Template, Template.waba_id == waba_id)
    return {t.name: t.status for t in found}


async def test_every_waba_is_synced_page_by_page_and_a_refused_one_is_skipped(
    app_client: httpx.AsyncClient, tenant: TenantFixture, time_skipping_env, settings, upstream
):
    channel, _ = upstream
    second = await provision_tenant(app_client, ADMIN_KEY)
    refused = await provision_tenant(app_client, ADMIN_KEY)
    # More templates than one page holds, so the read follows the upstream's cursor.
    channel.templates[tenant.waba_id] = listing(PAGE_SIZE + 20)
    channel.templates[second.waba_id] = listing(2, status="PAUSED", prefix="other")
    channel.template_list_script[refused.waba_id].append(Scripted(401, cloud_error(190, "Token expired")))
    # A transient 503 on the second WABA is retried after the backoff (time-skipped).
    channel.template_list_script[second.waba_id].append(Scripted(503, cloud_error(2, "Unavailable")))

    totals = await run_sync(time_skipping_env, settings, per_run=1)

    assert totals == TemplateSyncTotals(wabas=2, failed=1, templates=PAGE_SIZE + 22, changed=PAGE_SIZE + 22)
    first = await statuses(settings, tenant.waba_id)
    assert len(first) == PAGE_SIZE + 20 and set(first.values()) == {"APPROVED"}
    assert await statuses(settings, second.waba_id) == {"other_000": "PAUSED", "other_001": "PAUSED"}
    assert await statuses(settings, refused.waba_id) == {}
    # Three runs (one WABA each): two pages for the first WABA, 503 then a page for the second, one refusal.
    assert channel.template_lists.count(tenant.waba_id) == 2
    assert channel.template_lists.count(second.waba_id) == 2
    assert channel.template_lists.count(refused.waba_id) == 1


async def test_a_pending_template_becomes_approved_and_a_second_run_changes_nothing(
    app_client: httpx.AsyncClient, tenant: TenantFixture, time_skipping_env, settings, upstream
):
    channel, _ = upstream
    created = await app_client.post(
        f"/v1/wabas/{tenant.waba_id}/templates",
        json={
            "name": "tpl_000",
            "language": "en_US",
            "category": "UTILITY",
            "components": [{"type": "BODY", "text": "Hi"}],
        },
        headers=tenant.headers(),
    )
    assert created.status_code == 201, created.text
    assert await statuses(settings, tenant.waba_id) == {"tpl_000": "PENDING"}
    # The approval webhook was lost; the upstream lists the template approved.
    channel.templates[tenant.waba_id] = listing(1)

    first = await run_sync(time_skipping_env, settings)
    second = await run_sync(time_skipping_env, settings)

    assert (first.wabas, first.changed, second.wabas, second.changed) == (1, 1, 1, 0)
    assert await statuses(settings, tenant.waba_id) == {"tpl_000": "APPROVED"}
    assert len(await rows(settings, Template)) == 1


async def test_the_worker_schedules_the_sync_hourly(settings, temporal_env):
    from switchboard.worker import SCHEDULES, ensure_schedules

    assert ("template-sync", SyncTemplatesWorkflow.run, timedelta(hours=1)) in SCHEDULES
    await ensure_schedules(temporal_env.client, settings)
    try:
        handle = temporal_env.client.get_schedule_handle(f"{settings.temporal_task_queue}-template-sync")
        description = await handle.describe()
        assert description.schedule.spec.intervals[0].every == timedelta(hours=1)
        assert description.schedule.action.workflow == "SyncTemplates"  # type: ignore[attr-defined]
    finally:
        for suffix, *_ in SCHEDULES:
            await temporal_env.client.get_schedule_handle(f"{settings.temporal_task_queue}-{suffix}").delete()
