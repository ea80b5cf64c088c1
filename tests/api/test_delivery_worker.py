"""The API runs the DeliverWebhook runs it starts (eager starts), up to its slots, and takes nothing else.

Each run makes its own first attempt, a local activity, in the process that runs it.

Which process ran a workflow task is read from Temporal's own history: each WorkflowTaskStarted
event records the identity of the worker that polled the task, or of the client whose eager start was
handed it, and the API's worker and client both end with ``IDENTITY_SUFFIX``. The API under test has no worker process beside it unless a test asks for one.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.worker import Worker

from switchboard.activities.webhooks.types import DeliveryInput, DeliveryRef, ScheduleTerms
from switchboard.activities.workflow_starts import delivery_workflow_id
from switchboard.api.delivery_worker import IDENTITY_SUFFIX, EagerOnlySlots
from switchboard.domain.webhook_policy import WebhookPolicy
from switchboard.domain.workflow_names import DELIVERY_WORKFLOW
from switchboard.models.events import WebhookAttempt, WebhookDelivery
from switchboard.settings import Settings
from tests.support.api_process import running_api, started_by
from tests.support.delivery_runs import run_history, run_input, run_result
from tests.support.http_server import serve_app
from tests.support.inbound import post_webhook, provision_fixture_number, rows, text_payload
from tests.support.tenants import TenantFixture, provision_tenant
from tests.workflows.test_webhook_support import Receiver

RECEIVED = "channel.message.received"


class _Ctx:
    """The parts of the SDK's reservation context the slots read."""

    def __init__(self, *, sticky: bool) -> None:
        self.is_sticky = sticky


class _Release:
    def __init__(self, permit: Any) -> None:
        self.permit = permit


async def test_eager_slots_are_granted_up_to_the_size_then_declined():
    slots = EagerOnlySlots(2)
    first, second = slots.try_reserve_slot(_Ctx(sticky=False)), slots.try_reserve_slot(_Ctx(sticky=False))
    assert first is not None and second is not None
    assert slots.try_reserve_slot(_Ctx(sticky=False)) is None
    assert slots.in_use == 2
    slots.release_slot(_Release(first))  # type: ignore[arg-type]
    assert slots.in_use == 1
    assert slots.try_reserve_slot(_Ctx(sticky=False)) is not None


async def test_a_poll_of_the_shared_queue_never_gets_a_slot_until_cancelled():
    slots = EagerOnlySlots(4)
    poll = asyncio.create_task(slots.reserve_slot(_Ctx(sticky=False)))  # type: ignore[arg-type]
    for _ in range(20):
        await asyncio.sleep(0)
    assert not poll.done()
    assert slots.in_use == 0
    poll.cancel()
    with pytest.raises(asyncio.CancelledError):
        await poll


@pytest.fixture
async def receiver() -> AsyncIterator[tuple[Receiver, str]]:
    hook = Receiver()
    async with serve_app(hook.app()) as base_url:
        yield hook, f"{base_url}/hook"


@pytest.fixture
def overrides() -> dict[str, Any]:
    return {}


@pytest.fixture
def settings(settings: Settings, overrides: dict[str, Any]) -> Settings:
    """The API's delivery worker as deployed (the setting's default) with the test's overrides, for the
    API and the worker process alike."""
    default = Settings.model_fields["api_delivery_slots"].default
    return settings.model_copy(update={"api_delivery_slots": default, **overrides})


@pytest.fixture
async def api(settings: Settings) -> AsyncIterator[tuple[httpx.AsyncClient, FastAPI]]:
    async with running_api(settings) as running:
        yield running


async def subscribe(client: httpx.AsyncClient, settings: Settings, url: str) -> TenantFixture:
    """A tenant with the channel fixtures' number and a webhook at ``url`` for received messages."""
    tenant = await provision_tenant(client, settings.switchboard_admin_key)
    await provision_fixture_number(client, tenant)
    created = await client.post(
        "/v1/webhooks", json={"url": url, "events": [RECEIVED]}, headers=tenant.headers()
    )
    assert created.status_code == 201, created.text
    return tenant


