"""Retry schedule, Retry-After, timeouts, 410, auto-disable and reactivation on the time-skipping server.

Durations are shrunk through WebhookConfig (the deployment knobs) and the
server skips the durable timers, so days of retries take seconds.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from switchboard.activities.webhooks.config import WebhookConfig
from tests.workflows.test_webhook_support import BASE_POLICY, harness_factory


@pytest.fixture
def harness(time_skipping_env, settings, app_client, tenant, database_url):
    return harness_factory(time_skipping_env, settings, app_client, tenant, database_url)


async def test_schedule_is_followed_with_jitter_until_exhausted(harness):
    async with harness(WebhookConfig(policy=BASE_POLICY)) as h:
        h.receiver.default = (500, {})
        await h.webhook()
        report = await h.deliver()
        assert (report.outcome, report.attempts, report.auto_disabled) == ("failed", 4, False)
        gaps = await h.gaps(report.delivery_id)
        for gap, base in zip(gaps, (60, 600, 3600), strict=True):
            assert 0.8 * base <= gap <= 1.2 * base + 5, gaps
        assert any(abs(gap - base) > base * 0.001 for gap, base in zip(gaps, (60, 600, 3600), strict=True))
        assert [a.status_code for a in await h.db.attempts(report.delivery_id)] == [500] * 4
        assert len(h.receiver.at("/hook")) == 4
        [delivery] = await h.db.deliveries()
        assert (delivery.status, delivery.attempts) == ("failed", 4)


async def test_a_success_ends_the_schedule(harness):
    async with harness(WebhookConfig(policy=BASE_POLICY)) as h:
        h.receiver.script = [(500, {}), (502, {}), (204, {})]
        await h.webhook()
        report = await h.deliver()
        assert (report.outcome, report.attempts) == ("succeeded", 3)
        assert [a.success for a in await h.db.attempts(report.delivery_id)] == [False, False, True]
        webhook = await h.db.webhook((await h.db.deliveries())[0].webhook_id)
        assert (webhook.failing_since, webhook.exhausted_since_success) == (None, 0)
        assert webhook.last_success_at is not None


@pytest.mark.parametrize(
    ("first", "delay", "low", "high"),
    [
        ((503, {"Retry-After": "1800"}), 0, 1800, 1805),
        ((503, {"Retry-After": "999999"}), 0, 3600, 3605),
        ((503, {"Retry-After": "1"}), 0, 48, 77),
        ((503, {"Retry-After": "soon"}), 0, 48, 77),
        ((429, {}), 0, 120, 125),
        ((200, {}), 3.0, 120, 130),
    ],
    ids=[
        "retry-after-honoured",
        "retry-after-capped",
        "retry-after-below-schedule",
        "unreadable",
        "429-floor",
        "timeout-floor",
    ],
)
async def test_retry_after_overload_floor_and_timeouts(harness, first, delay, low, high):
    async with harness(WebhookConfig(policy=BASE_POLICY)) as h:
        h.receiver.script = [first, (200, {})]
        h.receiver.delays = [delay]
        await h.webhook()
        report = await h.deliver()
        assert (report.outcome, report.attempts) == ("succeeded", 2)
        [gap] = await h.gaps(report.delivery_id)
        assert low <= gap <= high, gap
        first_attempt = (await h.db.attempts(report.delivery_id))[0]
        if delay:
            assert (first_attempt.status_code, first_attempt.error) == (None, "timeout after 2 s")


async def test_410_auto_disables_at_once(harness):
    async with harness(WebhookConfig(policy=BASE_POLICY)) as h:
        h.receiver.default = (410, {})
        webhook = await h.webhook()
        report = await h.deliver()
        assert (report.outcome, report.attempts, report.auto_disabled) == ("gone", 1, True)
        stored = await h.db.webhook(webhook["id"])
        assert stored.auto_disabled_at is not None and "410" in stored.auto_disabled_reason
        [note] = await h.db.notifications("webhook.disabled_auto")
        assert (note.severity, note.webhook_id) == ("critical", webhook["id"])
        assert await h.dispatch(await h.event()) == []


WINDOW = WebhookConfig(
    policy=replace(
        BASE_POLICY,
        retry_schedule_seconds=(0, 60),
        auto_disable_after=timedelta(hours=2),
        auto_disable_min_exhausted=2,
        auto_disable_min_failure_span=timedelta(hours=1),
        auto_disable_warning=timedelta(hours=1),
    ),
    # A quiet endpoint: too few attempts a day for a health alert to warn its owner.
    alert_min_attempts=1_000,
)


async def test_auto_disable_after_the_window_then_reactivation(harness, time_skipping_env):
    async with harness(WINDOW) as h:
        h.receiver.default = (500, {})
        webhook = await h.webhook()
        for _ in range(2):
            early = await h.deliver()
            assert (early.outcome, early.auto_disabled) == ("failed", False)
        assert (await h.db.webhook(webhook["id"])).exhausted_since_success == 2
        await time_skipping_env.sleep(timedelta(hours=3))
        # The rule is met, but the owner had no warning (too few attempts for a health alert): warned now.
        warned = await h.deliver()
        assert (warned.outcome, warned.auto_disabled) == ("failed", False)
        [warning] = await h.db.notifications("webhook.failing")
        assert "will be disabled automatically from" in warning.body
        assert (await h.db.webhook(webhook["id"])).auto_disabled_at is None
        # Within the warning's lead nothing changes; after it, the next exhausted delivery disables.
        await time_skipping_env.sleep(timedelta(minutes=30))
        assert (await h.deliver()).auto_disabled is False
        await time_skipping_env.sleep(timedelta(minutes=40))
        late = await h.deliver()
        assert (late.outcome, late.auto_disabled) == ("failed", True)
        stored = await h.db.webhook(webhook["id"])
        assert stored.auto_disabled_at is not None and stored.auto_disabled_reason.startswith(
            "no successful delivery"
        )
        [disabled] = await h.db.notifications("webhook.disabled_auto")
        assert f"/v1/webhooks/{webhook['id']}/recover" in disabled.body
        assert len(await h.db.notifications("webhook.failing")) == 1
        shown = (await h.api.get(f"/v1/webhooks/{webhook['id']}", headers=h.tenant.headers())).json()
        assert shown["auto_disabled_at"] is not None
        missed = await h.event()
        assert await h.dispatch(missed) == []
        requests_before = len(h.receiver.at("/hook"))
        reactivated = await h.api.post(f"/v1/webhooks/{webhook['id']}/reactivate", headers=h.tenant.headers())
        assert reactivated.status_code == 200 and reactivated.json()["auto_disabled_at"] is None
        h.receiver.default = (200, {})
        third = await h.deliver()
        assert third.outcome == "succeeded"
        assert len(h.receiver.at("/hook")) == requests_before + 1
        assert missed not in {d.event_id for d in await h.db.deliveries()}
        assert len(await h.db.notifications("webhook.reactivated")) == 1


async def test_sporadic_failures_never_auto_disable(harness, time_skipping_env):
    async with harness(WINDOW) as h:
        h.receiver.script = [(500, {}), (200, {})] * 3
        webhook = await h.webhook()
        for _ in range(3):
            assert (await h.deliver()).outcome == "succeeded"
            await time_skipping_env.sleep(timedelta(hours=3))
        stored = await h.db.webhook(webhook["id"])
        assert stored.auto_disabled_at is None and stored.exhausted_since_success == 0


async def test_a_webhook_disabled_mid_retries_stops(harness):
    async with harness(WebhookConfig(policy=BASE_POLICY)) as h:
        h.receiver.default = (500, {})
        webhook = await h.webhook()
        [delivery_id] = await h.dispatch(await h.event())
        await h.db.wait(lambda: h.db.attempts(delivery_id))
        await h.api.patch(
            f"/v1/webhooks/{webhook['id']}", json={"enabled": False}, headers=h.tenant.headers()
        )
        report = await h.outcome(delivery_id)
        assert (report.outcome, report.attempts) == ("canceled", 1)
        assert len(h.receiver.at("/hook")) == 1
        [delivery] = await h.db.deliveries()
        assert delivery.status == "canceled"


async def test_a_duplicate_dispatch_starts_nothing(harness):
    async with harness(WebhookConfig(policy=BASE_POLICY)) as h:
        h.receiver.script = [(500, {})]
        await h.webhook()
        event_id = await h.event()
        [delivery_id] = await h.dispatch(event_id)
        await h.db.wait(lambda: h.db.attempts(delivery_id))
        assert await h.dispatch(event_id, workflow_id=f"event-{event_id}-again") == []
        assert (await h.outcome(delivery_id)).attempts == 2
        assert await h.dispatch(event_id, workflow_id=f"event-{event_id}-late") == []
        assert len(h.receiver.at("/hook")) == 2
