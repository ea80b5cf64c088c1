"""Every event kind of the spec reaches the tenant's webhook, signed, and no other tenant's.

Issue 4's done-criterion, end to end: the events are caused only through public HTTP endpoints
(POST /v1/messages against a fake upstream, signed POST /channel/webhook with fixture payloads,
POST /v1/webhooks/{id}/test), applied by a real worker on the session's Temporal dev server, and
received by loopback endpoints that keep each POST's headers and raw body.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

import httpx
import pytest

from switchboard.domain.signatures import verify_service_signature
from tests.fixtures.channel import (
    DISPLAY_PHONE_NUMBER,
    PHONE_NUMBER_ID,
    USER_BSUID,
    USER_PARENT_BSUID,
    USER_PHONE,
    WABA_ID,
    load,
    raw,
)
from tests.support.fake_channel import FakeChannel
from tests.support.http_server import serve_app
from tests.support.inbound import deliver, provision_fixture_number
from tests.support.tenants import TenantFixture
from tests.workflows.test_webhook_support import Captured, Receiver

# The spec's event kinds (Events, "Event kinds"), spelled out rather than imported from the service.
RECEIVED = "channel.message.received"
SENT = "channel.message.sent"
DELIVERED = "channel.message.delivered"
READ = "channel.message.read"
FAILED = "channel.message.failed"
ECHOED = "channel.message.echoed"
PHONE_RECEIVED = "channel.contact.phone_received"
IDENTITY_CHANGED = "channel.contact.identity_changed"
CONVERSATION_CREATED = "conversation.created"
WEBHOOK_TEST = "webhook.test"
SPEC_KINDS = frozenset(
    {
        RECEIVED,
        SENT,
        DELIVERED,
        READ,
        FAILED,
        ECHOED,
        PHONE_RECEIVED,
        IDENTITY_CHANGED,
        CONVERSATION_CREATED,
        WEBHOOK_TEST,
    }
)
MESSAGE_KINDS = frozenset({RECEIVED, SENT, DELIVERED, READ, FAILED, ECHOED})
CONTACT_KINDS = frozenset({PHONE_RECEIVED, IDENTITY_CHANGED})
NEW_BSUID = "US.99999999999999999999"
NEW_PARENT_BSUID = "US.ENT.22222222222222222222"
DEADLINE_SECONDS = 60.0


@pytest.fixture
async def upstream_url() -> AsyncIterator[str]:
    """A fake Cloud API upstream on loopback that accepts every send with a fresh wamid."""
    async with serve_app(FakeChannel().app()) as base_url:
        yield base_url


@pytest.fixture
def settings(settings, upstream_url):  # type: ignore[no-untyped-def]
    """The test's settings, with sends going to the loopback fake upstream."""
    return settings.model_copy(update={"channel_api_base_url": upstream_url, "send_wait_seconds": 10.0})


@pytest.fixture
async def receiver() -> AsyncIterator[tuple[Receiver, str]]:
    """Tenant endpoints on loopback: ``/hook`` for the tenant under test, ``/other`` for another tenant."""
    endpoint = Receiver()
    async with serve_app(endpoint.app()) as base_url:
        yield endpoint, base_url


async def create_webhook(client: httpx.AsyncClient, tenant: TenantFixture, url: str) -> dict[str, Any]:
    """A webhook subscribed to every kind (events omitted), created with the tenant's owner key."""
    response = await client.post("/v1/webhooks", json={"url": url}, headers=tenant.headers())
    assert response.status_code == 201, response.text
    return dict(response.json())


async def send_text(client: httpx.AsyncClient, tenant: TenantFixture, body: str) -> str:
    """A live send from the fixture number to the fixture user; the wamid the upstream gave it."""
    response = await client.post(
        "/v1/messages",
        json={"phone_number_id": PHONE_NUMBER_ID, "to": USER_PHONE, "type": "text", "text": {"body": body}},
        headers=tenant.headers(),
    )
    assert response.status_code == 201, response.text
    return str(response.json()["wa_message_id"])


def status_for(fixture: str, wamid: str) -> bytes:
    """A status fixture payload re-addressed to one of our sends."""
    payload = load(fixture)
    payload["entry"][0]["changes"][0]["value"]["statuses"][0]["id"] = wamid
    return json.dumps(payload).encode()


