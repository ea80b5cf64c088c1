"""SwitchboardClient against the real service, end to end.

The API, the fake Cloud API upstream and the tenant's webhook receiver each run
on a real loopback port; a real worker on the session's Temporal dev server
sends the message and delivers the signed webhook, which the receiver checks
with ``switchboard_client.verify``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from switchboard.api.app import create_app
from switchboard.settings import Settings
from switchboard_client import SwitchboardClient, SwitchboardError, WebhookVerificationError, verify
from tests.conftest import ADMIN_KEY
from tests.support.fake_channel import FakeChannel
from tests.support.http_server import serve_app
from tests.support.tenants import TenantFixture, provision_tenant

CUSTOMER = "15551230001"
# Hang guard only: the property is that the delivery arrives at all.
ARRIVAL_LIMIT_SECONDS = 60.0


@dataclass
class VerifyingReceiver:
    """A tenant endpoint that accepts a delivery only when ``verify`` does."""

    secret: str = ""
    verified: asyncio.Queue[dict[str, Any]] = field(default_factory=asyncio.Queue)
    refused: list[str] = field(default_factory=list)

    def app(self) -> Starlette:
        async def hook(request: Request) -> Response:
            try:
                event = verify(await request.body(), request.headers, self.secret)
            except WebhookVerificationError as exc:
                self.refused.append(exc.reason)
                return Response(exc.reason, status_code=400)
            await self.verified.put(event)
            return Response(status_code=204)

        return Starlette(routes=[Route("/hook", hook, methods=["POST"])])

    async def next_event(self, kind: str, predicate: Any = lambda event: True) -> dict[str, Any]:
        """The next verified delivery of ``kind`` that satisfies ``predicate`` (others are skipped)."""
        async with asyncio.timeout(ARRIVAL_LIMIT_SECONDS):
            while True:
                event = await self.verified.get()
                if event["event"] == kind and predicate(event):
                    return event


@pytest.fixture
def channel() -> FakeChannel:
    return FakeChannel()


@pytest.fixture
async def upstream_url(channel: FakeChannel) -> AsyncIterator[str]:
    async with serve_app(channel.app()) as base_url:
        yield base_url


@pytest.fixture
def settings(settings: Settings, upstream_url: str) -> Settings:
    """Sends go to the loopback fake upstream."""
    return settings.model_copy(update={"channel_api_base_url": upstream_url, "send_wait_seconds": 20.0})


@pytest.fixture
async def api_url(settings: Settings) -> AsyncIterator[str]:
    """The real API app on a loopback port, its lifespan running."""
    async with serve_app(create_app(settings)) as base_url:
        yield base_url


@pytest.fixture
async def live_tenant(api_url: str) -> TenantFixture:
    async with httpx.AsyncClient(base_url=api_url) as operator:
        return await provision_tenant(operator, ADMIN_KEY)


@pytest.fixture
async def receiver() -> AsyncIterator[tuple[VerifyingReceiver, str]]:
    endpoint = VerifyingReceiver()
    async with serve_app(endpoint.app()) as base_url:
        yield endpoint, base_url


async def test_send_then_verify_the_signed_webhook(worker, api_url, live_tenant, receiver, channel):
    endpoint, receiver_url = receiver
    async with SwitchboardClient(api_url, live_tenant.live_key) as client:
        webhook = await client.create_webhook(f"{receiver_url}/hook", events=["channel.message.sent"])
        assert webhook["secret"].startswith("whsec_") and webhook["events"] == ["channel.message.sent"]
        endpoint.secret = webhook["secret"]

        sent = await client.send_text(phone_number_id=live_tenant.phone_number_id, to=CUSTOMER, body="hi")
        assert (sent["status"], sent["message_type"], sent["direction"]) == ("sent", "text", "outbound")
        wamid = sent["wa_message_id"]
        assert wamid and [s["text"] for s in channel.sends_to(CUSTOMER)] == [{"body": "hi"}]

        event = await endpoint.next_event("channel.message.sent", lambda e: e["message"]["id"] == wamid)
        assert endpoint.refused == []
        assert (event["tenant_id"], event["phone_number_id"]) == (live_tenant.id, live_tenant.phone_number_id)
        assert event["message"]["service"]["status"] == "sent"

        fetched = await client.get_message(sent["id"])
        assert (fetched["id"], fetched["wa_message_id"], fetched["to_phone"]) == (sent["id"], wamid, CUSTOMER)
        listed = await client.list_messages(phone_number_id=live_tenant.phone_number_id, direction="outbound")
        assert [m["id"] for m in listed.data] == [sent["id"]]
        assert (listed.page, listed.per_page, listed.total, listed.has_more) == (1, 20, 1, False)


async def test_a_repeated_idempotency_key_sends_once(worker, api_url, live_tenant, channel):
    async with SwitchboardClient(api_url, live_tenant.live_key) as client:
        payload = {
            "phone_number_id": live_tenant.phone_number_id,
            "to": CUSTOMER,
            "type": "text",
            "text": {"body": "once"},
        }
        first = await client.send_message(payload, idempotency_key="order-42")
        again = await client.send_message(payload, idempotency_key="order-42")
        assert again == first
        assert len(channel.sends_to(CUSTOMER)) == 1
        other = await client.send_message(payload)  # a fresh key of its own: a second message
        assert other["id"] != first["id"] and len(channel.sends_to(CUSTOMER)) == 2


async def test_webhooks_are_created_listed_rotated_and_deleted(api_url, live_tenant):
    async with SwitchboardClient(api_url, live_tenant.live_key) as client:
        created = await client.create_webhook("http://127.0.0.1:9/hook", description="orders")
        page = await client.list_webhooks()
        assert [w["id"] for w in page.data] == [created["id"]]
        assert "secret" not in page.data[0] and page.data[0]["all_events"] is True
        assert (await client.get_webhook(created["id"]))["description"] == "orders"
        rotated = await client.rotate_webhook_secret(created["id"], overlap_seconds=60)
        assert rotated["secret"].startswith("whsec_") and rotated["secret"] != created["secret"]
        assert rotated["previous_secret_expires_at"] is not None
        assert (await client.rotate_webhook_secret(created["id"]))["secret"] != rotated["secret"]
        assert (await client.list_webhook_deliveries(created["id"], status="failed")).data == []
        recovery = await client.recover_webhook(created["id"], since="2026-01-01")
        assert (recovery["webhook_id"], recovery["total"]) == (created["id"], 0)
        assert (await client.get_webhook_recovery(recovery["id"]))["id"] == recovery["id"]
        with pytest.raises(SwitchboardError) as unknown:
            await client.get_webhook_delivery("dlv_unknown")
        assert unknown.value.status_code == 404
        await client.delete_webhook(created["id"])
        assert (await client.list_webhooks()).data == []
        with pytest.raises(SwitchboardError) as caught:
            await client.get_webhook(created["id"])
        assert caught.value.status_code == 404 and caught.value.error == "Not Found"


async def test_error_bodies_become_typed_errors(api_url, live_tenant):
    async with SwitchboardClient(api_url, live_tenant.live_key) as client:
        with pytest.raises(SwitchboardError) as missing:
            await client.send_message({"phone_number_id": live_tenant.phone_number_id, "type": "text"})
        assert (missing.value.status_code, missing.value.code) == (400, "MISSING_REQUIRED_FIELD")
        assert missing.value.details["field"]
        with pytest.raises(SwitchboardError) as e164:
            await client.send_text(
                phone_number_id=live_tenant.phone_number_id, to="+1 415 555 0100", body="x"
            )
        assert (e164.value.status_code, e164.value.code) == (400, "INVALID_E164")
        assert e164.value.details == {"field": "to", "value": "+1 415 555 0100"}
        assert e164.value.message.startswith("to must be E.164 digits") and e164.value.error == "Bad Request"
        with pytest.raises(SwitchboardError) as unknown:
            await client.get_message("msg_does_not_exist")
        assert unknown.value.status_code == 404 and unknown.value.message
        with pytest.raises(SwitchboardError) as bad_page:
            await client.list_messages(per_page=101)
        assert (bad_page.value.status_code, bad_page.value.details["field"]) == (400, "per_page")
    async with SwitchboardClient(api_url, "gsk_live_" + "x" * 32) as stranger:
        with pytest.raises(SwitchboardError) as unauthorized:
            await stranger.list_messages()
        assert (unauthorized.value.status_code, unauthorized.value.code) == (401, "INVALID_API_KEY")
        assert not unauthorized.value.retryable


async def test_a_sandbox_send_and_an_empty_event_list(api_url, live_tenant):
    async with SwitchboardClient(api_url, live_tenant.test_key) as client:
        sent = await client.send_text(phone_number_id=live_tenant.phone_number_id, to=CUSTOMER, body="test")
        assert sent["status"] == "sent_sandbox" and sent["_sandbox"] is True
        assert sent["id"].startswith("sandbox-")
        events = await client.list_agent_events(type="thread.reactivated", per_page=5)
        assert (events.data, events.total, events.per_page) == ([], 0, 5)


async def test_a_429_longer_than_the_retry_bound_is_raised_at_once(api_url, live_tenant):
    """A daily limit answers 429 until midnight: far beyond the client's wait bound, so no waiting."""
    async with httpx.AsyncClient(base_url=api_url, headers={"X-Admin-Key": ADMIN_KEY}) as operator:
        answer = await operator.patch(
            f"/v1/admin/tenants/{live_tenant.id}",
            json={"plan": "enterprise", "rate_limit_per_second": 100, "rate_limit_per_day": 1},
        )
        assert answer.status_code == 200, answer.text
        key = await operator.post(
            f"/v1/admin/tenants/{live_tenant.id}/api-keys", json={"mode": "live", "role": "member"}
        )
        assert key.status_code == 201, key.text
    waits: list[float] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)

    # The service never asks for less than 1 s, so with a 0.5 s bound every 429 is raised at once.
    client = SwitchboardClient(api_url, key.json()["key"], sleep=record, max_retry_wait_seconds=0.5)
    async with client:
        await client.list_messages()
        with pytest.raises(SwitchboardError) as caught:
            await client.list_messages()
    error = caught.value
    assert error.status_code == 429 and error.retry_after_seconds is not None
    assert error.retry_after_seconds == error.body["retry_after_seconds"]
    assert waits == []
