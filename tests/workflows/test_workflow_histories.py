"""Recorded histories of every workflow replay against today's code, so a change that would break a run
in flight (a delivery retries for a day, a timer sleeps for a month) fails here, not in production.

Every ``histories/*.json`` is replayed with the worker's workflows and data converter (no server), and
every registered workflow and every ``workflow.patched`` id must be covered: a patch by one history
with its marker and one recorded before it. Re-record after a deliberate, patched change with

    SWITCHBOARD_RECORD_HISTORIES=1 pytest tests/workflows/test_workflow_histories.py

which runs the real workflows and activities on the time-skipping server and rewrites the files this
module records (docs/versioning.md). The agent and send histories have their own recorders.
"""

from __future__ import annotations

import importlib
import re
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import update
from sqlmodel import col, select
from temporalio.client import WorkflowHistory
from temporalio.testing import WorkflowEnvironment

from switchboard.activities.agents.payloads import TimersInput
from switchboard.activities.webhooks.config import config_from_settings
from switchboard.activities.webhooks.delivery import WebhookDeliveryActivities
from switchboard.activities.webhooks.dispatching import plan_recorded
from switchboard.activities.webhooks.types import (
    AttemptInput,
    DeliveryInput,
    RecoveryInput,
    RecoveryProgress,
    ResendRef,
    ScheduleTerms,
)
from switchboard.activities.workflow_starts import (
    delivery_workflow_id,
    dispatch_workflow_id,
    timers_workflow_id,
)
from switchboard.domain.events import MESSAGE_RECEIVED
from switchboard.domain.inbound import payload_id
from switchboard.models.base import utcnow
from switchboard.models.events import Event, RawInbound, WebhookDelivery, WebhookEndpoint
from switchboard.models.inbound import InboundPayload
from switchboard.models.template_sync import TemplateSyncInput
from switchboard.settings import Settings
from switchboard.store.events import record_event
from switchboard.store.webhooks import notifications
from switchboard.store.webhooks.deliveries import delivery_id_for
from switchboard.workflows.agent_timers import AgentThreadTimersWorkflow
from switchboard.workflows.all_workflows import WORKFLOWS
from switchboard.workflows.event_dispatch import DispatchEventWorkflow, SweepEventOutboxWorkflow
from switchboard.workflows.inbound import ProcessInboundWorkflow
from switchboard.workflows.inbound_housekeeping import InboundHousekeepingWorkflow
from switchboard.workflows.maintenance import (
    PruneRateLimitCountersWorkflow,
    SweepAgentTurnsWorkflow,
    SweepQueuedSendsWorkflow,
)
from switchboard.workflows.owner_notification import SendOwnerNotificationWorkflow
from switchboard.workflows.template_sync import SyncTemplatesWorkflow
from switchboard.workflows.webhook_delivery import DeliverWebhookWorkflow
from switchboard.workflows.webhook_recovery import RecoverDeliveriesWorkflow
from tests.conftest import ADMIN_KEY
from tests.fixtures.channel import raw
from tests.support.fake_channel import FakeChannel, Scripted, cloud_error
from tests.support.http_server import serve_app
from tests.support.inbound import provision_fixture_number, status_payload
from tests.support.tenants import TenantFixture, provision_tenant
from tests.workflows import legacy_workflows as legacy
from tests.workflows import record_support as rec
from tests.workflows.test_webhook_support import Receiver

HISTORIES = sorted(rec.HISTORIES.glob("*.json"))
WORKFLOW_SOURCES = sorted(
    (Path(__file__).resolve().parents[2] / "src" / "switchboard" / "workflows").glob("*.py")
)


def load(path: Path) -> WorkflowHistory:
    return WorkflowHistory.from_json(path.stem, path.read_text())


@pytest.mark.parametrize("path", HISTORIES, ids=[path.stem for path in HISTORIES])
async def test_history_replays_on_current_code(path: Path) -> None:
    result = await rec.replayer().replay_workflow(load(path), raise_on_replay_failure=False)
    if result.replay_failure is not None:
        pytest.fail(
            f"{path.name} no longer replays (docs/versioning.md): {result.replay_failure}", pytrace=False
        )


def test_every_registered_workflow_has_a_recorded_history() -> None:
    recorded = {rec.workflow_type(load(path)) for path in HISTORIES}
    missing = {rec.workflow_name(cls) for cls in WORKFLOWS} - recorded
    assert not missing, f"record a history of {sorted(missing)} ({rec.RECORD_ENV}=1, docs/versioning.md)"