async def dispatch_test_event(client: httpx.AsyncClient, tenant: TenantFixture, webhook_id: str) -> str:
    """POST /v1/webhooks/{id}/test; the delivery id it announces."""
    response = await client.post(f"/v1/webhooks/{webhook_id}/test", headers=tenant.headers())
    assert response.status_code == 202, response.text
    return str(response.json()["delivery_id"])


async def wait_until(receiver: Receiver, path: str, done: Any) -> list[Captured]:
    """Poll the receiver until ``done(kinds received at path)`` holds, within the deadline."""
    deadline = time.monotonic() + DEADLINE_SECONDS
    while not done({json.loads(r.body)["event"] for r in receiver.at(path)}):
        if time.monotonic() > deadline:
            got = sorted({json.loads(r.body)["event"] for r in receiver.at(path)})
            raise AssertionError(f"{path} got only {got} within {DEADLINE_SECONDS:.0f} s")
        await asyncio.sleep(0.1)
    return receiver.at(path)


def assert_instant(value: Any) -> None:
    """An ISO 8601 timestamp with a zone."""
    assert isinstance(value, str) and datetime.fromisoformat(value).tzinfo is not None, value


def assert_signed(request: Captured, secret: str) -> dict[str, Any]:
    """The delivery's headers agree with its raw body and the webhook's secret; the parsed body."""
    headers = request.headers
    assert verify_service_signature(request.body, headers.get("x-service-signature"), secret)
    assert headers["content-type"].startswith("application/json")
    body = json.loads(request.body)
    assert headers["x-service-event"] == body["event"]
    assert body["delivery_id"] and headers["x-service-delivery"] == body["delivery_id"]
    return dict(body)


def assert_envelope(body: dict[str, Any], tenant_id: str) -> None:
    """The spec's envelope fields (Events, "Envelope fields") for the body's kind."""
    kind = body["event"]
    assert kind in SPEC_KINDS
    assert body["object"] == "service_events"
    assert_instant(body["occurred_at"])
    assert body["tenant_id"] == tenant_id
    if kind != WEBHOOK_TEST:  # an unfiltered webhook's test event is about no number
        assert body["phone_number_id"] == PHONE_NUMBER_ID
    if kind in CONTACT_KINDS:
        assert body["waba_id"] == WABA_ID
    if kind in MESSAGE_KINDS:
        message = body["message"]
        assert {"id", "timestamp", "type", "occurred_at", "service"} <= message.keys()
        if kind in (RECEIVED, ECHOED):  # a user known only by BSUID has no phone to put in ``from``
            assert message.get("from") or message.get("from_user_id")
        assert message["timestamp"].isdigit() and message["type"] in message
        assert_instant(message["occurred_at"])
        assert {"direction", "status", "origin", "has_media", "content"} <= message["service"].keys()
    if kind in (RECEIVED, CONVERSATION_CREATED):
        assert {"id", "status"} <= body["conversation"].keys()
        assert isinstance(body["is_new_conversation"], bool)


