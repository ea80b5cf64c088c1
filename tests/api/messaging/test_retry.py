"""POST /v1/messages/{id}/retry: only failed messages, a new row, a 5-minute guard, deduplicated."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import update

from switchboard.models.messaging import Message
from tests.support.fake_channel import FakeChannel, Scripted, cloud_error
from tests.support.inbound import db, events
from tests.support.tenants import TenantFixture

TO = "14155550100"
PAYLOAD = {"to": TO, "type": "text", "text": {"body": "your order shipped"}}


async def failed_message(
    client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel
) -> dict[str, Any]:
    """Send a message the upstream refuses for good, and return the stored row.

    A test with a short send wait may get its 202 before the refusal is recorded when the machine is
    busy; the row then turns failed moments later, which is what the test needs, so it waits for that.
    """
    channel.script(TO, Scripted(400, cloud_error(131026, "not on WhatsApp")))
    response = await client.post(
        "/v1/messages", json={"phone_number_id": tenant.phone_number_id, **PAYLOAD}, headers=tenant.headers()
    )
    assert response.status_code in (400, 202), response.text
    message_id = response.json()["message_id" if response.status_code == 400 else "id"]
    async with asyncio.timeout(20):
        while True:
            stored = await client.get(f"/v1/messages/{message_id}", headers=tenant.headers())
            if stored.json()["status"] != "queued":
                break
            await asyncio.sleep(0.05)
    assert stored.json()["status"] == "failed"
    return dict(stored.json())


async def retry(
    client: httpx.AsyncClient, tenant: TenantFixture, message_id: str, key: str | None = None
) -> httpx.Response:
    return await client.post(f"/v1/messages/{message_id}/retry", headers=tenant.headers(key))


async def rewind_guard(settings, message_id: str, *, by: timedelta) -> None:
    """Pretend the last retry request of ``message_id`` was made ``by`` earlier than it was."""
    async with db(settings) as session:
        row = await session.get(Message, message_id)
        assert row is not None and row.last_retry_requested_at is not None
        await session.execute(
            update(Message)
            .where(Message.id == message_id)
            .values(last_retry_requested_at=row.last_retry_requested_at - by)
        )


async def test_retry_creates_a_new_message_and_keeps_the_original(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    original = await failed_message(app_client, tenant, channel)
    response = await retry(app_client, tenant, original["id"])
    assert response.status_code == 201, response.text
    new = response.json()
    assert new["id"] != original["id"]
    assert new["retry_of_message_id"] == original["id"]
    assert (new["status"], new["to_phone"], new["message_type"]) == ("sent", TO, "text")
    assert new["wa_message_id"].startswith("wamid.")
    assert len(channel.sends) == 2 and channel.sends[1] == channel.sends[0]
    unchanged = (await app_client.get(f"/v1/messages/{original['id']}", headers=tenant.headers())).json()
    assert unchanged == original
    stored = (await app_client.get(f"/v1/messages/{new['id']}", headers=tenant.headers())).json()
    assert stored["retry_of_message_id"] == original["id"]
    assert (await app_client.get("/v1/messages", headers=tenant.headers())).json()["total"] == 2


async def test_a_retry_that_fails_again_is_a_new_failed_row(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    original = await failed_message(app_client, tenant, channel)
    channel.script(TO, Scripted(400, cloud_error(131047, "Re-engagement message")))
    response = await retry(app_client, tenant, original["id"])
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "OUTSIDE_CONVERSATION_WINDOW"
    new = (
        await app_client.get(f"/v1/messages/{response.json()['message_id']}", headers=tenant.headers())
    ).json()
    assert (new["status"], new["retry_of_message_id"]) == ("failed", original["id"])


async def test_only_failed_messages_can_be_retried(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    sent = await app_client.post(
        "/v1/messages", json={"phone_number_id": tenant.phone_number_id, **PAYLOAD}, headers=tenant.headers()
    )
    assert sent.status_code == 201
    response = await retry(app_client, tenant, sent.json()["id"])
    assert response.status_code == 400, response.text
    assert response.json()["statusCode"] == 400
    assert len(channel.sends) == 1
    assert (await app_client.get("/v1/messages", headers=tenant.headers())).json()["total"] == 1


async def test_a_repeat_within_five_minutes_is_429(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    original = await failed_message(app_client, tenant, channel)
    assert (await retry(app_client, tenant, original["id"])).status_code == 201
    again = await retry(app_client, tenant, original["id"])
    assert again.status_code == 429, again.text
    body = again.json()
    assert body["code"] == "too_many_requests"
    assert 0 < body["retry_after_seconds"] <= 300
    assert again.headers["Retry-After"] == str(body["retry_after_seconds"])
    assert len(channel.sends) == 2


async def test_concurrent_retries_of_one_original_create_one_message(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    original = await failed_message(app_client, tenant, channel)
    answers = await asyncio.gather(*(retry(app_client, tenant, original["id"]) for _ in range(3)))
    # One creates the retry; each other is refused by the guard (429) or, when it read the guard before
    # the first armed it, answered with that same retry (200): never a second message.
    (created,) = [a for a in answers if a.status_code == 201]
    others = [a for a in answers if a is not created]
    assert all(
        a.status_code == 429 or (a.status_code == 200 and a.json()["id"] == created.json()["id"])
        for a in others
    ), [a.status_code for a in answers]
    listed = (await app_client.get("/v1/messages", headers=tenant.headers())).json()["data"]
    retries = [m for m in listed if m["retry_of_message_id"] == original["id"]]
    assert len(retries) == 1
    assert len(channel.sends) == 2


async def test_another_tenants_message_is_404(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    other_tenant: TenantFixture,
    worker,
    channel: FakeChannel,
):
    original = await failed_message(app_client, tenant, channel)
    response = await retry(app_client, other_tenant, original["id"])
    assert response.status_code == 404, response.text
    assert len(channel.sends) == 1
    assert (await retry(app_client, tenant, original["id"])).status_code == 201, (
        "a 404 does not arm the guard"
    )


async def test_retry_of_a_paused_customers_message_is_403(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    original = await failed_message(app_client, tenant, channel)
    paused = await app_client.patch(
        f"/v1/customers/{tenant.customer_id}", json={"sending_paused": True}, headers=tenant.headers()
    )
    assert paused.status_code == 200
    response = await retry(app_client, tenant, original["id"])
    assert response.status_code == 403, response.text
    assert response.json()["code"] == "customer_sending_disabled"
    assert len(channel.sends) == 1


async def test_the_guards_retry_after_is_the_time_actually_left(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel, settings
):
    original = await failed_message(app_client, tenant, channel)
    channel.script(TO, Scripted(400, cloud_error(131026, "not on WhatsApp")))
    assert (await retry(app_client, tenant, original["id"])).status_code == 400  # the retry failed too
    await rewind_guard(settings, original["id"], by=timedelta(seconds=200))
    again = await retry(app_client, tenant, original["id"])
    assert again.status_code == 429, again.text
    assert 95 <= again.json()["retry_after_seconds"] <= 100
    assert again.headers["Retry-After"] == str(again.json()["retry_after_seconds"])


async def test_after_the_guard_a_repeat_answers_the_retry_that_went_through(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel, settings
):
    original = await failed_message(app_client, tenant, channel)
    first = await retry(app_client, tenant, original["id"])
    assert first.status_code == 201, first.text
    await rewind_guard(settings, original["id"], by=timedelta(minutes=6))
    again = await retry(app_client, tenant, original["id"])
    assert again.status_code == 200, again.text
    assert (
        again.json()
        == (await app_client.get(f"/v1/messages/{first.json()['id']}", headers=tenant.headers())).json()
    )
    assert again.headers["Location"] == f"/v1/messages/{first.json()['id']}"
    assert len(channel.sends) == 2, "nothing is sent again"
    listed = (await app_client.get("/v1/messages", headers=tenant.headers())).json()
    assert listed["total"] == 2


@pytest.mark.parametrize("overrides", [{"send_wait_seconds": 0.3}], ids=["wait-0.3s"])
async def test_after_the_guard_a_repeat_answers_the_running_retry_as_it_is_now(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel, settings
):
    original = await failed_message(app_client, tenant, channel)
    gate = channel.hold()
    try:
        running = await retry(app_client, tenant, original["id"])
        assert running.status_code == 202, running.text
        await rewind_guard(settings, original["id"], by=timedelta(minutes=6))
        again = await retry(app_client, tenant, original["id"])
        assert again.status_code == 200, again.text
        assert (again.json()["id"], again.json()["status"]) == (running.json()["id"], "queued")
    finally:
        gate.set()
    async with asyncio.timeout(20):
        while True:
            current = await app_client.get(f"/v1/messages/{running.json()['id']}", headers=tenant.headers())
            if current.json()["status"] == "sent":
                break
            await asyncio.sleep(0.1)
    await rewind_guard(settings, original["id"], by=timedelta(minutes=6))
    settled = await retry(app_client, tenant, original["id"])
    assert (settled.status_code, settled.json()["id"], settled.json()["status"]) == (
        200,
        running.json()["id"],
        "sent",
    )
    assert len(channel.sends_to(TO)) == 2


async def test_after_the_guard_a_failed_retry_lets_a_new_one_go(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel, settings
):
    original = await failed_message(app_client, tenant, channel)
    channel.script(TO, Scripted(400, cloud_error(131026, "not on WhatsApp")))
    failed_retry = await retry(app_client, tenant, original["id"])
    assert failed_retry.status_code == 400
    await rewind_guard(settings, original["id"], by=timedelta(minutes=6))
    second = await retry(app_client, tenant, original["id"])
    assert second.status_code == 201, second.text
    assert second.json()["id"] != failed_retry.json()["message_id"]
    assert second.json()["retry_of_message_id"] == original["id"]


async def test_a_sandbox_retry_does_not_use_up_the_live_guard(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    original = await failed_message(app_client, tenant, channel)
    rehearsal = await retry(app_client, tenant, original["id"], key=tenant.test_key)
    assert rehearsal.status_code == 201, rehearsal.text
    body = rehearsal.json()
    assert (body["status"], body["_sandbox"], body["retry_of_message_id"]) == (
        "sent_sandbox",
        True,
        original["id"],
    )
    assert body["id"].startswith("sandbox-")
    assert (await retry(app_client, tenant, original["id"], key=tenant.test_key)).status_code == 201
    assert len(channel.sends) == 1, "a sandbox retry sends nothing"
    assert (await app_client.get("/v1/messages", headers=tenant.headers())).json()["total"] == 1
    live = await retry(app_client, tenant, original["id"])
    assert live.status_code == 201, live.text
    assert live.json()["retry_of_message_id"] == original["id"]
    # Within the live guard, the sandbox hears what live would: 429.
    assert (await retry(app_client, tenant, original["id"], key=tenant.test_key)).status_code == 429


async def test_a_retry_whose_run_dies_is_settled_at_once_so_the_next_retry_is_sent(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel, settings, temporal_env
):
    """A retry whose run is terminated while the API waits: 500, and the retry is failed_transient at once.

    Before, the dead retry stayed queued until the queued-send sweep settled it (the retry window plus
    two hours later), so the next retry of the original answered 200 with it and sent nothing, although
    the 500 had told the client to retry.
    """
    original = await failed_message(app_client, tenant, channel)
    gate = channel.hold()
    try:
        request = asyncio.create_task(retry(app_client, tenant, original["id"]))
        await asyncio.wait_for(channel.gate_entered.wait(), timeout=10)
        listed = (await app_client.get("/v1/messages", headers=tenant.headers())).json()["data"]
        [dying] = [m for m in listed if m["status"] == "queued"]
        await temporal_env.client.get_workflow_handle(f"send-{dying['id']}").terminate("operator stop")
        died = await asyncio.wait_for(request, timeout=10)
    finally:
        gate.set()
    assert died.status_code == 500, died.text
    assert died.json()["details"]["message_id"] == dying["id"]
    dead = (await app_client.get(f"/v1/messages/{dying['id']}", headers=tenant.headers())).json()
    assert (dead["status"], dead["error_code"], dead["retry_of_message_id"]) == (
        "failed_transient",
        "SEND_NOT_FINISHED",
        original["id"],
    )
    failed = [
        e.payload["message"]["service"]
        for e in await events(settings, tenant.id)
        if e.kind == "channel.message.failed" and e.payload["message"]["service"]["message_id"] == dying["id"]
    ]
    assert [f["error_code"] for f in failed] == ["SEND_NOT_FINISHED"]
    # A retry that failed inside the service does not use up the guard: the next one is sent at once.
    again = await retry(app_client, tenant, original["id"])
    assert again.status_code == 201, again.text
    assert again.json()["id"] not in (dying["id"], original["id"])
    assert again.json()["retry_of_message_id"] == original["id"]