def patch_ids_in_code(call: str) -> set[str]:
    """Every id passed to ``workflow.<call>`` (patched or deprecate_patch) under workflows/."""
    found = set()
    for source in WORKFLOW_SOURCES:
        text = source.read_text()
        names = re.findall(rf"workflow\.{call}\(\s*(\w+|\"[^\"]+\")\s*\)", text)
        assert len(names) == text.count(f"workflow.{call}("), f"{source.name}: name the patch id plainly"
        module = importlib.import_module(f"switchboard.workflows.{source.stem}")
        found |= {name.strip('"') if name.startswith('"') else str(getattr(module, name)) for name in names}
    return found


def test_every_patch_has_histories_on_both_sides() -> None:
    histories = [load(path) for path in HISTORIES]
    for patch in sorted(patch_ids_in_code("patched")):
        marked = {rec.workflow_type(h) for h in histories if patch in rec.patch_ids(h)}
        assert marked, f"no history carries the {patch!r} marker: record one on today's code"
        for kind in sorted(marked):
            before = [h for h in histories if rec.workflow_type(h) == kind and patch not in rec.patch_ids(h)]
            assert before, f"no {kind} history recorded before {patch!r}: add a Legacy* recorder"


def test_every_deprecated_patch_has_a_marked_history() -> None:
    histories = [load(path) for path in HISTORIES]
    for patch in sorted(patch_ids_in_code("deprecate_patch")):
        assert any(patch in rec.patch_ids(h) for h in histories), f"no history carries {patch!r}"


# -- Recording (only with SWITCHBOARD_RECORD_HISTORIES=1) ------------------------------------------

recording = pytest.mark.skipif(not rec.recording(), reason=f"{rec.RECORD_ENV}=1 re-records the histories")


@pytest.fixture
async def receiver() -> AsyncIterator[tuple[Receiver, str]]:
    hook = Receiver()
    async with serve_app(hook.app()) as base_url:
        yield hook, f"{base_url}/hook"


async def make_webhook(app_client: httpx.AsyncClient, tenant: TenantFixture, url: str) -> str:
    """A webhook of the tenant's for every event, at ``url``; its id."""
    response = await app_client.post("/v1/webhooks", json={"url": url}, headers=tenant.headers())
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


async def add_event(stack: rec.Stack, tenant: TenantFixture, *, age: timedelta = timedelta(0)) -> str:
    async with stack.deps.sessions() as session:
        event = await record_event(
            session,
            tenant_id=tenant.id,
            kind=MESSAGE_RECEIVED,
            occurred_at=utcnow(),
            payload={"object": "service_events", "event": MESSAGE_RECEIVED, "tenant_id": tenant.id},
        )
        await session.commit()
        if age:
            stamp = update(Event).where(col(Event.id) == event.id).values(created_at=datetime.now(UTC) - age)
            await session.execute(stamp)
            await session.commit()
        return event.id


async def dispatch(stack: rec.Stack, tenant: TenantFixture, name: str | None = None) -> Any:
    """Dispatch a new event to the tenant's one webhook; the handle of its delivery."""
    handle = await stack.start(DispatchEventWorkflow.run, await add_event(stack, tenant), prefix="event")
    if name:
        await rec.save(handle, name)
    [delivery_id] = await handle.result()
    return stack.client.get_workflow_handle_for(DeliverWebhookWorkflow.run, delivery_workflow_id(delivery_id))


@recording
async def test_record_owner_notification(
    app_client: httpx.AsyncClient, settings: Settings, time_skipping_env: WorkflowEnvironment
) -> None:
    owner = await provision_tenant(app_client, ADMIN_KEY, notification_email="owner@example.com")
    created = await app_client.post(
        "/v1/webhooks", json={"url": "https://hooks.example.com/owner"}, headers=owner.headers()
    )
    assert created.status_code == 201, created.text
    async with rec.stack(time_skipping_env, settings) as stack:
        async with stack.deps.sessions() as session:
            webhook = await session.get(WebhookEndpoint, created.json()["id"])
            assert webhook is not None
            note_id = await notifications.record_notification(
                session, webhook, kind="webhook.reactivated", transition_key=f"t-{webhook.id}", at=utcnow()
            )
            await session.commit()
        # No SMTP_URL: the notice is stored and logged, the path every SMTP outcome shares.
        handle = await stack.start(SendOwnerNotificationWorkflow.run, note_id, prefix="owner-notification")
        await rec.save(handle, "owner_notification_stored")


