"""Sandbox keys: a synthetic answer, nothing stored, nothing sent upstream."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from tests.support.fake_channel import FakeChannel
from tests.support.tenants import TenantFixture

TO = "14155550100"
MILLIS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")

SENDS: list[tuple[str, dict[str, Any]]] = [
    ("text", {"to": TO, "type": "text", "text": {"body": "hi"}}),
    (
        "template",
        {"to": TO, "type": "template", "template": {"name": "hello_world", "language": {"code": "en_US"}}},
    ),
    ("image-link", {"to": TO, "type": "image", "image": {"link": "https://cdn.example.com/a.jpg"}}),
    ("reaction", {"to": TO, "type": "reaction", "reaction": {"message_id": "wamid.X", "emoji": "\u2764"}}),
    ("bsuid", {"recipient": "US.13491208655302741918", "type": "text", "text": {"body": "hi"}}),
]


@pytest.mark.parametrize("payload", [s[1] for s in SENDS], ids=[s[0] for s in SENDS])
async def test_sandbox_send_answers_synthetically(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel, payload: dict[str, Any]
):
    body = {"phone_number_id": tenant.phone_number_id, **payload}
    response = await app_client.post("/v1/messages", json=body, headers=tenant.headers(tenant.test_key))
    assert response.status_code == 201, response.text
    answer = response.json()
    assert answer["id"].startswith("sandbox-") and len(answer["id"]) > len("sandbox-")
    assert answer["wa_message_id"].startswith("wamid.SANDBOX.") and len(answer["wa_message_id"]) > 14
    assert answer["status"] == "sent_sandbox"
    assert answer["_sandbox"] is True
    assert isinstance(answer["_note"], str) and answer["_note"]
    assert answer["direction"] == "outbound"
    assert answer["message_type"] == payload["type"]
    assert answer["phone_number_id"] == tenant.phone_number_id
    assert answer["to_phone"] == payload.get("to")
    assert MILLIS.match(answer["created_at"]), answer["created_at"]
    assert channel.sends == [] and channel.uploads == []
    for key in (tenant.live_key, tenant.test_key):
        listed = (await app_client.get("/v1/messages", headers=tenant.headers(key))).json()
        assert (listed["data"], listed["total"]) == ([], 0)
    missing = await app_client.get(f"/v1/messages/{answer['id']}", headers=tenant.headers(tenant.test_key))
    assert missing.status_code == 404


async def test_sandbox_ids_are_unique_and_nothing_is_persisted(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel
):
    body = {"phone_number_id": tenant.phone_number_id, **SENDS[0][1]}
    answers = [
        (await app_client.post("/v1/messages", json=body, headers=tenant.headers(tenant.test_key))).json()
        for _ in range(3)
    ]
    assert len({a["id"] for a in answers}) == 3
    assert len({a["wa_message_id"] for a in answers}) == 3
    assert (await app_client.get("/v1/messages", headers=tenant.headers())).json()["total"] == 0
    assert channel.sends == []


async def test_sandbox_send_normalizes_the_phone_like_live(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel
):
    body = {
        "phone_number_id": tenant.phone_number_id,
        "to": "5491123456789",
        "type": "text",
        "text": {"body": "x"},
    }
    response = await app_client.post("/v1/messages", json=body, headers=tenant.headers(tenant.test_key))
    assert response.status_code == 201, response.text
    assert response.json()["to_phone"] == "541123456789"
    assert channel.sends == []
