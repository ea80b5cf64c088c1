"""Upstream answers: permanent 4xx mapped and stored, 429/5xx retried, 131030 alternate form, slow 202.

Nothing here sleeps to let time pass: "never retried" is read from the finished
send workflow's history, retries run on Temporal's time-skipping server (their
backoff timers are skipped while the API waits for the result), and a slow
upstream is a request held at the fake's door until the API has answered.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import httpx
import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from switchboard.activities.workflow_starts import send_workflow_id
from tests.support.fake_channel import FakeChannel, Scripted, cloud_error
from tests.support.tenants import TenantFixture

TO = "14155550100"
# A hang guard, not a timing assertion: how long a test waits for something that must happen.
HANG_GUARD_SECONDS = 20.0


def ok(wamid: str) -> dict[str, Any]:
    return {
        "messaging_product": "whatsapp",
        "contacts": [{"input": TO, "wa_id": TO}],
        "messages": [{"id": wamid}],
    }


async def send_text(
    client: httpx.AsyncClient, tenant: TenantFixture, to: str = TO, **headers: str
) -> httpx.Response:
    payload = {"phone_number_id": tenant.phone_number_id, "to": to, "type": "text", "text": {"body": "hello"}}
    return await client.post("/v1/messages", json=payload, headers={**tenant.headers(), **headers})


async def wait_for_status(
    client: httpx.AsyncClient, tenant: TenantFixture, message_id: str, status: str
) -> dict[str, Any]:
    """Poll the message until it has ``status`` (the hang guard fails the test if it never does)."""

    async def poll() -> dict[str, Any]:
        while True:
            message = (await client.get(f"/v1/messages/{message_id}", headers=tenant.headers())).json()
            if message["status"] == status:
                return dict(message)
            await asyncio.sleep(0.1)

    return await asyncio.wait_for(poll(), timeout=HANG_GUARD_SECONDS)


async def retried_attempts(temporal: Client, message_id: str) -> list[int]:
    """The last attempt of each regular (retrying) upstream call in the send workflow, which must have ended.

    The first try is a local activity (a marker, not an activity task), so ``[]`` means it was the only
    one; a retried activity records only its last attempt; a finished workflow runs no more attempts.
    """
    history = await temporal.get_workflow_handle(send_workflow_id(message_id)).fetch_history()
    assert history.events[-1].event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED
    sends = {
        event.event_id
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        and event.activity_task_scheduled_event_attributes.activity_type.name == "channel_send"
    }
    return [
        event.activity_task_started_event_attributes.attempt
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
        and event.activity_task_started_event_attributes.scheduled_event_id in sends
    ]


# (upstream HTTP status, upstream code, spec answer status, spec code)
PERMANENT = [
    (400, 131047, 400, "OUTSIDE_CONVERSATION_WINDOW"),
    (400, 131026, 400, "RECIPIENT_NOT_ON_WHATSAPP"),
    (400, 131050, 400, "RECIPIENT_OPTED_OUT"),
    (400, 131049, 400, "QUALITY_FLAG_RED"),
    (400, 132000, 400, "TEMPLATE_VARIABLE_COUNT_MISMATCH"),
    (400, 132015, 400, "TEMPLATE_NOT_APPROVED"),
    (400, 132001, 400, "132001"),
    (400, 131051, 400, "131051"),
    (401, 190, 403, "190"),
    (403, 131031, 403, "WABA_SUSPENDED"),
]


@pytest.mark.parametrize(
    ("upstream_status", "upstream_code", "status", "code"), PERMANENT, ids=[str(p[1]) for p in PERMANENT]
)
async def test_permanent_upstream_error_is_answered_stored_and_not_retried(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    worker,
    channel: FakeChannel,
    temporal_env: WorkflowEnvironment,
    upstream_status: int,
    upstream_code: int,
    status: int,
    code: str,
):
    channel.script(
        TO, Scripted(upstream_status, cloud_error(upstream_code, "refused", details="why it failed"))
    )
    response = await send_text(app_client, tenant)
    assert response.status_code == status, response.text
    error = response.json()
    assert (error["statusCode"], error["code"]) == (status, code)
    assert error["error_message"] and "why it failed" in error["error_message"]
    assert error["message"]
    assert len(channel.sends) == 1
    stored = (await app_client.get(f"/v1/messages/{error['message_id']}", headers=tenant.headers())).json()
    assert stored["status"] == "failed"
    assert stored["error_code"] == code
    assert stored["error_title"] and stored["error_message"] == error["error_message"]
    assert stored["wa_message_id"] is None
    assert await retried_attempts(temporal_env.client, error["message_id"]) == [], "never retried"
    assert len(channel.sends) == 1


@pytest.mark.parametrize(
    "failures",
    [
        [
            Scripted(503, {"error": {"message": "Service Unavailable", "code": 2}}),
            Scripted(500, cloud_error(131000, "Something went wrong")),
        ],
        [Scripted(429, cloud_error(130429, "Throughput reached"))],
        [
            Scripted(502, {"error": {"message": "Bad Gateway"}}),
            Scripted(504, {"error": {"message": "timeout"}}),
        ],
    ],
    ids=["503-then-500", "429-throughput", "502-then-504"],
)
async def test_retryable_upstream_errors_are_retried_until_sent(
    skipping_client: httpx.AsyncClient,
    tenant: TenantFixture,
    channel: FakeChannel,
    time_skipping_env: WorkflowEnvironment,
    failures: list[Scripted],
):
    channel.script(TO, *failures)
    response = await send_text(skipping_client, tenant)
    assert response.status_code == 201, response.text
    assert response.json()["status"] == "sent"
    assert len(channel.sends) == len(failures) + 1
    assert all(s == channel.sends[0] for s in channel.sends)
    # The first failure was the local first try; the regular activity made the rest and the success.
    assert await retried_attempts(time_skipping_env.client, response.json()["id"]) == [len(failures)]
    stored = (
        await skipping_client.get(f"/v1/messages/{response.json()['id']}", headers=tenant.headers())
    ).json()
    assert (stored["status"], stored["error_code"]) == ("sent", None)


async def test_each_retried_upstream_failure_is_one_line_with_its_code_and_attempt_and_no_traceback(
    skipping_client: httpx.AsyncClient,
    tenant: TenantFixture,
    channel: FakeChannel,
    time_skipping_env: WorkflowEnvironment,
    caplog: pytest.LogCaptureFixture,
):
    caplog.set_level(logging.DEBUG)
    channel.script(
        TO,
        Scripted(503, {"error": {"message": "Service Unavailable", "code": 2}}),
        Scripted(500, cloud_error(131000, "Something went wrong")),
    )
    response = await send_text(skipping_client, tenant)
    assert response.status_code == 201, response.text
    retries = [r for r in caplog.records if r.getMessage() == "upstream call failed; retrying"]
    assert [(r.levelno, vars(r)["upstream_status"], vars(r)["attempt"]) for r in retries] == [
        (logging.WARNING, 503, 1),
        (logging.WARNING, 500, 2),
    ]
    assert vars(retries[1])["upstream_code"] == 131000
    assert all(vars(r)["code"] and vars(r)["retry_in_seconds"] > 0 for r in retries)
    # An expected failure is no bug: nothing at WARNING or above carries a traceback for it.
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING and r.exc_info] == []


async def test_upstream_success_without_a_message_id_is_502_and_not_retried(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    channel.script(TO, Scripted(200, {"messaging_product": "whatsapp", "messages": []}))
    response = await send_text(app_client, tenant)
    assert response.status_code == 502, response.text
    assert response.json()["statusCode"] == 502
    assert len(channel.sends) == 1


ALTERNATES = [
    ("5491123456789", "541123456789", "5491123456789"),
    ("5215512345678", "525512345678", "5215512345678"),
]


@pytest.mark.parametrize(("to", "canonical", "alternate"), ALTERNATES, ids=["argentina", "mexico"])
async def test_131030_is_retried_once_with_the_alternate_form(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    worker,
    channel: FakeChannel,
    to: str,
    canonical: str,
    alternate: str,
):
    channel.script(
        canonical, Scripted(400, cloud_error(131030, "Recipient phone number not in allowed list"))
    )
    response = await send_text(app_client, tenant, to)
    assert response.status_code == 201, response.text
    assert [s["to"] for s in channel.sends] == ["+" + canonical, "+" + alternate]
    assert channel.sends[0]["text"] == channel.sends[1]["text"] == {"body": "hello"}
    assert response.json()["status"] == "sent"
    stored = (await app_client.get(f"/v1/messages/{response.json()['id']}", headers=tenant.headers())).json()
    assert stored["status"] == "sent"
    assert response.json()["to_phone"] == stored["to_phone"] == canonical


async def test_131030_on_both_forms_fails_after_two_attempts(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    refused = Scripted(400, cloud_error(131030, "Recipient phone number not in allowed list"))
    channel.script("541123456789", refused)
    channel.script("5491123456789", refused)
    response = await send_text(app_client, tenant, "541123456789")
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "131030"
    assert [s["to"] for s in channel.sends] == ["+541123456789", "+5491123456789"]
    stored = (
        await app_client.get(f"/v1/messages/{response.json()['message_id']}", headers=tenant.headers())
    ).json()
    assert (stored["status"], stored["error_code"]) == ("failed", "131030")


async def test_131030_without_an_alternate_form_is_not_retried(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    channel.script(TO, Scripted(400, cloud_error(131030, "Recipient phone number not in allowed list")))
    response = await send_text(app_client, tenant)
    assert response.status_code == 400, response.text
    assert len(channel.sends) == 1


@pytest.mark.parametrize("overrides", [{"send_wait_seconds": 0.5}], ids=["wait-0.5s"])
async def test_slow_upstream_answers_202_queued_then_the_message_is_sent(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    channel.script(TO, Scripted(200, ok("wamid.SLOW1")))
    # The upstream holds the send until the API has answered: slower than SEND_WAIT_SECONDS, always.
    release = channel.hold()
    response = await send_text(app_client, tenant)
    assert response.status_code == 202, response.text
    await asyncio.wait_for(channel.gate_entered.wait(), timeout=HANG_GUARD_SECONDS)
    release.set()
    queued = response.json()
    assert queued["status"] == "queued"
    assert queued["wa_message_id"] is None
    assert response.headers["Location"] == f"/v1/messages/{queued['id']}"
    sent = await wait_for_status(app_client, tenant, queued["id"], "sent")
    assert sent["wa_message_id"] == "wamid.SLOW1"
    assert len(channel.sends) == 1


@pytest.mark.parametrize("overrides", [{"send_wait_seconds": 0.5}], ids=["wait-0.5s"])
async def test_slow_upstream_failure_after_202_is_stored_as_failed(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    channel.script(TO, Scripted(400, cloud_error(131047, "Re-engagement message")))
    release = channel.hold()
    response = await send_text(app_client, tenant)
    assert response.status_code == 202, response.text
    await asyncio.wait_for(channel.gate_entered.wait(), timeout=HANG_GUARD_SECONDS)
    release.set()
    failed = await wait_for_status(app_client, tenant, response.json()["id"], "failed")
    assert failed["error_code"] == "OUTSIDE_CONVERSATION_WINDOW"