def by_kind(bodies: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Delivered bodies grouped by their event kind."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for body in bodies:
        grouped.setdefault(body["event"], []).append(body)
    return grouped


async def test_every_event_kind_is_delivered_signed_to_its_tenant_only(
    app_client, worker, tenant, other_tenant, settings, temporal_env, receiver
):
    endpoint, base_url = receiver
    await provision_fixture_number(app_client, tenant)
    webhook = await create_webhook(app_client, tenant, f"{base_url}/hook")
    other_webhook = await create_webhook(app_client, other_tenant, f"{base_url}/other")

    async def channel_posts(body: bytes) -> None:
        await deliver(app_client, temporal_env.client, body, settings=settings)

    await channel_posts(raw("text"))  # a new contact writes: conversation.created, received
    wamid = await send_text(app_client, tenant, "first")  # sent
    await channel_posts(status_for("status_delivered", wamid))
    await channel_posts(status_for("status_read", wamid))
    doomed = await send_text(app_client, tenant, "second")  # sent, then failed
    await channel_posts(status_for("status_failed", doomed))
    await channel_posts(raw("smb_message_echoes"))
    await channel_posts(raw("contacts_request_contact_info"))
    await channel_posts(raw("user_id_update"))
    test_delivery = await dispatch_test_event(app_client, tenant, webhook["id"])

    captured = await wait_until(endpoint, "/hook", lambda kinds: kinds >= SPEC_KINDS)
    bodies = [assert_signed(request, webhook["secret"]) for request in captured]
    assert len({body["delivery_id"] for body in bodies}) == len(bodies)
    for body in bodies:
        assert_envelope(body, tenant.id)
    got = by_kind(bodies)

    (created,) = got[CONVERSATION_CREATED]
    first = next(b for b in got[RECEIVED] if b["message"]["id"] == "wamid.xyzxyz")
    assert first["is_new_conversation"] is True and created["is_new_conversation"] is True
    assert first["conversation"]["id"] == created["conversation"]["id"]
    assert (first["message"]["from"], first["message"]["text"]) == (USER_PHONE, {"body": "Body Text"})
    assert {b["message"]["id"] for b in got[SENT]} == {wamid, doomed}
    for kind, wa_id in ((DELIVERED, wamid), (READ, wamid), (FAILED, doomed)):
        (status,) = got[kind]
        assert status["message"]["id"] == wa_id
        assert status["message"]["service"]["status"] == kind.rsplit(".", 1)[1]
    assert got[FAILED][0]["message"]["errors"][0]["code"] == 131049
    (echo,) = got[ECHOED]
    assert (echo["message"]["id"], echo["message"]["to"]) == ("wamid.echo01", USER_PHONE)
    (shared,) = got[PHONE_RECEIVED]
    assert shared["contact"] == {
        "business_scoped_user_id": USER_BSUID,
        "phone": {"previous": USER_PHONE, "current": USER_PHONE},
    }
    (rotated,) = got[IDENTITY_CHANGED]
    assert rotated["contact"] == {
        "wa_id": USER_PHONE,
        "business_scoped_user_id": {"previous": USER_BSUID, "current": NEW_BSUID},
        "parent_business_scoped_user_id": {"previous": USER_PARENT_BSUID, "current": NEW_PARENT_BSUID},
    }
    (tested,) = got[WEBHOOK_TEST]
    assert (tested["delivery_id"], tested["webhook_id"]) == (test_delivery, webhook["id"])

    # Every event about the conversation is numbered, from 1, without gap or repeat; others are not.
    about = [b for b in bodies if b.get("conversation", {}).get("id") == created["conversation"]["id"]]
    numbers = sorted(b["conversation_sequence"] for b in about)
    assert numbers == list(range(1, len(about) + 1)) and len(about) >= 8, numbers
    assert (created["conversation_sequence"], first["conversation_sequence"]) == (1, 2)
    assert all("conversation_sequence" not in b for b in bodies if "conversation" not in b)

    # The other tenant's webhook works (its own test arrives) yet got none of the events above.
    await dispatch_test_event(app_client, other_tenant, other_webhook["id"])
    (only,) = await wait_until(endpoint, "/other", lambda kinds: WEBHOOK_TEST in kinds)
    body = assert_signed(only, other_webhook["secret"])
    assert (body["event"], body["tenant_id"]) == (WEBHOOK_TEST, other_tenant.id)


async def test_status_events_of_a_live_send_name_the_business_number_as_from(
    app_client, worker, tenant, settings, temporal_env, receiver
):
    endpoint, base_url = receiver
    await provision_fixture_number(app_client, tenant)
    webhook = await create_webhook(app_client, tenant, f"{base_url}/hook")
    wamid = await send_text(app_client, tenant, "hello")
    await deliver(app_client, temporal_env.client, status_for("status_delivered", wamid), settings=settings)

    captured = await wait_until(endpoint, "/hook", lambda kinds: kinds >= {SENT, DELIVERED})
    bodies = [assert_signed(request, webhook["secret"]) for request in captured]
    senders = {
        (body["event"], body["message"].get("from"))
        for body in bodies
        if body["event"] != CONVERSATION_CREATED
    }
    assert senders == {(SENT, DISPLAY_PHONE_NUMBER), (DELIVERED, DISPLAY_PHONE_NUMBER)}
    # The send went to a first contact, so it opened (and announced) their conversation.
    assert [body["event"] for body in bodies].count(CONVERSATION_CREATED) <= 1
