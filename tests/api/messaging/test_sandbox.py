"""Sandbox keys: a synthetic answer, nothing stored (but an Idempotency-Key's record), nothing sent upstream."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import httpx
import pytest

from switchboard.models.base import utcnow
from switchboard.models.events import Event
from switchboard.models.messaging import Contact, Conversation, IdempotencyRecord, Message
from switchboard.store import idempotency
from tests.support.fake_channel import FakeChannel
from tests.support.inbound import db, rows
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


async def sandbox_post(
    client: httpx.AsyncClient, tenant: TenantFixture, body: dict[str, Any], key: str
) -> httpx.Response:
    headers = {**tenant.headers(tenant.test_key), "Idempotency-Key": key}
    return await client.post("/v1/messages", json=body, headers=headers)


async def test_sandbox_honours_idempotency_key_like_live(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel, settings
):
    body = {"phone_number_id": tenant.phone_number_id, **SENDS[0][1]}
    first = await sandbox_post(app_client, tenant, body, "s-1")
    assert first.status_code == 201, first.text
    assert "X-Idempotent-Replay" not in first.headers
    replay = await sandbox_post(app_client, tenant, body, "s-1")
    assert (replay.status_code, replay.headers["X-Idempotent-Replay"]) == (201, "true")
    assert replay.json() == first.json()
    other = await sandbox_post(app_client, tenant, {**body, "text": {"body": "changed"}}, "s-1")
    assert other.status_code == 422, other.text
    assert other.json()["code"] == "idempotency_key_reused"
    # Nothing but the idempotency record is stored.
    assert channel.sends == []
    assert (await app_client.get("/v1/messages", headers=tenant.headers())).json()["total"] == 0
    for model in (Message, Contact, Conversation, Event):
        assert await rows(settings, model, model.tenant_id == tenant.id) == []
    [record] = await rows(settings, IdempotencyRecord, IdempotencyRecord.key == "s-1")
    assert (record.state, record.response_status) == ("completed", 201)


async def test_simultaneous_first_uses_of_a_sandbox_key_run_once(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel
):
    body = {"phone_number_id": tenant.phone_number_id, **SENDS[1][1]}
    answers = await asyncio.gather(*(sandbox_post(app_client, tenant, body, "s-2") for _ in range(6)))
    fresh = [a for a in answers if a.status_code == 201 and "X-Idempotent-Replay" not in a.headers]
    assert len(fresh) == 1, [(a.status_code, a.text) for a in answers]
    # Whether the others arrive while the first is in flight depends on scheduling: each
    # is either told so (409) or given the first's answer, never a second synthetic send.
    for answer in answers:
        if answer.status_code == 409:
            assert answer.json()["code"] == "request_in_progress"
        else:
            assert (answer.status_code, answer.json()) == (201, fresh[0].json())


async def test_a_sandbox_key_in_flight_elsewhere_is_409_until_it_is_freed(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel, settings
):
    """The key is claimed as another API process would, so the request is in flight for sure."""
    body = {"phone_number_id": tenant.phone_number_id, **SENDS[1][1]}
    space = idempotency.scope(tenant.id, sandbox=True)
    async with db(settings) as session:
        await idempotency.claim(
            session,
            tenant_id=space,
            key="s-4",
            fingerprint=idempotency.fingerprint("POST", "/v1/messages", body),
            now=utcnow(),
        )
    held = await asyncio.gather(*(sandbox_post(app_client, tenant, body, "s-4") for _ in range(3)))
    assert [(a.status_code, a.json()["code"]) for a in held] == [(409, "request_in_progress")] * 3
    async with db(settings) as session:
        await idempotency.release(session, tenant_id=space, key="s-4")
    first = await sandbox_post(app_client, tenant, body, "s-4")
    assert first.status_code == 201 and "X-Idempotent-Replay" not in first.headers, first.text
    replay = await sandbox_post(app_client, tenant, body, "s-4")
    assert (replay.status_code, replay.headers.get("X-Idempotent-Replay")) == (201, "true")
    assert replay.json() == first.json()
    assert channel.sends == []


async def test_a_refused_sandbox_send_frees_its_key(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel
):
    path = f"/v1/customers/{tenant.customer_id}"
    body = {"phone_number_id": tenant.phone_number_id, **SENDS[0][1]}
    await app_client.patch(path, json={"sending_paused": True}, headers=tenant.headers())
    refused = await sandbox_post(app_client, tenant, body, "s-3")
    assert (refused.status_code, refused.json()["code"]) == (403, "customer_sending_disabled")
    await app_client.patch(path, json={"sending_paused": False}, headers=tenant.headers())
    accepted = await sandbox_post(app_client, tenant, body, "s-3")
    assert accepted.status_code == 201, accepted.text
    assert "X-Idempotent-Replay" not in accepted.headers


async def test_on_sqlite_a_sandbox_send_makes_no_thread_hop(
    app_client: httpx.AsyncClient, tenant: TenantFixture, database_url: str, hops: list[str]
):
    """The phone's read runs on the event loop, the key's rate-limit lease in the write turn.

    The first send reads the key (then cached) and opens the connections; the second is the steady state.
    """
    if not database_url.startswith("sqlite"):
        pytest.skip("reads on the loop and the write turn are SQLite's")
    body = {"phone_number_id": tenant.phone_number_id, "to": TO, "type": "text", "text": {"body": "hi"}}
    headers = tenant.headers(tenant.test_key)
    assert (await app_client.post("/v1/messages", json=body, headers=headers)).status_code == 201
    hops.clear()
    # A test key's 10 requests a second are leased a slot or two at a time: two more sends cross a lease.
    for _ in range(2):
        assert (await app_client.post("/v1/messages", json=body, headers=headers)).status_code == 201
    assert hops == []


async def test_a_sandbox_send_without_a_key_is_refused_as_a_live_one(
    app_client: httpx.AsyncClient, tenant: TenantFixture, other_tenant: TenantFixture, channel: FakeChannel
):
    """The un-keyed sandbox path reads only the number's row: its refusals carry the spec's codes."""
    headers = tenant.headers(tenant.test_key)
    text = {"to": TO, "type": "text", "text": {"body": "hi"}}
    cases = [
        (other_tenant.phone_number_id, 403, "PHONE_NUMBER_NOT_IN_TENANT"),
        ("999999999999", 400, "INVALID_PHONE_NUMBER_ID"),
    ]
    for phone_number_id, status, code in cases:
        refused = await app_client.post(
            "/v1/messages", json={"phone_number_id": phone_number_id, **text}, headers=headers
        )
        assert (refused.status_code, refused.json()["statusCode"], refused.json()["code"]) == (
            status,
            status,
            code,
        )
    paused = await app_client.patch(
        f"/v1/customers/{tenant.customer_id}", json={"sending_paused": True}, headers=tenant.headers()
    )
    assert paused.status_code == 200, paused.text
    refused = await app_client.post(
        "/v1/messages", json={"phone_number_id": tenant.phone_number_id, **text}, headers=headers
    )
    assert (refused.status_code, refused.json()["code"]) == (403, "customer_sending_disabled")
    assert channel.sends == []
