"""Owner notifications: SMTP_URL forms, mail through a loopback SMTP server, stored otherwise, once only."""

from __future__ import annotations

import asyncio
import email
import smtplib
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
from aiosmtpd.controller import Controller

from switchboard.activities.notifications import SmtpTarget, deliver_notification, parse_smtp_url
from switchboard.domain.webhook_policy import NOTIFY_DEGRADED
from switchboard.models.events import WebhookEndpoint
from switchboard.store.webhooks.notifications import record_notification
from tests.conftest import ADMIN_KEY
from tests.support.http_server import free_port
from tests.support.tenants import provision_tenant
from tests.workflows.test_webhook_support import Db, Inbox

AT = datetime(2026, 6, 1, 8, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "smtp://mail.example.com",
            SmtpTarget("mail.example.com", 25, False, False, None, None, "switchboard@localhost"),
        ),
        (
            "smtp://u%40x:p%3Aw@mail.example.com:2525?starttls=true&from=alerts@example.com",
            SmtpTarget("mail.example.com", 2525, False, True, "u@x", "p:w", "alerts@example.com"),
        ),
        (
            "smtps://user:pw@mail.example.com",
            SmtpTarget("mail.example.com", 465, True, False, "user", "pw", "switchboard@localhost"),
        ),
    ],
)
def test_smtp_url_forms(url, expected):
    assert parse_smtp_url(url) == expected


@pytest.mark.parametrize("url", ["http://mail.example.com", "smtp://", "mail.example.com:25"])
def test_bad_smtp_urls_are_refused(url):
    with pytest.raises(ValueError):
        parse_smtp_url(url)


@pytest.fixture
async def smtp() -> AsyncIterator[tuple[Inbox, int]]:
    inbox, port = Inbox(), free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    await asyncio.to_thread(controller.start)
    yield inbox, port
    await asyncio.to_thread(controller.stop)


@pytest.fixture
async def db(database_url) -> AsyncIterator[Db]:
    handle = Db(database_url)
    yield handle
    await handle.close()


async def stored_notification(db: Db, app_client, tenant_fixture, *, key: str = "k1") -> str:
    hook = (
        await app_client.post(
            "/v1/webhooks", json={"url": "https://h.example.com/in"}, headers=tenant_fixture.headers()
        )
    ).json()
    async with db.sessions() as session:
        webhook = await session.get(WebhookEndpoint, hook["id"])
        note_id = await record_notification(
            session,
            webhook,
            kind=NOTIFY_DEGRADED,
            transition_key=key,
            at=AT,
            detail="2 of 9 attempts succeeded",
        )
        duplicate = await record_notification(
            session, webhook, kind=NOTIFY_DEGRADED, transition_key=key, at=AT
        )
        await session.commit()
    assert note_id is not None and duplicate is None
    return note_id


async def test_mailed_once_to_the_tenants_address(db, app_client, settings, smtp):
    inbox, port = smtp
    owner = await provision_tenant(app_client, ADMIN_KEY, notification_email="owner@example.com")
    note_id = await stored_notification(db, app_client, owner)
    mailing = settings.model_copy(update={"smtp_url": f"smtp://127.0.0.1:{port}?from=noreply@sb.test"})
    assert await deliver_notification(db.sessions, mailing, note_id) == "mailed"
    assert await deliver_notification(db.sessions, mailing, note_id) is None
    [envelope] = inbox.messages
    assert (envelope.mail_from, envelope.rcpt_tos) == ("noreply@sb.test", ["owner@example.com"])
    message = email.message_from_bytes(envelope.content)
    assert message["Subject"].startswith("[warning] Webhook degraded: https://h.example.com/in")
    assert "2 of 9 attempts succeeded" in message.get_payload()
    [row] = await db.notifications()
    assert (row.delivery, row.sent_at is not None) == ("mailed", True)


@pytest.mark.parametrize(
    ("email_address", "delivery"), [("owner@example.com", "stored"), (None, "no_recipient")]
)
async def test_without_smtp_or_recipient_it_is_stored(db, app_client, settings, email_address, delivery):
    owner = await provision_tenant(app_client, ADMIN_KEY, notification_email=email_address)
    note_id = await stored_notification(db, app_client, owner)
    assert await deliver_notification(db.sessions, settings, note_id) == delivery
    [row] = await db.notifications()
    assert (row.delivery, row.sent_at, row.recipient) == (delivery, None, email_address)


async def test_an_smtp_failure_leaves_it_pending_for_the_sweeper(db, app_client, settings):
    owner = await provision_tenant(app_client, ADMIN_KEY, notification_email="owner@example.com")
    note_id = await stored_notification(db, app_client, owner)
    down = settings.model_copy(update={"smtp_url": f"smtp://127.0.0.1:{free_port()}"})
    with pytest.raises((OSError, smtplib.SMTPException)):
        await deliver_notification(db.sessions, down, note_id)
    [row] = await db.notifications()
    assert (row.delivery, row.sent_at) == ("pending", None)
