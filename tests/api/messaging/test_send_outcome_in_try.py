"""A try the upstream accepted records the send itself (patch "send-outcome-in-try").

The try runs here as the worker runs it (``channel_send`` on the worker's
dependencies, a fake upstream on loopback, the test's database); the message it
records is one the API accepted and left queued, since no worker polls this
test's task queue. Whatever the record does, the try must answer the upstream's
id and never raise: a raise or a timeout would make the workflow send again.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from temporalio import activity
from temporalio.testing import ActivityEnvironment

from switchboard.activities.channel import RECORD_IN_TRY_MARGIN_SECONDS, ChannelActivities, seconds_left
from switchboard.activities.deps import ActivityDeps
from switchboard.activities.sends import SendRecordActivities
from switchboard.domain.events import MESSAGE_SENT
from switchboard.models.send import SendAttempt, SendOutcome
from switchboard.settings import Settings
from tests.support.fake_channel import FakeChannel
from tests.support.inbound import events, of_kind
from tests.support.tenants import TenantFixture

RECIPIENT = "14155550177"


@pytest.fixture
def settings(settings):  # type: ignore[no-untyped-def]
    """No worker runs here: the API answers 202 queued after a short wait."""
    return settings.model_copy(update={"send_wait_seconds": 0.2})


def try_started(ago: float, *, timeout: float = 15.0) -> ActivityEnvironment:
    """An activity environment whose attempt started ``ago`` seconds ago with a ``timeout`` start-to-close."""
    env = ActivityEnvironment()
    env.info = dataclasses.replace(
        env.info,
        started_time=datetime.now(UTC) - timedelta(seconds=ago),
        start_to_close_timeout=timedelta(seconds=timeout),
        scheduled_time=datetime.now(UTC) - timedelta(seconds=ago),
        schedule_to_close_timeout=None,
        is_local=True,
    )
    return env


async def queued_message(client: httpx.AsyncClient, tenant: TenantFixture) -> str:
    response = await client.post(
        "/v1/messages",
        json={
            "phone_number_id": tenant.phone_number_id,
            "to": RECIPIENT,
            "type": "text",
            "text": {"body": "hi"},
        },
        headers=tenant.headers(),
    )
    assert response.status_code == 202, response.text
    assert response.json()["status"] == "queued"
    return str(response.json()["id"])


def accepted_try(tenant: TenantFixture, message_id: str) -> SendAttempt:
    return SendAttempt(
        message_id=message_id,
        tenant_id=tenant.id,
        phone_number_id=tenant.phone_number_id,
        waba_id=tenant.waba_id,
        body={"messaging_product": "whatsapp", "to": "+" + RECIPIENT, "type": "text", "text": {"body": "hi"}},
        outcome_on_success=SendOutcome(message_id=message_id, tenant_id=tenant.id),
    )


async def message(client: httpx.AsyncClient, tenant: TenantFixture, message_id: str) -> dict:
    response = await client.get(f"/v1/messages/{message_id}", headers=tenant.headers())
    assert response.status_code == 200, response.text
    return dict(response.json())


async def test_an_accepted_try_records_the_send_as_sent(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    deps: ActivityDeps,
    channel: FakeChannel,
    settings: Settings,
):
    message_id = await queued_message(app_client, tenant)
    result = await try_started(0.1).run(ChannelActivities(deps).send, accepted_try(tenant, message_id))
    assert result.wa_message_id and result.failure is None
    assert result.report is not None and result.report.sent is not None
    assert (result.report.message_id, result.report.sent.status) == (message_id, "sent")
    assert result.report.sent.wa_message_id == result.wa_message_id
    stored = await message(app_client, tenant, message_id)
    assert (stored["status"], stored["wa_message_id"]) == ("sent", result.wa_message_id)
    assert len(channel.sends) == 1
    [sent] = of_kind(await events(settings, tenant.id), MESSAGE_SENT)
    assert sent.payload["message"]["id"] == result.wa_message_id  # the envelope names the channel id "id"


async def test_a_try_whose_record_fails_still_answers_the_upstreams_id(
    app_client: httpx.AsyncClient, tenant: TenantFixture, deps: ActivityDeps, channel: FakeChannel
):
    """The record raises (no such message): the try answers the id, and the workflow records it."""
    result = await try_started(0.1).run(ChannelActivities(deps).send, accepted_try(tenant, "msg_not_stored"))
    assert result.wa_message_id and result.failure is None
    assert result.report is None
    assert len(channel.sends) == 1


async def test_a_try_near_its_timeout_leaves_the_record_to_the_workflow(
    app_client: httpx.AsyncClient, tenant: TenantFixture, deps: ActivityDeps, channel: FakeChannel
):
    """Less than the margin left of the try's 15 s: no record that could outlast it."""
    message_id = await queued_message(app_client, tenant)
    late = try_started(15.0 - RECORD_IN_TRY_MARGIN_SECONDS / 2)
    result = await late.run(ChannelActivities(deps).send, accepted_try(tenant, message_id))
    assert result.wa_message_id and result.report is None
    assert (await message(app_client, tenant, message_id))["status"] == "queued"
    assert len(channel.sends) == 1


