"""Template status webhooks on /channel/webhook: approvals unblock sends, in time order, once each.

The tenant holds the fixture WABA and number; templates are created through
the API against the loopback fake upstream (which answers PENDING), then the
channel's signed template webhooks are applied by the real worker.
"""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from switchboard.models.base import utcnow
from tests.fixtures.channel import PHONE_NUMBER_ID, WABA_ID, load
from tests.support.fake_channel import FakeChannel
from tests.support.inbound import deliver, post_webhook, provision_fixture_number
from tests.support.tenants import TenantFixture

NAME, LANGUAGE = "order_confirmation", "en_US"
DEFINITION = {
    "name": NAME,
    "language": LANGUAGE,
    "category": "UTILITY",
    "components": [{"type": "BODY", "text": "Order {{1}} is confirmed", "example": {"body_text": [["#1"]]}}],
}


@pytest.fixture
async def business(app_client: httpx.AsyncClient, tenant: TenantFixture, worker: Any) -> TenantFixture:
    """The tenant with the fixture WABA and number, and the fixture's template created PENDING."""
    await provision_fixture_number(app_client, tenant)
    created = await app_client.post(
        f"/v1/wabas/{WABA_ID}/templates", json=DEFINITION, headers=tenant.headers()
    )
    assert created.status_code == 201, created.text
    assert created.json()["status"] == "PENDING"
    return tenant


def template_change(
    at: datetime, *, field: str = "message_template_status_update", indent: int | None = None, **value: Any
) -> bytes:
    """The fixture's template webhook with its entry time (and value fields) replaced."""
    envelope = copy.deepcopy(load("message_template_status_update"))
    entry = envelope["entry"][0]
    entry["time"] = int(at.timestamp())
    change = entry["changes"][0]
    change["field"] = field
    if field != "message_template_status_update":
        change["value"] = {
            k: change["value"][k]
            for k in ("message_template_id", "message_template_name", "message_template_language")
        }
    change["value"].update(value)
    return json.dumps(envelope, indent=indent).encode()


async def apply(client: httpx.AsyncClient, temporal_env: Any, settings: Any, body: bytes) -> Any:
    return await deliver(client, temporal_env.client, body, settings=settings)


async def stored(client: httpx.AsyncClient, tenant: TenantFixture) -> dict[str, Any]:
    listed = (await client.get(f"/v1/wabas/{WABA_ID}/templates", headers=tenant.headers())).json()["data"]
    (template,) = [t for t in listed if (t["name"], t["language"]) == (NAME, LANGUAGE)]
    return dict(template)


async def send_template(client: httpx.AsyncClient, tenant: TenantFixture) -> httpx.Response:
    payload = {
        "phone_number_id": PHONE_NUMBER_ID,
        "to": "14155550100",
        "type": "template",
        "template": {
            "name": NAME,
            "language": {"code": LANGUAGE},
            "components": [{"type": "body", "parameters": [{"type": "text", "text": "#42"}]}],
        },
    }
    return await client.post("/v1/messages", json=payload, headers=tenant.headers())


async def test_an_approval_webhook_unblocks_a_refused_template_send(
    app_client: httpx.AsyncClient, business: TenantFixture, temporal_env, settings, channel: FakeChannel
):
    refused = await send_template(app_client, business)
    assert refused.status_code == 400, refused.text
    assert refused.json()["code"] == "TEMPLATE_NOT_APPROVED"
    assert channel.sends == []

    summary = await apply(app_client, temporal_env, settings, template_change(utcnow()))

    assert (summary.applied, summary.ignored) == (1, 0)
    assert (await stored(app_client, business))["status"] == "APPROVED"
    accepted = await send_template(app_client, business)
    assert accepted.status_code == 201, accepted.text
    assert channel.sends[-1]["template"]["name"] == NAME


async def test_an_older_status_never_overwrites_a_newer_one(
    app_client: httpx.AsyncClient, business: TenantFixture, temporal_env, settings
):
    t0 = utcnow()
    approved = await apply(app_client, temporal_env, settings, template_change(t0 + timedelta(seconds=10)))
    late_pause = await apply(
        app_client, temporal_env, settings, template_change(t0 + timedelta(seconds=5), event="PAUSED")
    )
    assert (approved.applied, late_pause.applied, late_pause.unchanged) == (1, 0, 1)
    assert (await stored(app_client, business))["status"] == "APPROVED"
    assert (await send_template(app_client, business)).status_code == 201

    paused = await apply(
        app_client, temporal_env, settings, template_change(t0 + timedelta(seconds=20), event="PAUSED")
    )
    assert paused.applied == 1
    assert (await stored(app_client, business))["status"] == "PAUSED"
    again = await send_template(app_client, business)
    assert (again.status_code, again.json()["code"]) == (400, "TEMPLATE_NOT_APPROVED")


