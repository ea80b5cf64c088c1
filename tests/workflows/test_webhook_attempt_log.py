"""The attempt log end to end: deliveries to a loopback receiver, read back through the public API."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx
import pytest

from switchboard.settings import Settings
from tests.conftest import make_settings
from tests.support.http_server import serve_app
from tests.workflows.test_webhook_support import Receiver


@pytest.fixture
def settings(database_url: str, temporal_env) -> Settings:
    """Two attempts a second apart, no jitter: a failed first attempt is retried at once."""
    address = temporal_env.client.service_client.config.target_host
    return make_settings(
        database_url,
        address,
        webhook_retry_schedule_seconds="0, 1",
        webhook_jitter_ratio=0.0,
        webhook_overload_floor_seconds=1.0,
    )


@pytest.fixture
async def receiver() -> AsyncIterator[tuple[Receiver, str]]:
    hook = Receiver()
    async with serve_app(hook.app()) as base_url:
        yield hook, base_url


async def settled(app_client: httpx.AsyncClient, tenant, delivery_id: str) -> dict:
    """The delivery once its run has settled it (a 404 until its dispatch has created it)."""
    for _ in range(200):
        response = await app_client.get(f"/v1/webhook-deliveries/{delivery_id}", headers=tenant.headers())
        assert response.status_code in (200, 404), response.text
        if response.status_code == 200 and response.json()["status"] != "pending":
            return dict(response.json())
        await asyncio.sleep(0.1)
    raise AssertionError(f"delivery {delivery_id} still pending")


async def test_every_attempt_is_logged_with_its_answer(app_client, tenant, other_tenant, worker, receiver):
    hook, base_url = receiver
    hook.script = [(500, {})]
    created = await app_client.post(
        "/v1/webhooks", json={"url": f"{base_url}/hook"}, headers=tenant.headers()
    )
    webhook = created.json()
    dispatched = (
        await app_client.post(f"/v1/webhooks/{webhook['id']}/test", headers=tenant.headers())
    ).json()

    delivery = await settled(app_client, tenant, dispatched["delivery_id"])
    assert (delivery["status"], delivery["attempt_count"], delivery["event"]) == (
        "succeeded",
        2,
        "webhook.test",
    )
    assert (delivery["webhook_id"], delivery["event_id"]) == (webhook["id"], dispatched["event_id"])
    first, second = delivery["attempts"]
    assert (first["attempt"], first["success"], first["status_code"]) == (1, False, 500)
    assert first["response_body"] == "receiver says no" and first["error"].startswith("HTTP 500")
    assert (second["attempt"], second["success"], second["status_code"], second["response_body"]) == (
        2,
        True,
        200,
        "ok",
    )
    assert second["error"] is None and second["latency_ms"] >= 0 and second["attempted_at"].endswith("Z")
    assert delivery["last_attempt"] == second
    assert [json.loads(r.body)["delivery_id"] for r in hook.at("/hook")] == [delivery["id"]] * 2

    listed = await app_client.get(f"/v1/webhooks/{webhook['id']}/deliveries", headers=tenant.headers())
    assert listed.status_code == 200, listed.text
    [row] = listed.json()["data"]
    assert row["id"] == delivery["id"] and row["last_attempt"]["attempt"] == 2 and "attempts" not in row
    assert listed.json()["total"] == 1

    for query, count in (
        ({"status": "succeeded"}, 1),
        ({"status": "failed"}, 0),
        ({"event": "webhook.test"}, 1),
        ({"event": "channel.message.received"}, 0),
        ({"since": "2000-01-01"}, 1),
        ({"since": "2999-01-01T00:00:00Z"}, 0),
    ):
        page = await app_client.get(
            f"/v1/webhooks/{webhook['id']}/deliveries", params=query, headers=tenant.headers()
        )
        assert (page.status_code, page.json()["total"]) == (200, count), (query, page.text)

    # Isolation: another tenant sees neither the webhook's log nor the delivery.
    other = other_tenant.headers()
    assert (
        await app_client.get(f"/v1/webhooks/{webhook['id']}/deliveries", headers=other)
    ).status_code == 404
    assert (
        await app_client.get(f"/v1/webhook-deliveries/{delivery['id']}", headers=other)
    ).status_code == 404


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"status": "bogus"}, "status"),
        ({"event": "channel.nope"}, "event"),
        ({"since": "yesterday"}, "since"),
    ],
)
async def test_unknown_filter_values_are_refused(app_client, tenant, query, field):
    created = await app_client.post(
        "/v1/webhooks", json={"url": "http://127.0.0.1:9/hook"}, headers=tenant.headers()
    )
    response = await app_client.get(
        f"/v1/webhooks/{created.json()['id']}/deliveries", params=query, headers=tenant.headers()
    )
    assert response.status_code == 400, response.text
    body = response.json()
    assert (body["statusCode"], body["code"], body["details"]["field"]) == (400, "VALIDATION_FAILED", field)
