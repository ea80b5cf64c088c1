"""Live sends through the API, a real worker and the fake upstream."""

from __future__ import annotations

import httpx
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


async def test_a_send_whose_started_mark_fails_still_answers_sent(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel, settings
):
    # The database refuses the one UPDATE that notes the workflow's start; the workflow exists by then,
    # so the send must go on and answer as usual (a 500 would invite the client to send it twice).
    engine = create_engine(settings.database_url)
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
    try:
        async with engine.begin() as conn:
            for statement in statements:
                await conn.execute(text(statement))
        response = await app_client.post(
            "/v1/messages",
            json={
                "phone_number_id": tenant.phone_number_id,
                "to": TO,
                "type": "text",
                "text": {"body": "hi"},
            },
            headers=tenant.headers(),
        )
        assert response.status_code == 201, response.text
        assert response.json()["status"] == "sent"
        assert len(channel.sends) == 1
        async with engine.connect() as conn:
            started_at = (
                await conn.execute(
                    text("SELECT workflow_started_at FROM messages WHERE id = :id"),
                    {"id": response.json()["id"]},
                )
            ).scalar_one()
        assert started_at is None  # the mark really was refused
    finally:
        await engine.dispose()
