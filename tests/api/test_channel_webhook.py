"""POST /channel/webhook and its handshake: signatures, durability, deduplication, speed."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from temporalio.service import RPCError, RPCStatusCode

from switchboard.activities.inbound_housekeeping import RetentionActivities
from switchboard.activities.workflow_starts import inbound_workflow_id
from switchboard.api.app import create_app
from switchboard.domain.inbound import payload_id
from switchboard.domain.signatures import hub_signature
from switchboard.models.base import utcnow
from switchboard.models.events import RawInbound
from switchboard.models.inbound import HousekeepingInput
from switchboard.settings import Settings
from switchboard.store.database import create_engine
from switchboard.worker import build_deps, close_deps
from tests.conftest import APP_SECRET, make_settings
from tests.fixtures.channel import raw
from tests.support.delivery_runs import sweep_outbox_now
from tests.support.http_server import free_port, serve_app
from tests.support.inbound import (
    add_outbound,
    channel_fixture,  # noqa: F401 - the channel fixture
    envelope,
    events,
    messages,
    metadata,
    post_webhook,
    processed,
    provision_fixture_number,
    rows,
    status_payload,
)
from tests.workflows.test_webhook_support import Receiver


async def post_with(settings: Settings, *bodies: bytes) -> list[httpx.Response]:
    """POST each body, signed, to an API built with these settings (another database or Temporal address).

    Each POST is bounded: a hang guard, not a speed check (with Temporal unreachable the API must still answer).
    """
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            return [await asyncio.wait_for(post_webhook(client, body), timeout=60) for body in bodies]


def handed_over(body: bytes) -> dict[str, object]:
    """The answer for a body handed to ProcessInbound rather than applied in the request."""
    return {"received": True, "payload_id": payload_id(body), "duplicate": False, "summary": None}


@pytest.mark.parametrize(
    ("params", "status"),
    [
        ({"hub.mode": "subscribe", "hub.verify_token": "verify-me", "hub.challenge": "1158201444"}, 200),
        ({"hub.mode": "subscribe", "hub.verify_token": "wrong", "hub.challenge": "1"}, 403),
        ({"hub.mode": "unsubscribe", "hub.verify_token": "verify-me", "hub.challenge": "1"}, 403),
        ({"hub.challenge": "1"}, 403),
    ],
)
async def test_verification_handshake(params, status, app_client):
    response = await app_client.get("/channel/webhook", params=params)
    assert response.status_code == status
    if status == 200:
        assert response.text == "1158201444"
        assert response.headers["content-type"].startswith("text/plain")
    else:
        assert response.json()["statusCode"] == 403


async def test_handshake_refused_when_no_verify_token_is_configured(database_url, temporal_env):
    settings = make_settings(database_url, "127.0.0.1:1", channel_verify_token="")
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            response = await client.get(
                "/channel/webhook", params={"hub.mode": "subscribe", "hub.verify_token": ""}
            )
    assert response.status_code == 403


@pytest.mark.parametrize(
    "signature",
    [
        None,
        "",
        "sha256=" + "0" * 64,
        hub_signature(raw("text"), "another-secret"),
        hub_signature(raw("image"), APP_SECRET),
        hub_signature(raw("text"), APP_SECRET).replace("sha256=", "sha1="),
        "sha256=not-hex",
    ],
)
async def test_bad_or_missing_signature_is_401_and_stores_nothing(
    signature, app_client, settings, temporal_env
):
    body = raw("text")
    response = await post_webhook(app_client, body, secret=None, signature=signature)
    assert response.status_code == 401
    assert response.json()["statusCode"] == 401 and response.json()["error"] == "Unauthorized"
    assert response.json()["code"] == "INVALID_SIGNATURE"
    assert await rows(settings, RawInbound) == []
    handle = temporal_env.client.get_workflow_handle(
        inbound_workflow_id(payload_id(body), task_queue=settings.temporal_task_queue)
    )
    with pytest.raises(RPCError):
        await handle.describe()


async def test_signed_body_that_is_not_json_is_400(app_client, settings):
    response = await post_webhook(app_client, b"not json")
    assert response.status_code == 400 and response.json()["code"] == "INVALID_WEBHOOK_PAYLOAD"
    assert await rows(settings, RawInbound) == []


async def test_a_payload_is_applied_before_the_answer_without_a_workflow_of_its_own(
    channel, app_client, tenant, settings
):
    await provision_fixture_number(app_client, tenant)
    body = raw("text")
    response = await post_webhook(app_client, body)
    assert response.status_code == 200
    assert response.json() == {
        "received": True,
        "payload_id": payload_id(body),
        "duplicate": False,
        "summary": {
            "items": 1,
            "applied": 1,
            "unchanged": 0,
            "duplicate": 0,
            "ignored": 0,
            "events": 2,
            "deferred": 0,
        },
    }
    # Applied by the time the channel has its answer.
    assert [m.wa_message_id for m in await messages(settings, tenant.id)] == ["wamid.xyzxyz"]
    (stored,) = await rows(settings, RawInbound)
    assert (stored.id, stored.body) == (payload_id(body), body.decode())
    assert stored.processed_at is not None and stored.processed_at >= stored.received_at
    handle = channel.temporal.get_workflow_handle(
        inbound_workflow_id(payload_id(body), task_queue=settings.temporal_task_queue)
    )
    with pytest.raises(RPCError) as no_run:
        await handle.describe()
    assert no_run.value.status == RPCStatusCode.NOT_FOUND


async def test_duplicate_delivery_changes_nothing(channel, app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    await add_outbound(settings, tenant, "wamid.out01")
    await channel.deliver(raw("batch"))
    before = (
        [m.id for m in await messages(settings, tenant.id)],
        [e.id for e in await events(settings, tenant.id)],
    )

    response = await post_webhook(app_client, raw("batch"))

    assert response.status_code == 200 and response.json()["duplicate"] is True
    after = (
        [m.id for m in await messages(settings, tenant.id)],
        [e.id for e in await events(settings, tenant.id)],
    )
    assert after == before
    assert len(await rows(settings, RawInbound)) == 1


async def test_with_temporal_down_a_payload_is_applied_and_its_delivery_waits_for_the_outbox(
    database_url, app_client, tenant, worker, settings, temporal_env
):
    await provision_fixture_number(app_client, tenant)
    receiver = Receiver()
    down = make_settings(
        database_url, f"127.0.0.1:{free_port()}", temporal_task_queue=settings.temporal_task_queue
    )
    body = raw("text")
    async with serve_app(receiver.app()) as base:
        created = await app_client.post(
            "/v1/webhooks",
            json={"url": f"{base}/hook", "events": ["channel.message.received"]},
            headers=tenant.headers(),
        )
        assert created.status_code == 201, created.text
        (response,) = await post_with(down, body)
        assert response.status_code == 200 and response.json()["summary"]["applied"] == 1
        assert len(await messages(settings, tenant.id)) == 1
        (stored,) = await rows(settings, RawInbound)
        assert stored.processed_at is not None
        received_event = next(
            e for e in await events(settings, tenant.id) if e.kind == "channel.message.received"
        )
        assert received_event.dispatched_at is None
        assert receiver.requests == []

        # Temporal is back: the outbox sweep starts the delivery the request could not.
        swept = await sweep_outbox_now(temporal_env.client, settings)
        assert swept.events >= 1
        (hook,) = await receiver.wait_for(1)
        delivered = json.loads(hook.body)
    assert (delivered["event"], delivered["message"]["id"]) == ("channel.message.received", "wamid.xyzxyz")


async def test_a_payload_the_database_refuses_is_handed_to_process_inbound(
    app_client, tenant, worker, settings, temporal_env, tmp_path
):
    await provision_fixture_number(app_client, tenant)
    address = temporal_env.client.service_client.config.target_host
    broken = make_settings(
        f"sqlite+aiosqlite:///{tmp_path}/missing-dir/none.db",
        address,
        temporal_task_queue=settings.temporal_task_queue,
    )
    body = raw("text")
    (response,) = await post_with(broken, body)
    assert (response.status_code, response.json()) == (200, handed_over(body))

    # The worker, on the real database, applies what the endpoint could not.
    summary = await processed(temporal_env.client, body, task_queue=settings.temporal_task_queue)
    assert (summary.items, summary.applied) == (1, 1)
    assert len(await messages(settings, tenant.id)) == 1
    (stored,) = await rows(settings, RawInbound)
    assert stored.processed_at is not None


async def test_with_temporal_down_deferred_statuses_are_left_for_the_sweeper(
    database_url, app_client, tenant, worker, settings, temporal_env
):
    await provision_fixture_number(app_client, tenant)
    down = make_settings(
        database_url, f"127.0.0.1:{free_port()}", temporal_task_queue=settings.temporal_task_queue
    )
    body = status_payload("wamid.late-and-down", "delivered")
    (response,) = await post_with(down, body)
    assert response.status_code == 200 and response.json()["summary"]["deferred"] == 1
    (stored,) = await rows(settings, RawInbound)
    assert stored.processed_at is None, "kept unstamped: no run holds the deferred status yet"
    message = await add_outbound(settings, tenant, "wamid.late-and-down")

    engine = create_engine(settings.database_url)
    deps = build_deps(temporal_env.client, settings, engine)
    sweeper = RetentionActivities(deps)
    later = HousekeepingInput(now=utcnow().replace(year=utcnow().year + 1))
    try:
        first = await sweeper.sweep_raw_inbound(later)
        summary = await processed(temporal_env.client, body, task_queue=settings.temporal_task_queue)
        second = await sweeper.sweep_raw_inbound(later)
    finally:
        await close_deps(deps)
        await engine.dispose()
    assert (first.started, first.failed) == (1, 0)
    assert summary.applied == 1
    assert [e.kind for e in await events(settings, tenant.id)] == ["channel.message.delivered"]
    assert [m.status for m in await messages(settings, tenant.id) if m.id == message.id] == ["delivered"]
    (stored,) = await rows(settings, RawInbound)
    assert stored.processed_at is not None
    assert (second.started, second.already_done) == (0, 0)


async def test_with_temporal_down_a_payload_stops_trying_starts_after_the_first_failure(
    database_url, app_client, tenant, settings, caplog
):
    await provision_fixture_number(app_client, tenant)
    created = await app_client.post(
        "/v1/webhooks",
        json={"url": "http://127.0.0.1:9/hook", "events": ["channel.message.received"]},
        headers=tenant.headers(),
    )
    assert created.status_code == 201, created.text
    down = make_settings(
        database_url, f"127.0.0.1:{free_port()}", temporal_task_queue=settings.temporal_task_queue
    )
    body = envelope(
        {
            "messaging_product": "whatsapp",
            "metadata": metadata(),
            "contacts": [{"profile": {"name": "Three"}, "wa_id": "16505551234"}],
            "messages": [
                {
                    "from": "16505551234",
                    "id": f"wamid.three{n}",
                    "timestamp": str(int(utcnow().timestamp())),
                    "type": "text",
                    "text": {"body": f"message {n}"},
                }
                for n in range(3)
            ],
        }
    )
    caplog.set_level("INFO")
    (response,) = await post_with(down, body)

    assert response.status_code == 200 and response.json()["summary"]["applied"] == 3
    # Only the first message's delivery start was tried (each try can wait out a 5 s timeout); the
    # other two messages' events wait, undispatched, for the outbox sweeper.
    messages_of = [r.getMessage() for r in caplog.records]
    assert messages_of.count("delivery starts deferred to DispatchEvent") == 1
    assert (
        messages_of.count("Temporal failing: this payload's remaining starts are left to the sweepers") == 1
    )
    received = [e for e in await events(settings, tenant.id) if e.kind == "channel.message.received"]
    assert len(received) == 3 and all(e.dispatched_at is None for e in received)


async def test_with_apply_in_request_off_every_payload_is_handed_to_process_inbound(
    app_client, tenant, worker, settings, temporal_env
):
    await provision_fixture_number(app_client, tenant)
    body = raw("text")
    response, again = await post_with(
        settings.model_copy(update={"inbound_apply_in_request": False}), body, body
    )
    assert (response.status_code, response.json()) == (200, handed_over(body))
    summary = await processed(temporal_env.client, body, task_queue=settings.temporal_task_queue)
    assert (summary.items, summary.applied, summary.events) == (1, 1, 2)
    assert len(await messages(settings, tenant.id)) == 1
    # The second POST joined the same run (or found it completed): never a second application.
    assert again.status_code == 200 and again.json()["summary"] is None
