"""Late upstream failures (a ``failed`` status after the send was accepted) read like refusals.

One send is refused at once by the fake upstream; another is accepted and then
reported ``failed`` through a signed status webhook on /channel/webhook with the
same upstream error. Both rows and both ``channel.message.failed`` events must
carry the same spec code, title and message, with the upstream number beside them.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from switchboard.models.base import utcnow
from tests.support.fake_channel import FakeChannel, Scripted, cloud_error
from tests.support.inbound import deliver, events
from tests.support.tenants import TenantFixture

REFUSED_TO = "14155550100"
ACCEPTED_TO = "14155550101"
DETAILS = "The upstream explains why."

# (upstream code, spec code)
LATE = [
    (131047, "OUTSIDE_CONVERSATION_WINDOW"),
    (470, "OUTSIDE_CONVERSATION_WINDOW"),
    (131026, "RECIPIENT_NOT_ON_WHATSAPP"),
    (131049, "QUALITY_FLAG_RED"),
    (131050, "RECIPIENT_OPTED_OUT"),
    (131051, "131051"),
]


async def send_text(client: httpx.AsyncClient, tenant: TenantFixture, to: str) -> httpx.Response:
    payload = {"phone_number_id": tenant.phone_number_id, "to": to, "type": "text", "text": {"body": "hi"}}
    return await client.post("/v1/messages", json=payload, headers=tenant.headers())


def failed_status(tenant: TenantFixture, wamid: str, code: int) -> bytes:
    """A Cloud API ``failed`` status webhook for one of the tenant's messages (async error shape)."""
    status = {
        "id": wamid,
        "status": "failed",
        "timestamp": str(int(utcnow().timestamp())),
        "recipient_id": ACCEPTED_TO,
        "errors": [
            {
                "code": code,
                "title": "Upstream title",
                "message": "Upstream title",
                "error_data": {"details": DETAILS},
                "href": "/documentation/business-messaging/whatsapp/support/error-codes",
            }
        ],
    }
    value = {
        "messaging_product": "whatsapp",
        "metadata": {"display_phone_number": "15550000000", "phone_number_id": tenant.phone_number_id},
        "statuses": [status],
    }
    body = {
        "object": "whatsapp_business_account",
        "entry": [{"id": tenant.waba_id, "changes": [{"field": "messages", "value": value}]}],
    }
    return json.dumps(body).encode()


async def failed_event(settings: Any, tenant: TenantFixture, message_id: str) -> dict[str, Any]:
    (event,) = [
        e
        for e in await events(settings, tenant.id)
        if e.kind == "channel.message.failed" and e.payload["message"]["service"]["message_id"] == message_id
    ]
    return dict(event.payload["message"])


@pytest.mark.parametrize(("upstream", "code"), LATE, ids=[str(row[0]) for row in LATE])
async def test_late_failure_carries_the_same_code_as_a_refusal(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    worker: Any,
    temporal_env: Any,
    settings: Any,
    channel: FakeChannel,
    upstream: int,
    code: str,
):
    channel.script(REFUSED_TO, Scripted(400, cloud_error(upstream, "Upstream title", details=DETAILS)))
    refused = await send_text(app_client, tenant, REFUSED_TO)
    assert refused.status_code == 400, refused.text
    assert refused.json()["code"] == code
    accepted = await send_text(app_client, tenant, ACCEPTED_TO)
    assert accepted.status_code == 201, accepted.text
    wamid = accepted.json()["wa_message_id"]

    summary = await deliver(
        app_client, temporal_env.client, failed_status(tenant, wamid, upstream), settings=settings
    )
    assert summary.applied == 1

    refused_row = (
        await app_client.get(f"/v1/messages/{refused.json()['message_id']}", headers=tenant.headers())
    ).json()
    late_row = (
        await app_client.get(f"/v1/messages/{accepted.json()['id']}", headers=tenant.headers())
    ).json()
    assert late_row["status"] == "failed"
    fields = ("error_code", "error_title", "error_message")
    assert [late_row[f] for f in fields] == [refused_row[f] for f in fields]
    assert late_row["error_code"] == code
    assert DETAILS in late_row["error_message"]

    refused_event = await failed_event(settings, tenant, refused_row["id"])
    late_event = await failed_event(settings, tenant, late_row["id"])
    assert late_event["errors"] == refused_event["errors"]
    assert late_event["errors"] == [
        {"code": upstream, "title": late_row["error_title"], "message": late_row["error_message"]}
    ]
    assert late_event["service"]["error_code"] == refused_event["service"]["error_code"] == code
    assert late_event["service"]["status"] == "failed"


async def test_a_redelivered_late_failure_changes_nothing(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    worker: Any,
    temporal_env: Any,
    settings: Any,
    channel: FakeChannel,
):
    accepted = await send_text(app_client, tenant, ACCEPTED_TO)
    assert accepted.status_code == 201, accepted.text
    body = failed_status(tenant, accepted.json()["wa_message_id"], 131050)
    first = await deliver(app_client, temporal_env.client, body, settings=settings)
    # The same failure in a differently encoded payload reaches the ledger, not the row.
    again = json.dumps(json.loads(body), indent=1).encode()
    second = await deliver(app_client, temporal_env.client, again, settings=settings)
    assert (first.applied, second.applied, second.duplicate) == (1, 0, 1)
    kinds = [e.kind for e in await events(settings, tenant.id)]
    assert kinds.count("channel.message.failed") == 1