async def test_a_record_cut_short_by_its_budget_leaves_a_consistent_send_for_the_workflow(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    deps: ActivityDeps,
    channel: FakeChannel,
    settings: Settings,
):
    """Half a millisecond of budget: the record is cut wherever it was (before or after its commit), the try
    still answers the id, and the workflow's record_send_outcome then leaves one sent message, one event."""
    message_id = await queued_message(app_client, tenant)
    tight = try_started(15.0 - RECORD_IN_TRY_MARGIN_SECONDS - 0.0005)
    result = await tight.run(ChannelActivities(deps).send, accepted_try(tenant, message_id))
    assert result.wa_message_id and result.report is None
    outcome = SendOutcome(message_id=message_id, tenant_id=tenant.id, wa_message_id=result.wa_message_id)
    report = await ActivityEnvironment().run(SendRecordActivities(deps).record_outcome, outcome)
    assert report.sent is not None and report.sent.wa_message_id == result.wa_message_id
    stored = await message(app_client, tenant, message_id)
    assert (stored["status"], stored["wa_message_id"]) == ("sent", result.wa_message_id)
    assert len(of_kind(await events(settings, tenant.id), MESSAGE_SENT)) == 1
    assert len(channel.sends) == 1


async def test_a_try_without_an_outcome_records_nothing(
    app_client: httpx.AsyncClient, tenant: TenantFixture, deps: ActivityDeps, channel: FakeChannel
):
    """Tries scheduled before the patch carry no outcome_on_success: the send stays for record_send_outcome."""
    message_id = await queued_message(app_client, tenant)
    attempt = accepted_try(tenant, message_id).model_copy(update={"outcome_on_success": None})
    result = await try_started(0.1).run(ChannelActivities(deps).send, attempt)
    assert result.wa_message_id and result.report is None
    assert (await message(app_client, tenant, message_id))["status"] == "queued"


def info(**fields: object) -> activity.Info:
    """An attempt's info with no timeouts but the ones given."""
    untimed = {"start_to_close_timeout": None, "schedule_to_close_timeout": None}
    return dataclasses.replace(ActivityEnvironment().info, **{**untimed, **fields})  # type: ignore[arg-type]


NOON = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("fields", "left"),
    [
        ({"started_time": NOON, "start_to_close_timeout": timedelta(seconds=15)}, 12.0),
        (
            {
                "started_time": NOON,
                "start_to_close_timeout": timedelta(seconds=15),
                "scheduled_time": NOON - timedelta(seconds=50),
                "schedule_to_close_timeout": timedelta(seconds=55),
            },
            2.0,
        ),
        (
            {"started_time": NOON - timedelta(seconds=20), "start_to_close_timeout": timedelta(seconds=15)},
            0.0,
        ),
        ({}, 0.0),
    ],
    ids=["start-to-close", "schedule-to-close-nearer", "past", "no-timeout"],
)
def test_seconds_left_is_the_nearest_timeout(fields: dict, left: float) -> None:
    assert seconds_left(info(**fields), NOON + timedelta(seconds=3)) == left


async def test_on_sqlite_an_accepted_try_makes_no_thread_hop(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    deps: ActivityDeps,
    channel: FakeChannel,
    database_url: str,
    hops: list[str],
):
    """The slot and the record take the write turn, the WABA's read runs on the event loop.

    The first try opens the worker's connections (which costs hops of its own); the second is the steady state.
    """
    if not database_url.startswith("sqlite"):
        pytest.skip("reads on the loop and the write turn are SQLite's")
    first, second = [await queued_message(app_client, tenant) for _ in range(2)]
    await try_started(0.1).run(ChannelActivities(deps).send, accepted_try(tenant, first))
    hops.clear()
    result = await try_started(0.1).run(ChannelActivities(deps).send, accepted_try(tenant, second))
    assert result.report is not None and result.report.sent is not None
    assert (hops, len(channel.sends)) == ([], 2)
