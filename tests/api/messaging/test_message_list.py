"""GET /v1/messages (envelope, every filter, tenant isolation) and GET /v1/messages/{id}."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from tests.conftest import ADMIN_KEY
from tests.support.fake_channel import FakeChannel, Scripted, cloud_error
from tests.support.tenants import TenantFixture

US, AR, MX, DEAD = "14155550100", "5491123456789", "5215512345678", "14155550111"
SECOND_PHONE = "700000000001"


@dataclass
class Sent:
    us: dict[str, Any]
    ar: dict[str, Any]
    mx: dict[str, Any]
    failed: dict[str, Any]
    second: dict[str, Any]


async def send(
    client: httpx.AsyncClient, tenant: TenantFixture, to: str, phone: str | None = None
) -> dict[str, Any]:
    payload = {
        "phone_number_id": phone or tenant.phone_number_id,
        "to": to,
        "type": "text",
        "text": {"body": "x"},
    }
    response = await client.post("/v1/messages", json=payload, headers=tenant.headers())
    assert response.status_code in (201, 400), response.text
    body = dict(response.json())
    if response.status_code == 400:
        body = (await client.get(f"/v1/messages/{body['message_id']}", headers=tenant.headers())).json()
    return body


@pytest.fixture
async def sent(app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel) -> Sent:
    added = await app_client.post(
        f"/v1/admin/tenants/{tenant.id}/phone-numbers",
        headers={"X-Admin-Key": ADMIN_KEY},
        json={
            "phone_number_id": SECOND_PHONE,
            "display_phone_number": "+1 555 7000001",
            "waba_id": tenant.waba_id,
        },
    )
    assert added.status_code == 201, added.text
    channel.script(DEAD, Scripted(400, cloud_error(131026, "not on WhatsApp")))
    return Sent(
        us=await send(app_client, tenant, US),
        ar=await send(app_client, tenant, AR),
        mx=await send(app_client, tenant, MX),
        failed=await send(app_client, tenant, DEAD),
        second=await send(app_client, tenant, US, SECOND_PHONE),
    )


async def ids(client: httpx.AsyncClient, tenant: TenantFixture, **params: Any) -> list[str]:
    response = await client.get("/v1/messages", params=params, headers=tenant.headers())
    assert response.status_code == 200, response.text
    return [m["id"] for m in response.json()["data"]]


async def test_list_envelope_newest_first(app_client: httpx.AsyncClient, tenant: TenantFixture, sent: Sent):
    response = await app_client.get("/v1/messages", headers=tenant.headers())
    page = response.json()
    assert set(page) == {"data", "page", "per_page", "total", "has_more"}
    assert (page["page"], page["per_page"], page["total"], page["has_more"]) == (1, 20, 5, False)
    expected = [sent.second["id"], sent.failed["id"], sent.mx["id"], sent.ar["id"], sent.us["id"]]
    assert [m["id"] for m in page["data"]] == expected
    assert sorted(expected) == expected[::-1], "ids are monotonic with created_at"
    first = await app_client.get("/v1/messages", params={"per_page": 2}, headers=tenant.headers())
    last = await app_client.get("/v1/messages", params={"per_page": 2, "page": 3}, headers=tenant.headers())
    assert (first.json()["has_more"], [m["id"] for m in first.json()["data"]]) == (True, expected[:2])
    assert (last.json()["has_more"], [m["id"] for m in last.json()["data"]]) == (False, expected[4:])


@pytest.mark.parametrize("per_page", [101, 0, -1])
async def test_per_page_out_of_range_is_400(
    app_client: httpx.AsyncClient, tenant: TenantFixture, per_page: int
):
    response = await app_client.get("/v1/messages", params={"per_page": per_page}, headers=tenant.headers())
    assert response.status_code == 400, response.text
    assert response.json()["details"]["field"] == "per_page"


async def test_per_page_100_is_allowed(app_client: httpx.AsyncClient, tenant: TenantFixture):
    response = await app_client.get("/v1/messages", params={"per_page": 100}, headers=tenant.headers())
    assert response.status_code == 200 and response.json()["per_page"] == 100


async def test_filters(app_client: httpx.AsyncClient, tenant: TenantFixture, sent: Sent):
    everything = {sent.us["id"], sent.ar["id"], sent.mx["id"], sent.failed["id"], sent.second["id"]}
    first_phone = everything - {sent.second["id"]}
    assert set(await ids(app_client, tenant, phone_number_id=tenant.phone_number_id)) == first_phone
    assert await ids(app_client, tenant, phone_number_id=SECOND_PHONE) == [sent.second["id"]]
    assert set(await ids(app_client, tenant, direction="outbound")) == everything
    assert await ids(app_client, tenant, direction="inbound") == []
    assert await ids(app_client, tenant, status="failed") == [sent.failed["id"]]
    assert set(await ids(app_client, tenant, status="sent")) == everything - {sent.failed["id"]}
    assert await ids(app_client, tenant, status="delivered") == []
    assert set(await ids(app_client, tenant, phone_number_id=tenant.phone_number_id, status="sent")) == (
        first_phone - {sent.failed["id"]}
    )


async def test_time_filters(app_client: httpx.AsyncClient, tenant: TenantFixture, sent: Sent):
    now = datetime.now(UTC)
    hour = timedelta(hours=1)
    assert len(await ids(app_client, tenant, since=(now - hour).isoformat())) == 5
    assert await ids(app_client, tenant, since=(now + hour).isoformat()) == []
    assert len(await ids(app_client, tenant, until=(now + hour).isoformat())) == 5
    assert await ids(app_client, tenant, until=(now - hour).isoformat()) == []
    assert await ids(app_client, tenant, since=sent.failed["created_at"]) == [
        sent.second["id"],
        sent.failed["id"],
    ]
    assert (
        await ids(app_client, tenant, since=(now - hour).isoformat(), until=(now - hour / 2).isoformat())
        == []
    )
    today = now.date()
    assert len(await ids(app_client, tenant, since=today.isoformat())) == 5
    assert await ids(app_client, tenant, since=(today + timedelta(days=1)).isoformat()) == []
    assert await ids(app_client, tenant, until=(today - timedelta(days=1)).isoformat()) == []


async def test_until_a_date_includes_that_whole_day(
    app_client: httpx.AsyncClient, tenant: TenantFixture, sent: Sent
):
    today = datetime.now(UTC).date().isoformat()
    assert len(await ids(app_client, tenant, until=today)) == 5


@pytest.mark.parametrize(
    ("form", "which"),
    [
        ("5491123456789", "ar"),
        ("541123456789", "ar"),
        ("+54 9 11 2345-6789", "ar"),
        ("5215512345678", "mx"),
        ("525512345678", "mx"),
        ("+52 1 55 1234 5678", "mx"),
        ("14155550100", "us"),
    ],
)
async def test_contact_phone_matches_every_form(
    app_client: httpx.AsyncClient, tenant: TenantFixture, sent: Sent, form: str, which: str
):
    expected = {"ar": [sent.ar["id"]], "mx": [sent.mx["id"]], "us": [sent.second["id"], sent.us["id"]]}[which]
    assert await ids(app_client, tenant, contact_phone=form) == expected


async def test_other_tenants_messages_are_invisible(
    app_client: httpx.AsyncClient, tenant: TenantFixture, other_tenant: TenantFixture, sent: Sent
):
    theirs = await send(app_client, other_tenant, US)
    assert theirs["id"] not in await ids(app_client, tenant, per_page=100)
    assert await ids(app_client, tenant, phone_number_id=other_tenant.phone_number_id) == []
    assert await ids(app_client, other_tenant) == [theirs["id"]]
    assert await ids(app_client, other_tenant, contact_phone=AR) == []
    for owner, stranger, message in ((other_tenant, tenant, theirs), (tenant, other_tenant, sent.us)):
        response = await app_client.get(f"/v1/messages/{message['id']}", headers=stranger.headers())
        assert response.status_code == 404, response.text
        assert (
            await app_client.get(f"/v1/messages/{message['id']}", headers=owner.headers())
        ).status_code == 200


async def test_get_one_message_has_every_field(
    app_client: httpx.AsyncClient, tenant: TenantFixture, sent: Sent
):
    message = (await app_client.get(f"/v1/messages/{sent.ar['id']}", headers=tenant.headers())).json()
    assert message["id"] == sent.ar["id"]
    assert (message["phone_number_id"], message["direction"], message["message_type"]) == (
        tenant.phone_number_id,
        "outbound",
        "text",
    )
    assert message["status"] == "sent" and message["wa_message_id"].startswith("wamid.")
    phone = (await app_client.get(f"/v1/phone-numbers/{tenant.phone_id}", headers=tenant.headers())).json()
    business = "".join(ch for ch in phone["display_phone_number"] if ch.isdigit())
    # Outbound messages come from the business number, in canonical digits.
    assert (message["to_phone"], message["from_phone"]) == ("541123456789", business)
    assert message["created_at"] == sent.ar["created_at"]
    assert message["occurred_at"].endswith("Z") and message["created_at"].endswith("Z")
    assert message["retry_of_message_id"] is None
    assert message["source"] == "API" and message["coexistence_echo"] is False
    assert message["rendered_body"] is None
    assert (message["error_title"], message["error_code"], message["error_message"]) == (None, None, None)
    failed = (await app_client.get(f"/v1/messages/{sent.failed['id']}", headers=tenant.headers())).json()
    assert failed["status"] == "failed" and failed["error_code"] == "RECIPIENT_NOT_ON_WHATSAPP"
    assert failed["error_title"] and failed["error_message"]


async def test_unknown_message_is_404(app_client: httpx.AsyncClient, tenant: TenantFixture):
    response = await app_client.get("/v1/messages/msg_doesnotexist", headers=tenant.headers())
    assert response.status_code == 404
    assert response.json()["statusCode"] == 404


@pytest.mark.parametrize(
    ("param", "value"),
    [
        ("direction", "sideways"),
        ("since", "yesterday"),
        ("until", "2024-13-45"),
        ("page", "0"),
        # A status no message can have: refused, not an empty list that looks like "none yet".
        ("status", "bogus"),
        ("status", "SENT"),
        ("status", ""),
    ],
)
async def test_invalid_filter_values_are_400(
    app_client: httpx.AsyncClient, tenant: TenantFixture, param: str, value: str
):
    response = await app_client.get("/v1/messages", params={param: value}, headers=tenant.headers())
    assert response.status_code == 400, response.text
    assert response.json()["details"]["field"] == param
    assert response.json()["code"] == "VALIDATION_FAILED"