@recording
async def test_record_maintenance(settings: Settings, time_skipping_env: WorkflowEnvironment) -> None:
    async with rec.stack(time_skipping_env, settings) as stack:
        prune = await stack.start(PruneRateLimitCountersWorkflow.run, prefix="prune")
        await rec.save(prune, "maintenance_prune_rate_limits")
        sends = await stack.start(SweepQueuedSendsWorkflow.run, prefix="sweep-sends")
        await rec.save(sends, "maintenance_sweep_queued_sends")
        turns = await stack.start(SweepAgentTurnsWorkflow.run, prefix="sweep-turns")
        await rec.save(turns, "maintenance_sweep_agent_turns")
    async with rec.stack(
        time_skipping_env, settings, legacy=[legacy.LegacyPruneRateLimitCountersWorkflow]
    ) as stack:
        before = await stack.start(PruneRateLimitCountersWorkflow.run, prefix="prune")
        await rec.save(before, "maintenance_prune_rate_limits_before_event_retention")


@recording
async def test_record_inbound(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    settings: Settings,
    time_skipping_env: WorkflowEnvironment,
) -> None:
    await provision_fixture_number(app_client, tenant)

    def payload(body: bytes) -> InboundPayload:
        return InboundPayload(payload_id=payload_id(body), body=body.decode(), received_at=utcnow())

    async with rec.stack(time_skipping_env, settings) as stack:
        text = await stack.start(ProcessInboundWorkflow.run, payload(raw("text")), prefix="inbound")
        await rec.save(text, "inbound_text_message")
        # A status for a message never stored: deferred on durable timers for about 30 s, then dropped.
        unknown = payload(status_payload("wamid.never-stored", "delivered"))
        await rec.save(
            await stack.start(ProcessInboundWorkflow.run, unknown, prefix="inbound"), "inbound_unknown_status"
        )
        stranded = raw("reaction")
        async with stack.deps.sessions() as session:
            session.add(RawInbound(id=payload_id(stranded), body=stranded.decode(), received_at=utcnow()))
            await session.commit()
        sweep = await stack.start(InboundHousekeepingWorkflow.run, prefix="inbound-housekeeping")
        await rec.save(sweep, "inbound_housekeeping")
    async with rec.stack(time_skipping_env, settings, legacy=[legacy.LegacyProcessInboundWorkflow]) as stack:
        unknown = payload(status_payload("wamid.never-stored-either", "read"))
        before = await stack.start(ProcessInboundWorkflow.run, unknown, prefix="inbound")
        await rec.save(before, "inbound_unknown_status_before_local_apply")


@recording
async def test_record_webhooks(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    settings: Settings,
    time_skipping_env: WorkflowEnvironment,
    receiver: tuple[Receiver, str],
) -> None:
    hook, url = receiver

    async def webhook() -> str:
        return await make_webhook(app_client, tenant, url)

    await webhook()
    async with rec.stack(time_skipping_env, settings) as stack:
        hook.script = [(500, {}), (200, {})]
        retried = await dispatch(stack, tenant, "webhook_dispatch_event")
        await rec.save(retried, "webhook_delivery_retried_then_settled")
        # A 410 settles the delivery as gone and disables the webhook: the rest goes to a new one.
        hook.script = [(410, {})]
        await rec.save(await dispatch(stack, tenant), "webhook_delivery_gone")
        webhook_id = await webhook()
        stale = await add_event(stack, tenant, age=timedelta(minutes=1))
        sweep = await stack.start(SweepEventOutboxWorkflow.run, prefix="outbox-sweep")
        await rec.save(sweep, "webhook_sweep_event_outbox")
        # Its dispatch and delivery finish before the pre-patch worker answers from the same receiver.
        await stack.client.get_workflow_handle(dispatch_workflow_id(stale)).result()
        swept = delivery_workflow_id(delivery_id_for(stale, webhook_id))
        await stack.client.get_workflow_handle(swept).result()
    async with rec.stack(time_skipping_env, settings, legacy=[legacy.LegacyDeliverWebhookWorkflow]) as stack:
        hook.script = [(503, {}), (204, {})]
        before = await dispatch(stack, tenant)
        await rec.save(before, "webhook_delivery_before_settled_with_attempt")
    async with rec.stack(
        time_skipping_env, settings, legacy=[legacy.LegacyRegularAttemptDeliverWebhookWorkflow]
    ) as stack:
        hook.script = [(500, {}), (200, {})]
        before = await dispatch(stack, tenant)
        await rec.save(before, "webhook_delivery_before_local_attempt")