@pytest.fixture
async def subscribed(
    api: tuple[httpx.AsyncClient, FastAPI], settings: Settings, receiver: tuple[Receiver, str]
) -> TenantFixture:
    return await subscribe(api[0], settings, receiver[1])


async def posted(receiver: Receiver, count: int) -> list[dict[str, Any]]:
    """The first ``count`` envelopes the receiver got, waiting for them."""
    return [json.loads(r.body) for r in (await receiver.wait_for(count, within=30))[:count]]


async def delivered(temporal: Client, envelope: dict[str, Any]) -> str:
    """Wait for the envelope's DeliverWebhook run to end; its workflow id."""
    workflow_id = delivery_workflow_id(envelope["delivery_id"])
    report = await run_result(temporal, workflow_id)
    assert report["outcome"] == "succeeded", report
    return workflow_id


async def test_with_no_worker_process_the_api_delivers_what_it_starts(
    api, subscribed: TenantFixture, receiver, temporal_env, settings: Settings
):
    client, _ = api
    answer = await post_webhook(client, text_payload("wamid.eager1"))
    assert answer.status_code == 200, answer.text
    (envelope,) = await posted(receiver[0], 1)
    assert envelope["event"] == RECEIVED
    workflow_id = await delivered(temporal_env.client, envelope)
    identities = await started_by(temporal_env.client, workflow_id)
    assert identities and all(i.endswith(IDENTITY_SUFFIX) for i in identities), identities
    (row,) = await rows(settings, WebhookDelivery, WebhookDelivery.tenant_id == subscribed.id)
    assert (row.status, row.attempts) == ("succeeded", 1)
    # The run made its attempt itself, a local activity, within its first workflow task: one task.
    assert (await started_with(temporal_env.client, workflow_id)).get("first_attempt") is None
    assert len(identities) == 1, identities
    assert await markers(temporal_env.client, workflow_id) >= 1


async def test_the_api_takes_no_task_from_the_shared_queue(
    api, subscribed: TenantFixture, receiver, temporal_env, settings: Settings
):
    """A delivery started elsewhere (not eagerly here) waits for a worker process, even one the API could run."""
    client, _ = api
    queued_id = delivery_workflow_id("dlv_started_elsewhere")
    queued = await temporal_env.client.start_workflow(
        DELIVERY_WORKFLOW,
        DeliveryInput(
            delivery=DeliveryRef(
                delivery_id="dlv_started_elsewhere", webhook_id="wh_x", event_id="evt_x", event_kind=RECEIVED
            ),
            schedule=ScheduleTerms.of(WebhookPolicy()),
        ),
        id=queued_id,
        task_queue=settings.temporal_task_queue,
    )
    try:
        # The API is alive and delivering: an inbound message's delivery runs here meanwhile.
        assert (await post_webhook(client, text_payload("wamid.eager2"))).status_code == 200
        (envelope,) = await posted(receiver[0], 1)
        await delivered(temporal_env.client, envelope)
        assert await started_by(temporal_env.client, queued_id) == []
    finally:
        await queued.terminate("test over")


async def started_with(temporal: Client, workflow_id: str) -> dict[str, Any]:
    """The run's input, as JSON."""
    return run_input(await run_history(temporal, workflow_id))


async def markers(temporal: Client, workflow_id: str) -> int:
    """The run's recorded markers (a local activity's, a patch's)."""
    history = await temporal.get_workflow_handle(workflow_id).fetch_history()
    return sum(e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED for e in history.events)


