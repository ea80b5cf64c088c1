"""Live sends through the API, a real worker and the fake upstream."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from sqlalchemy import text

from switchboard.store.database import create_engine
from tests.support.fake_channel import FakeChannel
from tests.support.tenants import TenantFixture


async def test_text_send_reaches_upstream_and_answers_sent(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    response = await app_client.post(
        "/v1/messages",
        json={
            "phone_number_id": tenant.phone_number_id,
            "to": "14155550100",
            "type": "text",
            "text": {"body": "hello"},
        },
        headers=tenant.headers(),
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["status"] == "sent"
    assert body["direction"] == "outbound"
    assert body["message_type"] == "text"
    assert body["wa_message_id"].startswith("wamid.FAKE")
    assert body["to_phone"] == "14155550100"
    assert body["source"] == "API"
    assert body["created_at"].endswith("Z") and len(body["created_at"].split(".")[1]) == 4
    assert channel.sends[-1] == {
        "_phone_number_id": tenant.phone_number_id,
        "messaging_product": "whatsapp",
        "recipient_type": "individual",
        "to": "+14155550100",
        "type": "text",
        "text": {"body": "hello"},
    }
    assert channel.auth_headers[-1].startswith("Bearer token-")
    stored = await app_client.get(f"/v1/messages/{body['id']}", headers=tenant.headers())
    assert stored.json()["status"] == "sent"
    assert stored.json()["wa_message_id"] == body["wa_message_id"]


TO = "14155550100"


async def _started_at(engine, message_id: str):  # type: ignore[no-untyped-def]
    async with engine.connect() as conn:
        return (
            await conn.execute(
                text("SELECT workflow_started_at FROM messages WHERE id = :id"), {"id": message_id}
            )
        ).scalar_one()


async def test_a_send_answered_in_time_needs_no_started_mark(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, settings
):
    # Sent within the wait: the message is no longer queued, so the sweeper never looks at it.
    response = await app_client.post(
        "/v1/messages",
        json={"phone_number_id": tenant.phone_number_id, "to": TO, "type": "text", "text": {"body": "hi"}},
        headers=tenant.headers(),
    )
    assert response.status_code == 201, response.text
    engine = create_engine(settings.database_url)
    try:
        assert await _started_at(engine, response.json()["id"]) is None
    finally:
        await engine.dispose()


@pytest.mark.parametrize("overrides", [{"send_wait_seconds": 0.5}], ids=["wait-0.5s"])
async def test_a_202_send_is_marked_started_and_a_refused_mark_still_answers_202(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel, settings
):
    # The upstream holds every send past the API's wait: the answer is 202 and the message stays
    # queued, so the API notes the workflow's start (the sweeper must leave that send alone).
    gate = channel.hold()
    engine = create_engine(settings.database_url)
    body = {"phone_number_id": tenant.phone_number_id, "to": TO, "type": "text", "text": {"body": "hi"}}
    try:
        accepted = await app_client.post("/v1/messages", json=body, headers=tenant.headers())
        assert accepted.status_code == 202, accepted.text
        assert await _started_at(engine, accepted.json()["id"]) is not None

        # Now the database refuses the one UPDATE that notes the start. The workflow exists by then,
        # so the request must still answer 202 (a 500 would invite the client to send it twice).
        if engine.dialect.name == "postgresql":
            statements = [
                "CREATE FUNCTION refuse_started_mark() RETURNS trigger AS $$ BEGIN"
                " RAISE EXCEPTION 'injected: workflow_started_at refused'; END $$ LANGUAGE plpgsql",
                "CREATE TRIGGER refuse_started_mark BEFORE UPDATE OF workflow_started_at ON messages"
                " FOR EACH ROW EXECUTE FUNCTION refuse_started_mark()",
            ]
        else:
            statements = [
                "CREATE TRIGGER refuse_started_mark BEFORE UPDATE OF workflow_started_at ON messages"
                " BEGIN SELECT RAISE(ABORT, 'injected: workflow_started_at refused'); END"
            ]
        async with engine.begin() as conn:
            for statement in statements:
                await conn.execute(text(statement))
        refused = await app_client.post("/v1/messages", json=body, headers=tenant.headers())
        assert refused.status_code == 202, refused.text
        assert refused.json()["status"] == "queued"
        assert await _started_at(engine, refused.json()["id"]) is None  # the mark really was refused
    finally:
        gate.set()
        await engine.dispose()
    # Both sends go on once the upstream answers.
    async with asyncio.timeout(20):
        while True:
            statuses = [
                (await app_client.get(f"/v1/messages/{r.json()['id']}", headers=tenant.headers())).json()[
                    "status"
                ]
                for r in (accepted, refused)
            ]
            if statuses == ["sent", "sent"]:
                break
            await asyncio.sleep(0.05)