async def test_a_redelivered_change_is_applied_once(
    app_client: httpx.AsyncClient, business: TenantFixture, temporal_env, settings
):
    at = utcnow()
    body = template_change(at)
    first = await apply(app_client, temporal_env, settings, body)
    # The same bytes again: the endpoint recognises the payload and starts nothing.
    response = await post_webhook(app_client, body)
    assert (response.status_code, response.json()["duplicate"]) == (200, True)
    # The same change in a differently encoded payload: the ledger recognises the change.
    second = await apply(app_client, temporal_env, settings, template_change(at, indent=2))
    assert (first.applied, second.applied, second.duplicate) == (1, 0, 1)
    assert (await stored(app_client, business))["status"] == "APPROVED"


async def test_category_changes_are_ordered_apart_from_status_changes(
    app_client: httpx.AsyncClient, business: TenantFixture, temporal_env, settings
):
    t0 = utcnow()
    category = "template_category_update"
    newer = await apply(
        app_client,
        temporal_env,
        settings,
        template_change(t0 + timedelta(seconds=3), field=category, new_category="MARKETING"),
    )
    older = await apply(
        app_client,
        temporal_env,
        settings,
        template_change(t0 + timedelta(seconds=1), field=category, new_category="AUTHENTICATION"),
    )
    # An approval a second before the category change still applies: the two are ordered separately.
    approval = await apply(app_client, temporal_env, settings, template_change(t0 + timedelta(seconds=2)))
    assert (newer.applied, older.unchanged, approval.applied) == (1, 1, 1)
    template = await stored(app_client, business)
    assert (template["category"], template["status"]) == ("MARKETING", "APPROVED")


async def test_quality_changes_are_recorded_but_change_no_status(
    app_client: httpx.AsyncClient, business: TenantFixture, temporal_env, settings
):
    body = template_change(
        utcnow(),
        field="message_template_quality_update",
        previous_quality_score="GREEN",
        new_quality_score="RED",
    )
    first = await apply(app_client, temporal_env, settings, body)
    second = await apply(app_client, temporal_env, settings, json.dumps(json.loads(body), indent=1).encode())
    assert (first.unchanged, second.duplicate) == (1, 1)
    assert (await stored(app_client, business))["status"] == "PENDING"


async def test_changes_for_unknown_templates_and_wabas_are_ignored(
    app_client: httpx.AsyncClient, business: TenantFixture, temporal_env, settings
):
    unknown_template = template_change(
        utcnow(), message_template_id=1, message_template_name="never_created", message_template_language="es"
    )
    envelope = json.loads(template_change(utcnow()))
    envelope["entry"][0]["id"] = "555000555000"
    unknown_waba = json.dumps(envelope).encode()
    for body in (unknown_template, unknown_waba):
        summary = await apply(app_client, temporal_env, settings, body)
        assert (summary.items, summary.ignored) == (1, 1)
    assert (await stored(app_client, business))["status"] == "PENDING"


async def test_a_sync_read_does_not_undo_a_newer_webhook_change(
    app_client: httpx.AsyncClient, business: TenantFixture, temporal_env, settings, channel: FakeChannel
):
    # The webhook reports a change in a later second than the read below starts: the read is older.
    later = datetime.now(UTC) + timedelta(seconds=30)
    await apply(app_client, temporal_env, settings, template_change(later))
    channel.templates[WABA_ID] = [
        {"id": "9", "name": NAME, "language": LANGUAGE, "category": "UTILITY", "status": "PENDING"},
        {"id": "10", "name": "imported", "language": "es", "status": "APPROVED", "components": []},
    ]
    synced = await app_client.post(f"/v1/wabas/{WABA_ID}/templates/sync", headers=business.headers())
    assert synced.status_code == 200, synced.text
    assert {t["name"]: t["status"] for t in synced.json()["data"]} == {
        NAME: "APPROVED",
        "imported": "APPROVED",
    }