@pytest.mark.parametrize("overrides", [{"api_delivery_slots": 1}], ids=["one-slot"])
async def test_past_its_slots_the_api_leaves_the_run_to_a_worker_process(
    api, subscribed: TenantFixture, receiver, temporal_env, worker: Worker, settings: Settings
):
    """One slot. The first delivery's run starts here at once and makes its attempt, whose POST waits at
    the gate, holding the slot. The second's eager start is declined, and a worker process runs it."""
    client, app = api
    hook, _ = receiver
    hook.gate = asyncio.Event()
    deliveries = app.state.delivery_worker
    try:
        assert (
            await post_webhook(client, text_payload("wamid.slot1", from_phone="16505550001"))
        ).status_code == 200
        await posted(hook, 1)
        assert deliveries.slots.in_use == 1
        assert (
            await post_webhook(client, text_payload("wamid.slot2", from_phone="16505550002"))
        ).status_code == 200
        first, second = await posted(hook, 2)
    finally:
        hook.gate.set()
    temporal = temporal_env.client
    here = await delivered(temporal, first)
    assert (await started_with(temporal, here)).get("first_attempt") is None
    assert await markers(temporal, here) >= 1  # its attempt, a local activity
    identities = await started_by(temporal, here)
    assert identities and all(i.endswith(IDENTITY_SUFFIX) for i in identities), identities
    there = await started_by(temporal, await delivered(temporal, second))
    assert there and not any(i.endswith(IDENTITY_SUFFIX) for i in there), there


@pytest.mark.parametrize("overrides", [{"api_delivery_slots": 0}], ids=["no-slots"])
async def test_with_no_slots_every_delivery_goes_to_a_worker_process(
    api, subscribed: TenantFixture, receiver, temporal_env, worker: Worker
):
    client, app = api
    assert app.state.delivery_worker is None
    assert (await post_webhook(client, text_payload("wamid.noslots"))).status_code == 200
    (envelope,) = await posted(receiver[0], 1)
    identities = await started_by(temporal_env.client, await delivered(temporal_env.client, envelope))
    assert identities and not any(i.endswith(IDENTITY_SUFFIX) for i in identities), identities


@pytest.mark.parametrize(
    "overrides",
    [
        {
            "webhook_retry_schedule_seconds": "0, 1",
            "webhook_jitter_ratio": 0.0,
            "webhook_overload_floor_seconds": 1.0,
            "webhook_request_timeout_seconds": 1.0,
        }
    ],
    ids=["timeout-1s"],
)
async def test_a_stopping_api_records_its_attempt_and_a_worker_process_runs_the_retry(
    settings: Settings, receiver, temporal_env, worker: Worker
):
    """The API's stop waits for its attempt (bounded by the request timeout) and leaves the retry to a worker.

    The retry's task goes to the sticky queue of the API's worker, which nobody polls, and moves to the
    shared queue after the sticky timeout.
    """
    hook, url = receiver
    hook.gate = asyncio.Event()  # the first POST gets no answer: it times out in the API after 1 s
    async with running_api(settings) as (client, _):
        tenant = await subscribe(client, settings, url)
        assert (await post_webhook(client, text_payload("wamid.stop1"))).status_code == 200
        (envelope,) = await posted(hook, 1)
        stopping = asyncio.get_running_loop().time()
    stopped_in = asyncio.get_running_loop().time() - stopping
    (first,) = await rows(settings, WebhookAttempt, WebhookAttempt.tenant_id == tenant.id)
    assert (first.attempt, first.success, first.status_code) == (1, False, None), first
    assert stopped_in < 10, stopped_in  # the attempt's 1 s timeout, not the webhook's retry schedule
    hook.gate.set()
    workflow_id = delivery_workflow_id(envelope["delivery_id"])
    report = await asyncio.wait_for(temporal_env.client.get_workflow_handle(workflow_id).result(), timeout=60)
    assert (report["outcome"], report["attempts"]) == ("succeeded", 2), report
    identities = await started_by(temporal_env.client, workflow_id)
    assert identities[0].endswith(IDENTITY_SUFFIX) and not identities[-1].endswith(IDENTITY_SUFFIX), (
        identities
    )
    assert [json.loads(r.body)["delivery_id"] for r in hook.requests] == [envelope["delivery_id"]] * 2
    attempts = await rows(settings, WebhookAttempt, WebhookAttempt.tenant_id == tenant.id)
    assert sorted((a.attempt, a.success) for a in attempts) == [(1, False), (2, True)]
    (row,) = await rows(settings, WebhookDelivery, WebhookDelivery.tenant_id == tenant.id)
    assert row.status == "succeeded"
