"""Status updates move outbound messages forward only, once each, in any arrival order."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from switchboard.domain.events import iso_utc
from switchboard.models.messaging import Message
from tests.fixtures.channel import PHONE_NUMBER_ID, USER_BSUID, USER_PARENT_BSUID, raw
from tests.support.inbound import (
    add_outbound,
    channel_fixture,  # noqa: F401 - the channel fixture
    db,
    events,
    post_webhook,
    processed,
    provision_fixture_number,
    status_payload,
)

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


async def status_of(settings, message_id: str):
    async with db(settings) as session:
        return await session.get(Message, message_id)


@pytest.mark.parametrize(
    ("arrivals", "final", "kinds"),
    [
        (["delivered", "read"], "read", ["channel.message.delivered", "channel.message.read"]),
        (["read", "delivered"], "read", ["channel.message.read"]),
        (["read", "sent", "delivered"], "read", ["channel.message.read"]),
        (["delivered", "delivered"], "delivered", ["channel.message.delivered"]),
        (["sent"], "sent", []),
        (["failed", "delivered"], "failed", ["channel.message.failed"]),
        (["read", "failed"], "read", ["channel.message.read"]),
        (["played"], "sent", []),
    ],
)
async def test_statuses_in_any_order_end_at_the_furthest(
    arrivals, final, kinds, channel, app_client, tenant, settings
):
    await provision_fixture_number(app_client, tenant)
    message = await add_outbound(settings, tenant, "wamid.out1")
    for n, status in enumerate(arrivals):
        await channel.deliver(status_payload("wamid.out1", status, at=T0 + timedelta(seconds=n)))
    assert (await status_of(settings, message.id)).status == final
    assert [e.kind for e in await events(settings, tenant.id)] == kinds


async def test_read_event_payload_is_exact(channel, app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    message = await add_outbound(settings, tenant, "wamid.out1", occurred_at=T0)
    await channel.deliver(
        status_payload(
            "wamid.out1",
            "read",
            at=T0 + timedelta(minutes=1),
            recipient_user_id=USER_BSUID,
            recipient_parent_user_id=USER_PARENT_BSUID,
        )
    )
    (event,) = await events(settings, tenant.id)
    assert event.payload == {
        "object": "service_events",
        "event": "channel.message.read",
        "occurred_at": iso_utc(T0 + timedelta(minutes=1)),
        "tenant_id": tenant.id,
        "phone_number_id": PHONE_NUMBER_ID,
        "message": {
            "id": "wamid.out1",
            "timestamp": str(int(T0.timestamp())),
            "type": "text",
            "from": "15550783881",
            "occurred_at": iso_utc(T0),
            "recipient_id": "16505551234",
            "recipient_user_id": USER_BSUID,
            "recipient_parent_user_id": USER_PARENT_BSUID,
            "text": {"body": "Hi there"},
            "service": {
                "message_id": message.id,
                "direction": "outbound",
                "status": "read",
                "origin": "API",
                "has_media": False,
                "content": "Hi there",
            },
        },
    }
    stored = await status_of(settings, message.id)
    assert stored.recipient_bsuid == USER_BSUID


async def test_failed_status_stores_the_error_and_reports_it(channel, app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    message = await add_outbound(settings, tenant, "wamid.bsuidfail01", to_phone=None)
    await channel.deliver(raw("status_failed_bsuid"))
    stored = await status_of(settings, message.id)
    title = "More than 24 h since the recipient last replied; send a template"
    assert (stored.status, stored.error_code, stored.error_title) == (
        "failed",
        "OUTSIDE_CONVERSATION_WINDOW",
        title,
    )
    assert stored.error_message == (
        f"{title}: Message failed to send because more than 24 hours have passed since the customer "
        "last replied to this number."
    )
    (event,) = await events(settings, tenant.id)
    body = event.payload["message"]
    assert body["errors"] == [{"code": 131047, "title": title, "message": stored.error_message}]
    assert body["service"]["error_code"] == "OUTSIDE_CONVERSATION_WINDOW"
    assert (body["recipient_user_id"], body["recipient_parent_user_id"]) == (USER_BSUID, USER_PARENT_BSUID)
    assert "recipient_id" not in body


async def test_a_redelivered_status_changes_nothing(channel, app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    message = await add_outbound(settings, tenant, "wamid.out1")
    body = status_payload("wamid.out1", "delivered", at=T0)
    await channel.deliver(body)
    before = (await status_of(settings, message.id)).status_updated_at
    response = await post_webhook(app_client, body)
    assert response.json()["duplicate"] is True
    assert (await status_of(settings, message.id)).status_updated_at == before
    assert len(await events(settings, tenant.id)) == 1


async def test_status_racing_the_send_commit_is_applied_on_retry(
    app_client, worker, tenant, settings, temporal_env
):
    await provision_fixture_number(app_client, tenant)
    body = status_payload("wamid.late", "delivered", at=T0)
    assert (await post_webhook(app_client, body)).status_code == 200
    await asyncio.sleep(0.3)
    message = await add_outbound(settings, tenant, "wamid.late")

    summary = await processed(temporal_env.client, body, task_queue=settings.temporal_task_queue)
    assert (summary.applied, summary.dropped) == (1, 0)
    assert (await status_of(settings, message.id)).status == "delivered"
    assert [e.kind for e in await events(settings, tenant.id)] == ["channel.message.delivered"]


async def test_an_echo_takes_later_statuses_like_any_outbound_message(channel, app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    await channel.deliver(raw("smb_message_echoes"))
    await channel.deliver(status_payload("wamid.echo01", "delivered", at=T0))
    async with db(settings) as session:
        echo = (
            await session.execute(select(Message).where(Message.wa_message_id == "wamid.echo01"))
        ).scalar_one()
    assert (echo.status, echo.source) == ("delivered", "HUMAN_COEXISTENCE")
    delivered = [e for e in await events(settings, tenant.id) if e.kind == "channel.message.delivered"]
    assert [e.payload["message"]["service"]["origin"] for e in delivered] == ["HUMAN_COEXISTENCE"]
