"""Tenants read and set where owner notifications go, and list what was raised."""

from __future__ import annotations

import httpx

from switchboard.models.events import OwnerNotification
from switchboard.store.database import create_engine, session_factory, unit_of_work
from tests.support.tenants import TenantFixture


async def test_owner_sets_the_notification_email_members_cannot(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    member = await app_client.patch(
        "/v1/notification-settings",
        json={"notification_email": "x@acme.test"},
        headers=tenant.headers(tenant.member_key),
    )
    assert member.status_code == 403 and member.json()["code"] == "ROLE_FORBIDDEN"
    owner = await app_client.patch(
        "/v1/notification-settings", json={"notification_email": "ops@acme.test"}, headers=tenant.headers()
    )
    assert owner.status_code == 200 and owner.json() == {"notification_email": "ops@acme.test"}
    read = await app_client.get("/v1/notification-settings", headers=tenant.headers(tenant.member_key))
    assert read.json() == {"notification_email": "ops@acme.test"}
    bad = await app_client.patch(
        "/v1/notification-settings", json={"notification_email": "not-an-email"}, headers=tenant.headers()
    )
    assert bad.status_code == 400 and bad.json()["details"]["field"] == "notification_email"
    cleared = await app_client.patch(
        "/v1/notification-settings", json={"notification_email": None}, headers=tenant.headers()
    )
    assert cleared.json() == {"notification_email": None}


async def test_notifications_are_listed_per_tenant(
    app_client: httpx.AsyncClient, tenant: TenantFixture, other_tenant: TenantFixture, settings
):
    engine = create_engine(settings.database_url)
    async with unit_of_work(session_factory(engine)) as session:
        session.add(
            OwnerNotification(
                tenant_id=tenant.id,
                kind="webhook.disabled_auto",
                severity="critical",
                transition_key="t1",
                subject="Webhook disabled",
                body="b",
                delivery="stored",
            )
        )
        session.add(
            OwnerNotification(
                tenant_id=other_tenant.id,
                kind="webhook.degraded",
                severity="warning",
                transition_key="t2",
                subject="Degraded",
                body="b",
            )
        )
    await engine.dispose()
    listed = (await app_client.get("/v1/notifications", headers=tenant.headers())).json()
    assert listed["total"] == 1
    assert (listed["data"][0]["kind"], listed["data"][0]["severity"]) == ("webhook.disabled_auto", "critical")
