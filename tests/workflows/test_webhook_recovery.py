"""Recover and resend end to end: a receiver that was down gets its failed deliveries back, once each."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from switchboard.settings import Settings
from tests.conftest import make_settings
from tests.e2e.agents.support import eventually
from tests.support.http_server import serve_app
from tests.workflows.test_webhook_support import Receiver


@pytest.fixture
def settings(database_url: str, temporal_env) -> Settings:
    """One attempt per delivery: a receiver that is down fails each delivery at once."""
    address = temporal_env.client.service_client.config.target_host
    return make_settings(database_url, address, webhook_retry_schedule_seconds="0", webhook_jitter_ratio=0.0)


@pytest.fixture
async def receiver() -> AsyncIterator[tuple[Receiver, str]]:
    hook = Receiver()
    async with serve_app(hook.app()) as base_url:
        yield hook, base_url


async def deliveries(app_client: httpx.AsyncClient, tenant, webhook_id: str, **query: str) -> list[dict]:
    response = await app_client.get(
        f"/v1/webhooks/{webhook_id}/deliveries",
        params={"per_page": 100, **query},
        headers=tenant.headers(),
    )
    assert response.status_code == 200, response.text
    return list(response.json()["data"])


async def failed_deliveries(app_client, tenant, webhook_id: str, count: int) -> list[dict]:
    async def check() -> list[dict] | None:
        rows = await deliveries(app_client, tenant, webhook_id, status="failed")
        return rows if len(rows) == count else None

    return await eventually(check, timeout=30)


async def recovery(app_client, tenant, recovery_id: str) -> dict:
    response = await app_client.get(f"/v1/webhook-recoveries/{recovery_id}", headers=tenant.headers())
    assert response.status_code == 200, response.text
    return dict(response.json())


async def completed(app_client, tenant, recovery_id: str) -> dict:
    async def check() -> dict | None:
        state = await recovery(app_client, tenant, recovery_id)
        return state if state["status"] == "completed" else None

    return await eventually(check, timeout=30)


async def test_a_receiver_back_from_an_outage_gets_every_failed_delivery_once(
    app_client, tenant, other_tenant, worker, receiver
):
    hook, base_url = receiver
    hook.default = (503, {})
    webhook = (
        await app_client.post("/v1/webhooks", json={"url": f"{base_url}/hook"}, headers=tenant.headers())
    ).json()
    before = datetime.now(UTC) - timedelta(seconds=1)
    for _ in range(12):
        response = await app_client.post(f"/v1/webhooks/{webhook['id']}/test", headers=tenant.headers())
        assert response.status_code == 202, response.text
    failed = await failed_deliveries(app_client, tenant, webhook["id"], 12)
    failed_ids = {row["id"] for row in failed}
    assert len(hook.at("/hook")) == 12

    # The endpoint is back: one call resends the window, each failed delivery once, under its own id.
    hook.default = (200, {})
    started = await app_client.post(
        f"/v1/webhooks/{webhook['id']}/recover",
        json={"since": before.isoformat()},
        headers=tenant.headers(),
    )
    assert started.status_code == 202, started.text
    assert (started.json()["status"], started.json()["total"], started.json()["pending"]) == (
        "running",
        12,
        12,
    )
    done = await completed(app_client, tenant, started.json()["id"])
    assert (done["total"], done["done"], done["succeeded"], done["failed"], done["pending"]) == (
        12,
        12,
        12,
        0,
        0,
    )
    resent = [json.loads(r.body)["delivery_id"] for r in hook.at("/hook")[12:]]
    assert Counter(resent) == Counter(failed_ids)  # each exactly once, with its original delivery_id
    rows = await deliveries(app_client, tenant, webhook["id"])
    assert {row["status"] for row in rows} == {"succeeded"} and {row["attempt_count"] for row in rows} == {2}

    # A second recovery of the same window finds nothing failed.
    again = await app_client.post(
        f"/v1/webhooks/{webhook['id']}/recover", json={"since": before.isoformat()}, headers=tenant.headers()
    )
    assert (await completed(app_client, tenant, again.json()["id"]))["total"] == 0
    assert len(hook.at("/hook")) == 24

    # Another tenant sees neither the recovery nor can start one on this webhook.
    assert (
        await app_client.get(f"/v1/webhook-recoveries/{started.json()['id']}", headers=other_tenant.headers())
    ).status_code == 404
    assert (
        await app_client.post(
            f"/v1/webhooks/{webhook['id']}/recover",
            json={"since": before.isoformat()},
            headers=other_tenant.headers(),
        )
    ).status_code == 404


async def test_a_delivery_still_being_attempted_is_not_resent(app_client, tenant, worker, receiver):
    hook, base_url = receiver
    hook.gate = asyncio.Event()  # the first POST waits: its delivery stays pending
    webhook = (
        await app_client.post("/v1/webhooks", json={"url": f"{base_url}/hook"}, headers=tenant.headers())
    ).json()
    await app_client.post(f"/v1/webhooks/{webhook['id']}/test", headers=tenant.headers())
    try:
        await hook.wait_for(1)

        async def pending() -> list[dict] | None:
            rows = await deliveries(app_client, tenant, webhook["id"], status="pending")
            return rows or None

        [delivery] = await eventually(pending)
        refused = await app_client.post(
            f"/v1/webhook-deliveries/{delivery['id']}/resend", headers=tenant.headers()
        )
        assert refused.status_code == 409, refused.text
        body = refused.json()
        assert (body["statusCode"], body["code"], body["details"]["status"]) == (
            409,
            "DELIVERY_PENDING",
            "pending",
        )
    finally:
        hook.gate.set()
    assert len(hook.at("/hook")) == 1


async def test_resend_sends_one_settled_delivery_again(app_client, tenant, worker, receiver):
    hook, base_url = receiver
    webhook = (
        await app_client.post("/v1/webhooks", json={"url": f"{base_url}/hook"}, headers=tenant.headers())
    ).json()
    await app_client.post(f"/v1/webhooks/{webhook['id']}/test", headers=tenant.headers())

    async def succeeded() -> list[dict] | None:
        rows = await deliveries(app_client, tenant, webhook["id"], status="succeeded")
        return rows or None

    [delivery] = await eventually(succeeded)
    # A receiver that lost a delivery it acknowledged asks for it again.
    response = await app_client.post(
        f"/v1/webhook-deliveries/{delivery['id']}/resend", headers=tenant.headers()
    )
    assert response.status_code == 202, response.text
    assert response.json()["delivery_ids"] == [delivery["id"]] and response.json()["total"] == 1
    done = await completed(app_client, tenant, response.json()["id"])
    assert (done["succeeded"], done["failed"]) == (1, 0)
    assert [json.loads(r.body)["delivery_id"] for r in hook.at("/hook")] == [delivery["id"]] * 2
    logged = (
        await app_client.get(f"/v1/webhook-deliveries/{delivery['id']}", headers=tenant.headers())
    ).json()
    assert [(a["attempt"], a["success"]) for a in logged["attempts"]] == [(1, True), (2, True)]


async def test_recover_refuses_what_it_cannot_do(app_client, tenant, other_tenant, receiver):
    _, base_url = receiver
    webhook = (
        await app_client.post("/v1/webhooks", json={"url": f"{base_url}/hook"}, headers=tenant.headers())
    ).json()
    url = f"/v1/webhooks/{webhook['id']}/recover"
    for body, field in (
        ({}, "since"),
        ({"since": "last week"}, "since"),
        ({"since": "2026-12-01", "until": "2026-11-01"}, "since"),
        ({"since": "2026-12-01", "unknown": 1}, "unknown"),
    ):
        response = await app_client.post(url, json=body, headers=tenant.headers())
        assert response.status_code == 400, (body, response.text)
        assert field in response.text and response.json()["statusCode"] == 400
    await app_client.patch(f"/v1/webhooks/{webhook['id']}", json={"enabled": False}, headers=tenant.headers())
    disabled = await app_client.post(url, json={"since": "2026-12-01"}, headers=tenant.headers())
    assert (disabled.status_code, disabled.json()["code"]) == (409, "WEBHOOK_DISABLED")
    missing = await app_client.post("/v1/webhook-deliveries/dlv_nope/resend", headers=tenant.headers())
    assert missing.status_code == 404
    unknown = await app_client.get("/v1/webhook-recoveries/rcv_nope", headers=tenant.headers())
    assert unknown.status_code == 404
