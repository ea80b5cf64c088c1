"""Standard Webhooks signatures and secret rotation end to end: the API, the real worker, a loopback receiver.

Each delivery is checked by the Standard Webhooks reference verifier (``standardwebhooks``), by the
service's own client (``switchboard_client.verify``) and on ``X-Service-Signature``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from standardwebhooks.webhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError as StandardWebhookError

from switchboard.domain.secrets_box import seal
from switchboard.domain.signatures import verify_service_signature
from switchboard.models.events import WebhookEndpoint
from switchboard.store.webhooks.endpoints import new_secret, signing_secrets
from switchboard_client import WebhookVerificationError, verify
from tests.support.http_server import serve_app
from tests.workflows.test_webhook_support import Captured, Receiver

STANDARD = ("webhook-id", "webhook-timestamp", "webhook-signature")


@pytest.fixture
async def receiver() -> AsyncIterator[tuple[Receiver, str]]:
    hook = Receiver()
    async with serve_app(hook.app()) as base_url:
        yield hook, base_url


async def create(app_client: httpx.AsyncClient, tenant, url: str) -> dict:
    response = await app_client.post("/v1/webhooks", json={"url": url}, headers=tenant.headers())
    assert response.status_code == 201, response.text
    return dict(response.json())


async def rotate(app_client: httpx.AsyncClient, tenant, webhook_id: str, **body: object) -> httpx.Response:
    return await app_client.post(
        f"/v1/webhooks/{webhook_id}/rotate-secret", json=body or None, headers=tenant.headers()
    )


async def delivered(app_client: httpx.AsyncClient, tenant, hook: Receiver, webhook_id: str) -> Captured:
    """Dispatch a webhook.test event and return the request the receiver got for it."""
    seen = len(hook.at("/hook"))
    response = await app_client.post(f"/v1/webhooks/{webhook_id}/test", headers=tenant.headers())
    assert response.status_code == 202, response.text
    request = (await hook.wait_for(seen + 1))[seen]
    assert request.headers["webhook-id"] == response.json()["delivery_id"]
    return request


def standard_verifies(request: Captured, secret: str) -> bool:
    try:
        Webhook(secret).verify(request.body, {name: request.headers[name] for name in STANDARD})
    except StandardWebhookError:
        return False
    return True


def service_verifies(request: Captured, secret: str) -> bool:
    """Any X-Service-Signature line matches (one per active secret)."""
    values = request.header_values("x-service-signature")
    return any(verify_service_signature(request.body, value, secret) for value in values)


async def test_every_delivery_carries_a_fresh_standard_webhooks_signature(
    app_client, tenant, worker, receiver
):
    hook, base_url = receiver
    webhook = await create(app_client, tenant, f"{base_url}/hook")
    before = int(datetime.now(UTC).timestamp())
    request = await delivered(app_client, tenant, hook, webhook["id"])
    assert before - 1 <= int(request.headers["webhook-timestamp"]) <= before + 30
    assert request.headers["webhook-id"] == request.headers["x-service-delivery"]
    assert len(request.headers["webhook-signature"].split(" ")) == 1
    assert len(request.header_values("x-service-signature")) == 1
    assert standard_verifies(request, webhook["secret"]) and service_verifies(request, webhook["secret"])
    event = verify(request.body, request.headers, webhook["secret"])
    assert (event["event"], event["delivery_id"]) == ("webhook.test", request.headers["webhook-id"])
    assert not standard_verifies(request, new_secret())


async def test_a_rotated_secret_signs_beside_the_new_one_until_the_overlap_ends(
    app_client, tenant, worker, receiver, caplog
):
    hook, base_url = receiver
    caplog.set_level(logging.DEBUG)
    webhook = await create(app_client, tenant, f"{base_url}/hook")
    first = webhook["secret"]

    rotated = await rotate(app_client, tenant, webhook["id"])
    assert rotated.status_code == 200, rotated.text
    second = rotated.json()["secret"]
    assert second.startswith("whsec_") and second != first
    expires = datetime.fromisoformat(rotated.json()["previous_secret_expires_at"].replace("Z", "+00:00"))
    assert timedelta(hours=23, minutes=59) < expires - datetime.now(UTC) <= timedelta(hours=24)
    shown = (await app_client.get(f"/v1/webhooks/{webhook['id']}", headers=tenant.headers())).json()
    assert (
        "secret" not in shown
        and shown["previous_secret_expires_at"] == rotated.json()["previous_secret_expires_at"]
    )

    # Both secrets in flight: either verifies the same request, on either scheme.
    during = await delivered(app_client, tenant, hook, webhook["id"])
    assert len(during.headers["webhook-signature"].split(" ")) == 2
    assert len(during.header_values("x-service-signature")) == 2
    for secret in (first, second):
        assert standard_verifies(during, secret) and service_verifies(during, secret)
        assert verify(during.body, httpx.Headers(during.header_lines), secret)["event"] == "webhook.test"

    # A rotation with no overlap: only the newest secret signs from the next delivery on.
    again = await rotate(app_client, tenant, webhook["id"], overlap_seconds=0)
    assert again.status_code == 200, again.text
    third = again.json()["secret"]
    assert again.json()["previous_secret_expires_at"] is None
    after = await delivered(app_client, tenant, hook, webhook["id"])
    assert standard_verifies(after, third) and service_verifies(after, third)
    for stale in (first, second):
        assert not standard_verifies(after, stale) and not service_verifies(after, stale)
        with pytest.raises(WebhookVerificationError):
            verify(after.body, httpx.Headers(after.header_lines), stale)

    logged = "\n".join(f"{record.getMessage()} {vars(record)}" for record in caplog.records)
    for secret in (first, second, third):
        assert secret.removeprefix("whsec_") not in logged


async def test_rotation_is_the_owners_and_refuses_bad_overlaps(app_client, tenant, other_tenant, receiver):
    _, base_url = receiver
    webhook = await create(app_client, tenant, f"{base_url}/hook")
    assert (await rotate(app_client, other_tenant, webhook["id"])).status_code == 404
    assert (await rotate(app_client, tenant, "wh_missing")).status_code == 404
    for body in ({"overlap_seconds": -1}, {"overlap_seconds": 7 * 86_400 + 1}, {"overlap_seconds": "1h"}):
        response = await rotate(app_client, tenant, webhook["id"], **body)
        assert response.status_code == 400, response.text
        assert response.json()["statusCode"] == 400 and "overlap_seconds" in response.text
    unknown = await rotate(app_client, tenant, webhook["id"], overlap=60)
    assert unknown.status_code == 400 and "overlap" in unknown.text
    # None of the refused calls rotated anything.
    shown = (await app_client.get(f"/v1/webhooks/{webhook['id']}", headers=tenant.headers())).json()
    assert shown["previous_secret_expires_at"] is None


def test_the_previous_secret_stops_signing_when_its_overlap_ends():
    key = b"k" * 32
    now = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
    old, current = new_secret(), new_secret()
    webhook = WebhookEndpoint(
        id="wh_1",
        tenant_id="ten_1",
        url="https://example.test/hook",
        secret_encrypted=seal(key, current, associated_data="wh_1"),
        previous_secret_encrypted=seal(key, old, associated_data="wh_1"),
        previous_secret_expires_at=now + timedelta(seconds=1),
    )
    assert signing_secrets(key, webhook, now=now) == [old, current]
    assert signing_secrets(key, webhook, now=now + timedelta(seconds=1)) == [current]
    webhook.previous_secret_encrypted = None
    assert signing_secrets(key, webhook, now=now) == [current]
