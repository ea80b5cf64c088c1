"""Idempotency-Key on POST /v1/messages: replay, conflicts, release after errors, scoping."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from tests.support.fake_channel import FakeChannel, Scripted, cloud_error
from tests.support.tenants import TenantFixture

TO = "14155550100"


def text(tenant: TenantFixture, body: str = "hello", to: str = TO) -> dict[str, Any]:
    return {"phone_number_id": tenant.phone_number_id, "to": to, "type": "text", "text": {"body": body}}


async def post(
    client: httpx.AsyncClient, tenant: TenantFixture, payload: dict[str, Any], key: str
) -> httpx.Response:
    return await client.post(
        "/v1/messages", json=payload, headers={**tenant.headers(), "Idempotency-Key": key}
    )


async def test_a_2xx_is_replayed_without_a_second_upstream_call(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    first = await post(app_client, tenant, text(tenant), "order-17")
    assert first.status_code == 201, first.text
    assert "X-Idempotent-Replay" not in first.headers
    second = await post(app_client, tenant, text(tenant), "order-17")
    assert second.status_code == 201, second.text
    assert second.headers["X-Idempotent-Replay"] == "true"
    assert second.json() == first.json()
    assert len(channel.sends) == 1
    assert (await app_client.get("/v1/messages", headers=tenant.headers())).json()["total"] == 1


async def test_same_key_with_a_different_body_is_422(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    assert (await post(app_client, tenant, text(tenant, "one"), "k-1")).status_code == 201
    second = await post(app_client, tenant, text(tenant, "two"), "k-1")
    assert second.status_code == 422, second.text
    assert second.json()["statusCode"] == 422
    assert "X-Idempotent-Replay" not in second.headers
    assert len(channel.sends) == 1


async def test_an_upstream_4xx_is_not_stored_so_a_corrected_retry_runs(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    channel.script(TO, Scripted(400, cloud_error(131026, "not on WhatsApp")))
    failed = await post(app_client, tenant, text(tenant), "k-2")
    assert failed.status_code == 400, failed.text
    again = await post(app_client, tenant, text(tenant), "k-2")
    assert again.status_code == 201, again.text
    assert "X-Idempotent-Replay" not in again.headers
    corrected = await post(app_client, tenant, text(tenant, to="14155550199"), "k-3")
    assert corrected.status_code == 201
    assert len(channel.sends) == 3


async def test_a_validation_4xx_is_not_stored(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    bad = await post(app_client, tenant, {**text(tenant), "to": "+14155550100"}, "k-4")
    assert bad.status_code == 400
    good = await post(app_client, tenant, text(tenant), "k-4")
    assert good.status_code == 201, good.text
    assert "X-Idempotent-Replay" not in good.headers
    assert len(channel.sends) == 1


async def test_a_paused_customer_403_is_not_stored(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    path = f"/v1/customers/{tenant.customer_id}"
    assert (
        await app_client.patch(path, json={"sending_paused": True}, headers=tenant.headers())
    ).status_code == 200
    assert (await post(app_client, tenant, text(tenant), "k-5")).status_code == 403
    assert (
        await app_client.patch(path, json={"sending_paused": False}, headers=tenant.headers())
    ).status_code == 200
    resumed = await post(app_client, tenant, text(tenant), "k-5")
    assert resumed.status_code == 201, resumed.text
    assert len(channel.sends) == 1


async def test_a_duplicate_while_the_first_is_in_flight_is_409_at_once(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    gate = channel.hold()
    first = asyncio.create_task(post(app_client, tenant, text(tenant), "k-6"))
    try:
        await asyncio.wait_for(channel.gate_entered.wait(), timeout=10)
        # The first request is held at the gate until ``finally``: a duplicate that waited
        # for it would never return, so the guard below fails instead of hanging.
        duplicate = await asyncio.wait_for(post(app_client, tenant, text(tenant), "k-6"), timeout=10)
    finally:
        gate.set()
    assert duplicate.status_code == 409, duplicate.text
    assert duplicate.json()["code"] == "request_in_progress"
    assert (await first).status_code == 201
    replay = await post(app_client, tenant, text(tenant), "k-6")
    assert replay.headers["X-Idempotent-Replay"] == "true"
    assert replay.json() == (await first).json()
    assert len(channel.sends) == 1


async def test_keys_are_compared_as_is(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    answers = [await post(app_client, tenant, text(tenant), key) for key in ("Order-1", "order-1", "ORDER-1")]
    assert [a.status_code for a in answers] == [201, 201, 201]
    assert len({a.json()["id"] for a in answers}) == 3
    assert not any("X-Idempotent-Replay" in a.headers for a in answers)
    assert len(channel.sends) == 3


async def test_keys_are_scoped_per_tenant(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    other_tenant: TenantFixture,
    worker,
    channel: FakeChannel,
):
    mine = await post(app_client, tenant, text(tenant), "shared-key")
    theirs = await post(app_client, other_tenant, text(other_tenant), "shared-key")
    assert (mine.status_code, theirs.status_code) == (201, 201)
    assert "X-Idempotent-Replay" not in theirs.headers
    assert mine.json()["id"] != theirs.json()["id"]
    assert theirs.json()["phone_number_id"] == other_tenant.phone_number_id
    assert [s["_phone_number_id"] for s in channel.sends] == [
        tenant.phone_number_id,
        other_tenant.phone_number_id,
    ]


async def test_sandbox_and_live_keys_have_separate_key_spaces(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    headers = {**tenant.headers(tenant.test_key), "Idempotency-Key": "k-7"}
    sandbox = await app_client.post("/v1/messages", json=text(tenant), headers=headers)
    assert sandbox.status_code == 201 and sandbox.json()["status"] == "sent_sandbox"
    live = await post(app_client, tenant, text(tenant), "k-7")
    assert live.status_code == 201, live.text
    assert live.json()["status"] == "sent"
    assert len(channel.sends) == 1


@pytest.mark.parametrize("overrides", [{"send_wait_seconds": 0.3}], ids=["wait-0.3s"])
async def test_a_202_keeps_the_key_in_progress_then_replays_the_final_201(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    gate = channel.hold()
    try:
        accepted = await post(app_client, tenant, text(tenant), "k-8")
        assert accepted.status_code == 202, accepted.text
        duplicate = await post(app_client, tenant, text(tenant), "k-8")
        assert duplicate.status_code == 409
        assert duplicate.json()["code"] == "request_in_progress"
    finally:
        gate.set()
    message_id = accepted.json()["id"]
    async with asyncio.timeout(20):
        while True:
            replay = await post(app_client, tenant, text(tenant), "k-8")
            if replay.status_code != 409:
                break
            await asyncio.sleep(0.2)
    assert replay.status_code == 201, replay.text
    assert replay.headers["X-Idempotent-Replay"] == "true"
    assert (replay.json()["id"], replay.json()["status"]) == (message_id, "sent")
    assert len(channel.sends) == 1


async def test_simultaneous_first_uses_of_a_key_run_once(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    gate = channel.hold()
    tasks = [asyncio.create_task(post(app_client, tenant, text(tenant), "k-9")) for _ in range(3)]
    try:
        await asyncio.wait_for(channel.gate_entered.wait(), timeout=10)
        async with asyncio.timeout(5):
            while True:
                if sum(t.done() for t in tasks) == 2:
                    break
                await asyncio.sleep(0.05)
    finally:
        gate.set()
    answers = await asyncio.gather(*tasks)
    assert sorted(a.status_code for a in answers) == [201, 409, 409]
    assert {a.json()["code"] for a in answers if a.status_code == 409} == {"request_in_progress"}
    assert len(channel.sends) == 1


async def test_an_internal_failure_frees_the_key(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel, temporal_env
):
    """A send whose workflow dies (here: terminated by an operator) answers 500 and keeps no key."""
    gate = channel.hold()
    first = asyncio.create_task(post(app_client, tenant, text(tenant), "k-10"))
    try:
        await asyncio.wait_for(channel.gate_entered.wait(), timeout=10)
        [queued] = (await app_client.get("/v1/messages", headers=tenant.headers())).json()["data"]
        await temporal_env.client.get_workflow_handle(f"send-{queued['id']}").terminate("operator stop")
        failed = await asyncio.wait_for(first, timeout=10)
    finally:
        gate.set()
    assert failed.status_code == 500, failed.text
    body = failed.json()
    assert (body["statusCode"], body["details"]["message_id"]) == (500, queued["id"])
    assert "X-Idempotent-Replay" not in failed.headers
    # Its run is over: recorded failed_transient at once, not left queued for the sweep.
    dead = (await app_client.get(f"/v1/messages/{queued['id']}", headers=tenant.headers())).json()
    assert (dead["status"], dead["error_code"]) == ("failed_transient", "SEND_NOT_FINISHED")
    again = await post(app_client, tenant, text(tenant), "k-10")
    assert again.status_code == 201, again.text
    assert "X-Idempotent-Replay" not in again.headers
    assert again.json()["id"] != queued["id"]
    replay = await post(app_client, tenant, text(tenant), "k-10")
    assert (replay.status_code, replay.headers["X-Idempotent-Replay"]) == (201, "true")
    assert replay.json() == again.json()
