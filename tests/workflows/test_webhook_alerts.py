"""Owner alerts from deliveries: webhook.degraded (10-50 %) and webhook.failing (below 10 %) once per
transition, webhook.disabled_auto; all mailed."""

from __future__ import annotations

import asyncio
import email
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
from aiosmtpd.controller import Controller

from switchboard.activities.webhooks.config import WebhookConfig
from tests.conftest import ADMIN_KEY
from tests.support.http_server import free_port
from tests.support.tenants import provision_tenant
from tests.workflows.test_webhook_support import BASE_POLICY, Inbox, harness_factory

ALERTING = WebhookConfig(
    policy=replace(BASE_POLICY, retry_schedule_seconds=(0, 10, 10, 10, 10)),
    alert_min_attempts=3,
    health_check_interval=BASE_POLICY.degraded_notify_interval * 0,
)


@pytest.fixture
def harness(time_skipping_env, settings, app_client, tenant, database_url):
    return harness_factory(time_skipping_env, settings, app_client, tenant, database_url)


@pytest.fixture
async def smtp() -> AsyncIterator[tuple[Inbox, str]]:
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    await asyncio.to_thread(controller.start)
    yield inbox, f"smtp://127.0.0.1:{port}?from=alerts@switchboard.test"
    await asyncio.to_thread(controller.stop)


async def test_failing_is_notified_and_mailed_once(harness, app_client, smtp):
    inbox, smtp_url = smtp
    owner = await provision_tenant(app_client, ADMIN_KEY, notification_email="owner@example.com")
    async with harness(ALERTING, settings_changes={"smtp_url": smtp_url}, owner=owner) as h:
        h.receiver.default = (500, {})
        webhook = await h.webhook()
        assert (await h.deliver()).outcome == "failed"
        assert (await h.deliver()).outcome == "failed"
        [note] = await h.db.notifications("webhook.failing")
        assert (note.webhook_id, note.severity, note.recipient) == (
            webhook["id"],
            "critical",
            "owner@example.com",
        )
        assert note.delivery == "mailed" and note.sent_at is not None
        assert "0 of 3 attempts succeeded" in note.body
        assert await h.db.notifications("webhook.degraded") == [], "below 10 % is failing, not degraded"
        assert (await h.db.webhook(webhook["id"])).health_state == "failing"
    [envelope] = inbox.messages
    assert (envelope.mail_from, envelope.rcpt_tos) == ("alerts@switchboard.test", ["owner@example.com"])
    message = email.message_from_bytes(envelope.content)
    assert message["Subject"] == f"[critical] Webhook failing: {webhook['url']}"
    assert webhook["id"] in message.get_payload()


async def test_degraded_band_and_failing_below_it_are_separate_notices(harness, app_client):
    owner = await provision_tenant(app_client, ADMIN_KEY, notification_email="owner@example.com")
    async with harness(ALERTING, owner=owner) as h:
        h.receiver.script = [(200, {})]
        h.receiver.default = (500, {})
        webhook = await h.webhook()
        assert (await h.deliver()).outcome == "succeeded"
        # 1 of 3, then down to 1 of 6 attempts: inside the 10-50 % band the whole delivery.
        assert (await h.deliver()).outcome == "failed"
        [degraded] = await h.db.notifications("webhook.degraded")
        assert (degraded.severity, degraded.webhook_id) == ("warning", webhook["id"])
        assert "1 of 3 attempts succeeded" in degraded.body and "(status degraded)" in degraded.body
        assert await h.db.notifications("webhook.failing") == []
        assert (await h.db.webhook(webhook["id"])).health_state == "degraded"
        # 1 of 11 is below 10 %: the failing notice follows, the degraded one is not repeated.
        assert (await h.deliver()).outcome == "failed"
        [failing] = await h.db.notifications("webhook.failing")
        assert failing.severity == "critical"
        assert "1 of 11 attempts succeeded" in failing.body
        assert len(await h.db.notifications("webhook.degraded")) == 1
        assert (await h.db.webhook(webhook["id"])).health_state == "failing"
    listed = (await app_client.get("/v1/notifications", headers=owner.headers())).json()["data"]
    assert [(n["kind"], n["severity"]) for n in listed] == [
        ("webhook.failing", "critical"),
        ("webhook.degraded", "warning"),
    ]


async def test_successes_on_a_failing_webhook_bring_it_back_to_healthy(harness, app_client):
    """A success on a webhook that was unhealthy when its attempt loaded it is evaluated (only a
    success on a healthy one skips that), so the state recovers without another alert."""
    owner = await provision_tenant(app_client, ADMIN_KEY, notification_email="owner@example.com")
    async with harness(ALERTING, owner=owner) as h:
        h.receiver.default = (500, {})
        webhook = await h.webhook()
        assert (await h.deliver()).outcome == "failed"
        assert (await h.deliver()).outcome == "failed"
        assert (await h.db.webhook(webhook["id"])).health_state == "failing"
        h.receiver.default = (200, {})
        states = []
        for _ in range(25):
            assert (await h.deliver()).outcome == "succeeded"
            states.append((await h.db.webhook(webhook["id"])).health_state)
            if states[-1] == "healthy":
                break
        assert states[-1] == "healthy", states
        assert "degraded" in states, "on the way back it passes through the 10-50 % band"
        assert len(await h.db.notifications("webhook.failing")) == 1


async def test_too_few_attempts_raise_no_alert(harness):
    quiet = replace(ALERTING, alert_min_attempts=50)
    async with harness(quiet) as h:
        h.receiver.default = (500, {})
        await h.webhook()
        assert (await h.deliver()).outcome == "failed"
        assert await h.db.notifications() == []


async def test_auto_disable_is_mailed(harness, app_client, smtp):
    inbox, smtp_url = smtp
    owner = await provision_tenant(app_client, ADMIN_KEY, notification_email="ops@example.com")
    async with harness(ALERTING, settings_changes={"smtp_url": smtp_url}, owner=owner) as h:
        h.receiver.default = (410, {})
        webhook = await h.webhook()
        assert (await h.deliver()).auto_disabled is True
        [note] = await h.db.notifications("webhook.disabled_auto")
        assert (note.severity, note.delivery, note.recipient) == ("critical", "mailed", "ops@example.com")
    [envelope] = inbox.messages
    message = email.message_from_bytes(envelope.content)
    assert message["Subject"] == f"[critical] Webhook auto-disabled: {webhook['url']}"
    assert "410 Gone" in message.get_payload() and "/reactivate" in message.get_payload()
