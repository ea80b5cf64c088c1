"""GET /v1/webhooks/health-by-phone: statuses, figures, validation, and 200k attempts on the index."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import insert, text, update

from switchboard.models.base import iso_millis
from switchboard.models.events import Event, WebhookAttempt, WebhookDelivery, WebhookEndpoint
from switchboard.store.webhooks.health import window_counts
from tests.conftest import ADMIN_KEY
from tests.workflows.test_webhook_support import Db

NOW = datetime.now(UTC)
HOUR = timedelta(hours=1)


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[Db]:
    handle = Db(database_url)
    yield handle
    await handle.close()


async def second_phone(app_client, tenant) -> str:
    response = await app_client.post(
        f"/v1/admin/tenants/{tenant.id}/phone-numbers",
        json={
            "phone_number_id": f"7{tenant.phone_number_id}",
            "display_phone_number": "+1 555 000 9999",
            "waba_id": tenant.waba_id,
        },
        headers={"X-Admin-Key": ADMIN_KEY},
    )
    assert response.status_code == 201, response.text
    return response.json()["phone_number_id"]


async def webhook(app_client, tenant, **body) -> str:
    response = await app_client.post(
        "/v1/webhooks", json={"url": "https://h.example.com/in", **body}, headers=tenant.headers()
    )
    assert response.status_code == 201, response.text
    return response.json()["id"]


async def seed(
    db: Db, tenant_id: str, webhook_id: str, attempts: list[tuple[timedelta, bool]], *, now: datetime = NOW
) -> None:
    """Attempts ``ago`` before ``now``, all under one delivery of one event."""
    async with db.sessions() as session:
        event = Event(tenant_id=tenant_id, kind="channel.message.received", payload={})
        session.add(event)
        await session.flush()
        delivery = WebhookDelivery(
            id=f"dlv_{event.id}_{webhook_id}"[:60],
            tenant_id=tenant_id,
            event_id=event.id,
            webhook_id=webhook_id,
        )
        session.add(delivery)
        await session.flush()
        rows = [
            {
                "id": f"att_{delivery.id}_{n}",
                "tenant_id": tenant_id,
                "webhook_id": webhook_id,
                "delivery_id": delivery.id,
                "attempt": n,
                "success": ok,
                "status_code": 200 if ok else 500,
                "latency_ms": 10,
                "attempted_at": now - ago,
            }
            for n, (ago, ok) in enumerate(attempts, start=1)
        ]
        for start in range(0, len(rows), 5000):
            await session.execute(insert(WebhookAttempt), rows[start : start + 5000])
        await session.commit()


def pattern(total: int, ok: int, *, ago: timedelta = HOUR) -> list[tuple[timedelta, bool]]:
    return [(ago + timedelta(seconds=n), n < ok) for n in range(total)]


async def health(app_client, tenant, phone: str | None = None) -> dict:
    response = await app_client.get(
        f"/v1/webhooks/health-by-phone?phone_number_id={phone or tenant.phone_number_id}",
        headers=tenant.headers(),
    )
    assert response.status_code == 200, response.text
    return dict(response.json())


async def test_not_configured_without_covering_webhooks(app_client, tenant):
    body = await health(app_client, tenant)
    assert body["status"] == "not_configured" and body["webhooks"] == []
    assert (body["successRate24h"], body["deliveries24hTotal"], body["lastDeliveryAt"]) == (None, 0, None)


@pytest.mark.parametrize(
    ("total", "ok", "status", "rate"),
    [
        (0, 0, "no_deliveries", None),
        (10, 9, "healthy", 0.9),
        (10, 6, "healthy", 0.6),
        (10, 5, "degraded", 0.5),
        (10, 3, "degraded", 0.3),
        (10, 1, "degraded", 0.1),
        (20, 1, "failing", 0.05),
        (10, 0, "failing", 0.0),
    ],
)
async def test_status_follows_the_24h_success_rate(app_client, tenant, db, total, ok, status, rate):
    webhook_id = await webhook(app_client, tenant)
    await seed(db, tenant.id, webhook_id, pattern(total, ok))
    body = await health(app_client, tenant)
    assert (body["status"], body["successRate24h"], body["deliveries24hTotal"]) == (status, rate, total)
    assert (body["successes24h"], body["failures24h"]) == (ok, total - ok)
    assert body["webhooks"][0]["status"] == status


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        ("healthy", "failing", "failing"),
        ("healthy", "disabled", "healthy"),
        ("healthy", "auto_disabled", "auto_disabled"),
        ("disabled", "disabled", "disabled"),
        ("no_deliveries", "disabled", "no_deliveries"),
        ("healthy", "degraded", "degraded"),
    ],
)
async def test_the_phone_takes_its_least_healthy_webhook(app_client, tenant, db, first, second, expected):
    patterns = {
        "healthy": pattern(10, 10),
        "failing": pattern(10, 0),
        "degraded": pattern(10, 4),
        "disabled": pattern(4, 4),
        "auto_disabled": pattern(4, 0),
        "no_deliveries": [],
    }
    ids = []
    for state in (first, second):
        webhook_id = await webhook(app_client, tenant, phone_number_id=tenant.phone_number_id)
        await seed(db, tenant.id, webhook_id, patterns[state])
        async with db.sessions() as session:
            if state == "disabled":
                await session.execute(
                    update(WebhookEndpoint).where(WebhookEndpoint.id == webhook_id).values(enabled=False)
                )
            if state == "auto_disabled":
                await session.execute(
                    update(WebhookEndpoint)
                    .where(WebhookEndpoint.id == webhook_id)
                    .values(auto_disabled_at=NOW)
                )
            await session.commit()
        ids.append(webhook_id)
    body = await health(app_client, tenant)
    assert body["status"] == expected
    assert [w["webhookId"] for w in body["webhooks"]] == ids
    assert [w["status"] for w in body["webhooks"]] == [first, second]
    assert body["webhooksTotal"] == 2


async def test_figures_combine_the_covering_webhooks_and_windows(app_client, tenant, db):
    other_phone = await second_phone(app_client, tenant)
    filtered = await webhook(app_client, tenant, phone_number_id=tenant.phone_number_id)
    unfiltered = await webhook(app_client, tenant)
    elsewhere = await webhook(app_client, tenant, phone_number_id=other_phone)
    await seed(db, tenant.id, filtered, pattern(4, 3) + pattern(6, 0, ago=timedelta(days=3)))
    await seed(db, tenant.id, unfiltered, pattern(2, 2) + [(timedelta(days=9), True)])
    await seed(db, tenant.id, elsewhere, pattern(50, 0))
    body = await health(app_client, tenant)
    assert [w["webhookId"] for w in body["webhooks"]] == [filtered, unfiltered]
    figures = (body["deliveries24hTotal"], body["successes24h"], body["successRate24h"])
    assert figures == (6, 5, round(5 / 6, 4))
    assert (body["deliveries7dTotal"], body["successRate7d"]) == (12, round(5 / 12, 4))
    assert body["status"] == "healthy"
    assert body["lastDeliveryAt"] == iso_millis(NOW - HOUR)
    assert body["lastFailureAt"] == iso_millis(NOW - HOUR - timedelta(seconds=3))
    assert body["lastSuccessAt"] == iso_millis(NOW - HOUR)
    [first, second] = body["webhooks"]
    assert (first["successRate7d"], second["successRate7d"]) == (0.3, 1.0)
    assert body["thresholds"] == {"failingBelow": 0.1, "healthyAbove": 0.5}
    other = await health(app_client, tenant, other_phone)
    assert [w["webhookId"] for w in other["webhooks"]] == [unfiltered, elsewhere]
    assert other["status"] == "failing"


@pytest.mark.parametrize(
    ("query", "status", "code"),
    [("", 400, "MISSING_REQUIRED_FIELD"), ("?phone_number_id=42", 400, "INVALID_PHONE_NUMBER_ID")],
)
async def test_phone_is_required_and_must_exist(app_client, tenant, query, status, code):
    response = await app_client.get(f"/v1/webhooks/health-by-phone{query}", headers=tenant.headers())
    assert response.status_code == status and response.json()["code"] == code
    assert response.json()["details"]["field"] == "phone_number_id"


async def test_another_tenants_phone_is_forbidden(app_client, tenant, other_tenant):
    response = await app_client.get(
        f"/v1/webhooks/health-by-phone?phone_number_id={other_tenant.phone_number_id}",
        headers=tenant.headers(),
    )
    assert response.status_code == 403 and response.json()["code"] == "PHONE_NUMBER_NOT_IN_TENANT"


async def test_200k_attempts_stay_fast_and_use_the_index(app_client, tenant, db, databases):
    other_phone = await second_phone(app_client, tenant)
    covering = [
        await webhook(app_client, tenant, phone_number_id=tenant.phone_number_id),
        await webhook(app_client, tenant),
    ]
    others = [await webhook(app_client, tenant, phone_number_id=other_phone) for _ in range(18)]
    anchor = datetime.now(UTC)
    seeded_rows: list[tuple[datetime, bool]] = []
    started = time.perf_counter()
    for index, webhook_id in enumerate(covering + others):
        # 10k attempts spread over 10 days; every third fails, a different phase per webhook.
        # No attempt within 10 minutes of the 24 h and 7 d edges: the service's own clock runs a few
        # seconds behind the test's, and an attempt crossing an edge would make the count flaky.
        rows = [
            (timedelta(seconds=n * 86.4 + index), (n + index) % 3 != 0)
            for n in range(10_000)
            if min(abs(n * 86.4 - 86_400), abs(n * 86.4 - 604_800)) > 600
        ]
        if webhook_id in covering:
            seeded_rows += [(anchor - ago, ok) for ago, ok in rows]
        await seed(db, tenant.id, webhook_id, rows, now=anchor)
    seeded = time.perf_counter() - started
    async with db.engine.begin() as conn:
        await conn.execute(text("ANALYZE"))
    asked_at = datetime.now(UTC)
    started = time.perf_counter()
    body = await health(app_client, tenant)
    elapsed = time.perf_counter() - started
    print(f"\nhealth-by-phone over 200k attempts: {elapsed * 1000:.1f} ms (seeding took {seeded:.1f} s)")
    day = [ok for at, ok in seeded_rows if at >= asked_at - timedelta(hours=24)]
    week = [ok for at, ok in seeded_rows if at >= asked_at - timedelta(days=7)]
    expected = {"24h": len(day), "ok24h": sum(day), "7d": len(week), "ok7d": sum(week)}
    assert body["deliveries24hTotal"] == expected["24h"] and body["successes24h"] == expected["ok24h"]
    assert body["deliveries7dTotal"] == expected["7d"]
    assert body["successRate7d"] == round(expected["ok7d"] / expected["7d"], 4)
    assert body["status"] == "healthy" and len(body["webhooks"]) == 2
    async with db.engine.connect() as conn:
        compiled = window_counts(covering, now=NOW).compile(
            dialect=conn.dialect, compile_kwargs={"render_postcompile": True}
        )
        params = compiled.params
        if compiled.positiontup:
            params = tuple(compiled.params[name] for name in compiled.positiontup)
        prefix = "EXPLAIN QUERY PLAN " if conn.dialect.name == "sqlite" else "EXPLAIN "
        plan = " ".join(str(row) for row in await conn.exec_driver_sql(prefix + str(compiled), params))
    print(f"plan: {plan}")
    assert "ix_webhook_attempts_webhook_time" in plan