@recording
async def test_record_webhook_first_attempts(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    settings: Settings,
    time_skipping_env: WorkflowEnvironment,
    receiver: tuple[Receiver, str],
) -> None:
    """Runs started as an API process starts them: attempt 1 already made, its outcome in the input."""
    hook, url = receiver
    await make_webhook(app_client, tenant, url)
    async with rec.stack(time_skipping_env, settings) as stack:
        config = config_from_settings(stack.settings)
        attempt = WebhookDeliveryActivities(stack.deps, config).attempt_delivery

        async def attempted_first() -> Any:
            event_id = await add_event(stack, tenant)
            async with stack.deps.sessions() as session:
                plan = await plan_recorded(session, [event_id])
                await session.commit()
            (delivery,) = plan.deliveries
            first = await attempt(AttemptInput(delivery_id=delivery.delivery_id, attempt=1, at=utcnow()))
            return await stack.client.start_workflow(
                DeliverWebhookWorkflow.run,
                DeliveryInput(
                    delivery=delivery, schedule=ScheduleTerms.of(config.policy), first_attempt=first
                ),
                id=delivery_workflow_id(delivery.delivery_id),
                task_queue=stack.task_queue,
            )

        hook.script = [(200, {})]
        await rec.save(await attempted_first(), "webhook_delivery_first_attempt_in_input")
        hook.script = [(500, {}), (200, {})]
        await rec.save(await attempted_first(), "webhook_delivery_first_attempt_failed_then_settled")


@recording
async def test_record_webhook_recovery(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    settings: Settings,
    time_skipping_env: WorkflowEnvironment,
    receiver: tuple[Receiver, str],
) -> None:
    """A window's failed deliveries resent once each, then one delivery resent alone."""
    hook, url = receiver
    webhook_id = await make_webhook(app_client, tenant, url)
    # One attempt a delivery: a 500 fails it at once.
    async with rec.stack(time_skipping_env, settings, webhook_retry_schedule_seconds="0") as stack:
        hook.default = (500, {})
        for handle in [await dispatch(stack, tenant) for _ in range(2)]:
            await handle.result()
        hook.default = (200, {})
        window = RecoveryInput(
            recovery_id="rcv_window",
            tenant_id=tenant.id,
            webhook_id=webhook_id,
            since=datetime(2000, 1, 1, tzinfo=UTC),
            until=datetime(2100, 1, 1, tzinfo=UTC),
            progress=RecoveryProgress(total=2),
        )
        recovered = await stack.start(RecoverDeliveriesWorkflow.run, window, prefix="webhook-recovery")
        assert (await recovered.result()).succeeded == 2
        await rec.save(recovered, "webhook_recovery_window")
        async with stack.deps.sessions() as session:
            delivery = (await session.execute(select(WebhookDelivery).limit(1))).scalars().one()
        one = window.model_copy(
            update={
                "recovery_id": "rcv_one",
                "since": None,
                "until": None,
                "deliveries": [ResendRef(delivery_id=delivery.id, attempts=delivery.attempts)],
                "progress": RecoveryProgress(total=1),
            }
        )
        resent = await stack.start(RecoverDeliveriesWorkflow.run, one, prefix="webhook-recovery")
        await rec.save(resent, "webhook_recovery_one_delivery")


@recording
async def test_record_template_sync(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    settings: Settings,
    time_skipping_env: WorkflowEnvironment,
) -> None:
    channel = FakeChannel()
    refused = await provision_tenant(app_client, ADMIN_KEY)
    channel.templates[tenant.waba_id] = [
        {
            "id": "tpl1",
            "name": "tpl_001",
            "language": "en_US",
            "category": "UTILITY",
            "status": "APPROVED",
            "components": [{"type": "BODY", "text": "Hi"}],
        },
    ]
    channel.template_list_script[refused.waba_id].append(Scripted(401, cloud_error(190, "Token expired")))
    async with serve_app(channel.app()) as base_url:
        async with rec.stack(time_skipping_env, settings, channel_api_base_url=base_url) as stack:
            handle = await stack.start(SyncTemplatesWorkflow.run, TemplateSyncInput(per_run=1), prefix="sync")
            first = stack.client.get_workflow_handle(handle.id, run_id=handle.first_execution_run_id)
            await rec.save(first, "template_sync_continued_as_new")
            last = stack.client.get_workflow_handle(handle.id)
            await rec.save(last, "template_sync_last_run")


@recording
async def test_record_agent_timers(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    settings: Settings,
    time_skipping_env: WorkflowEnvironment,
) -> None:
    async with rec.stack(time_skipping_env, settings) as stack:
        now = (await time_skipping_env.get_current_time()).astimezone(UTC)
        thread_id = await rec.muted_thread(stack, tenant, at=now)
        handle = await stack.client.start_workflow(
            AgentThreadTimersWorkflow.run,
            TimersInput(thread_id=thread_id, tenant_id=tenant.id),
            id=timers_workflow_id(thread_id) + f"-{uuid.uuid4().hex[:6]}",
            task_queue=stack.task_queue,
        )
        await handle.signal(AgentThreadTimersWorkflow.wake)
        await rec.save(handle, "thread_timers_unmute_after_24h")
