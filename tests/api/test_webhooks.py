"""Webhook CRUD, validation, roles, test dispatch guard, reactivation and tenant isolation."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import httpx
import pytest
from sqlalchemy import update

from switchboard.activities.workflow_starts import notification_workflow_id
from switchboard.api.app import create_app
from switchboard.domain.events import ALL_EVENT_KINDS, EVENT_GROUPS
from switchboard.domain.secrets_box import open_sealed
from switchboard.models.events import WebhookEndpoint
from switchboard.settings import Settings
from tests.conftest import make_settings
from tests.support.tenants import TenantFixture, provision_tenant
from tests.workflows.test_webhook_support import Db

HOOK = "https://hooks.example.com/switchboard"


async def create(client: httpx.AsyncClient, tenant: TenantFixture, **body: object) -> dict:
    response = await client.post("/v1/webhooks", json={"url": HOOK, **body}, headers=tenant.headers())
    assert response.status_code == 201, response.text
    return dict(response.json())


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[Db]:
    handle = Db(database_url)
    yield handle
    await handle.close()


async def test_create_returns_secret_once_and_stores_it_sealed(app_client, tenant, db, settings: Settings):
    body = await create(app_client, tenant, description="orders", events=["Contacts", "channel.message.read"])
    assert body["secret"].startswith("whsec_") and len(body["secret"]) > 40
    assert body["auto_disabled_at"] is None and body["enabled"] is True
    assert body["events"] == ["channel.message.read", *EVENT_GROUPS["Contacts"]]
    assert body["all_events"] is False and body["description"] == "orders"
    stored = await db.webhook(body["id"])
    assert body["secret"] not in stored.secret_encrypted
    assert (
        open_sealed(settings.secrets_key_bytes, stored.secret_encrypted, associated_data=body["id"])
        == body["secret"]
    )
    fetched = (await app_client.get(f"/v1/webhooks/{body['id']}", headers=tenant.headers())).json()
    assert "secret" not in fetched
    assert fetched == {k: v for k, v in body.items() if k != "secret"}


async def test_omitted_events_mean_all(app_client, tenant):
    body = await create(app_client, tenant)
    assert body["events"] == list(ALL_EVENT_KINDS) and body["all_events"] is True


@pytest.mark.parametrize(
    ("payload", "status", "code", "field"),
    [
        ({"url": "http://hooks.example.com/x"}, 400, "VALIDATION_FAILED", "url"),
        ({"url": "ftp://hooks.example.com/x"}, 400, "VALIDATION_FAILED", "url"),
        ({"url": "hooks.example.com/x"}, 400, "VALIDATION_FAILED", "url"),
        ({"events": ["channel.message.bogus"]}, 400, "VALIDATION_FAILED", "events"),
        ({"events": []}, 400, "VALIDATION_FAILED", "events"),
        ({"description": "x" * 501}, 400, "VALIDATION_FAILED", "description"),
        ({"secret": "mine"}, 400, "VALIDATION_FAILED", "secret"),
        ({"url": None}, 400, "VALIDATION_FAILED", "url"),
        ({"phone_number_id": "123"}, 400, "INVALID_PHONE_NUMBER_ID", "phone_number_id"),
    ],
)
async def test_create_validation(app_client, tenant, payload, status, code, field):
    response = await app_client.post("/v1/webhooks", json={"url": HOOK, **payload}, headers=tenant.headers())
    body = response.json()
    assert response.status_code == status, body
    assert (body["statusCode"], body["error"], body["code"]) == (status, "Bad Request", code)
    assert body["details"]["field"] == field


async def test_missing_url_and_unknown_kind_details(app_client, tenant):
    missing = await app_client.post("/v1/webhooks", json={}, headers=tenant.headers())
    assert missing.status_code == 400 and missing.json()["code"] == "MISSING_REQUIRED_FIELD"
    assert missing.json()["details"] == {"field": "url"}
    unknown = await app_client.post(
        "/v1/webhooks", json={"url": HOOK, "events": ["Nope"]}, headers=tenant.headers()
    )
    assert unknown.json()["details"]["allowed"] == list(ALL_EVENT_KINDS)


async def test_phone_filter_must_be_the_tenants(app_client, tenant, other_tenant):
    own = await create(app_client, tenant, phone_number_id=tenant.phone_number_id)
    assert own["phone_number_id"] == tenant.phone_number_id
    response = await app_client.post(
        "/v1/webhooks",
        json={"url": HOOK, "phone_number_id": other_tenant.phone_number_id},
        headers=tenant.headers(),
    )
    assert response.status_code == 403
    assert response.json()["code"] == "PHONE_NUMBER_NOT_IN_TENANT"


@pytest.fixture
async def strict_client(database_url: str, temporal_env) -> AsyncIterator[httpx.AsyncClient]:
    """The API of a deployment that refuses private egress (production default)."""
    settings = make_settings(
        database_url, temporal_env.client.service_client.config.target_host, tool_egress_allow_private=False
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://sb.test"
        ) as client:
            yield client


@pytest.mark.parametrize(
    ("url", "allowed_when_private_allowed"),
    [
        ("http://127.0.0.1:9000/hook", True),
        ("http://localhost:9000/hook", True),
        ("https://127.0.0.1/hook", True),
        ("https://10.1.2.3/hook", True),
        ("https://169.254.169.254/latest", True),
        ("http://10.1.2.3/hook", False),
    ],
)
async def test_private_urls_need_private_egress(strict_client, app_client, url, allowed_when_private_allowed):
    owner = await provision_tenant(strict_client, "adm_test_" + "k" * 24)
    refused = await strict_client.post("/v1/webhooks", json={"url": url}, headers=owner.headers())
    assert refused.status_code == 400 and refused.json()["details"]["field"] == "url"
    relaxed = await app_client.post("/v1/webhooks", json={"url": url}, headers=owner.headers())
    assert (relaxed.status_code == 201) is allowed_when_private_allowed, relaxed.text


async def test_list_is_enveloped_paginated_and_scoped(app_client, tenant, other_tenant):
    ids = [(await create(app_client, tenant))["id"] for _ in range(3)]
    filtered = await create(app_client, tenant, phone_number_id=tenant.phone_number_id)
    await create(app_client, other_tenant)
    page = (await app_client.get("/v1/webhooks?per_page=2&page=2", headers=tenant.headers())).json()
    assert (page["page"], page["per_page"], page["total"], page["has_more"]) == (2, 2, 4, False)
    assert [w["id"] for w in page["data"]] == [ids[2], filtered["id"]]
    by_phone = await app_client.get(
        f"/v1/webhooks?phone_number_id={tenant.phone_number_id}", headers=tenant.headers()
    )
    assert [w["id"] for w in by_phone.json()["data"]] == [filtered["id"]]
    too_big = await app_client.get("/v1/webhooks?per_page=101", headers=tenant.headers())
    assert too_big.status_code == 400


async def test_patch_changes_fields_and_null_events_mean_all(app_client, tenant):
    hook = await create(app_client, tenant, events=["Statuses"])
    response = await app_client.patch(
        f"/v1/webhooks/{hook['id']}",
        json={
            "url": "https://other.example.com/in",
            "events": None,
            "phone_number_id": tenant.phone_number_id,
            "description": "new",
            "enabled": False,
        },
        headers=tenant.headers(),
    )
    body = response.json()
    assert response.status_code == 200, body
    assert body["url"] == "https://other.example.com/in" and body["all_events"] is True
    assert (body["phone_number_id"], body["description"], body["enabled"]) == (
        tenant.phone_number_id,
        "new",
        False,
    )
    cleared = await app_client.patch(
        f"/v1/webhooks/{hook['id']}", json={"phone_number_id": None}, headers=tenant.headers()
    )
    assert cleared.json()["phone_number_id"] is None and cleared.json()["url"] == body["url"]


@pytest.mark.parametrize(
    ("patch", "code"),
    [
        ({"enabled": None}, "VALIDATION_FAILED"),
        ({"url": "http://x.example.com"}, "VALIDATION_FAILED"),
        ({"events": ["Nope"]}, "VALIDATION_FAILED"),
        ({"enabled": "maybe"}, "VALIDATION_FAILED"),
    ],
)
async def test_patch_validation(app_client, tenant, patch, code):
    hook = await create(app_client, tenant)
    response = await app_client.patch(f"/v1/webhooks/{hook['id']}", json=patch, headers=tenant.headers())
    assert response.status_code == 400 and response.json()["code"] == code


async def test_changes_need_owner_or_admin_role(app_client, tenant):
    hook = await create(app_client, tenant)
    member = tenant.headers(tenant.member_key)
    for method, path, body in [
        ("POST", "/v1/webhooks", {"url": HOOK}),
        ("PATCH", f"/v1/webhooks/{hook['id']}", {"enabled": False}),
        ("DELETE", f"/v1/webhooks/{hook['id']}", None),
        ("POST", f"/v1/webhooks/{hook['id']}/reactivate", None),
    ]:
        response = await app_client.request(method, path, json=body, headers=member)
        assert response.status_code == 403 and response.json()["code"] == "ROLE_FORBIDDEN", (method, path)
    assert (await app_client.get(f"/v1/webhooks/{hook['id']}", headers=member)).status_code == 200


@pytest.mark.parametrize(
    ("method", "suffix", "body"),
    [
        ("GET", "", None),
        ("PATCH", "", {"enabled": False}),
        ("DELETE", "", None),
        ("POST", "/test", None),
        ("POST", "/reactivate", None),
    ],
)
async def test_other_tenants_webhook_is_404(app_client, tenant, other_tenant, method, suffix, body):
    hook = await create(app_client, other_tenant)
    response = await app_client.request(
        method, f"/v1/webhooks/{hook['id']}{suffix}", json=body, headers=tenant.headers()
    )
    assert response.status_code == 404
    assert response.json() == {
        "statusCode": 404,
        "message": f"webhook {hook['id']} not found",
        "error": "Not Found",
        "code": "NOT_FOUND",
    }
    assert (
        await app_client.get(f"/v1/webhooks/{hook['id']}", headers=other_tenant.headers())
    ).status_code == 200


async def test_delete_removes_it(app_client, tenant):
    hook = await create(app_client, tenant)
    response = await app_client.delete(f"/v1/webhooks/{hook['id']}", headers=tenant.headers())
    assert response.json() == {"id": hook["id"], "deleted": True}
    assert (await app_client.get(f"/v1/webhooks/{hook['id']}", headers=tenant.headers())).status_code == 404


async def test_non_json_body_is_415(app_client, tenant):
    response = await app_client.post(
        "/v1/webhooks", content=b"url=x", headers={**tenant.headers(), "Content-Type": "text/plain"}
    )
    assert response.status_code == 415 and response.json()["statusCode"] == 415


async def test_test_dispatch_refuses_a_disabled_webhook(app_client, tenant):
    hook = await create(app_client, tenant)
    await app_client.patch(f"/v1/webhooks/{hook['id']}", json={"enabled": False}, headers=tenant.headers())
    response = await app_client.post(f"/v1/webhooks/{hook['id']}/test", headers=tenant.headers())
    assert response.status_code == 409 and response.json()["code"] == "WEBHOOK_DISABLED"


async def auto_disable(db: Db, webhook_id: str) -> None:
    async with db.sessions() as session:
        await session.execute(
            update(WebhookEndpoint)
            .where(WebhookEndpoint.id == webhook_id)
            .values(
                auto_disabled_at=datetime(2026, 1, 2, tzinfo=UTC),
                auto_disabled_reason="test",
                health_state="auto_disabled",
                failing_since=datetime(2025, 12, 20, tzinfo=UTC),
                exhausted_since_success=3,
            )
        )
        await session.commit()


async def test_reactivate_is_409_unless_auto_disabled(app_client, tenant):
    hook = await create(app_client, tenant)
    response = await app_client.post(f"/v1/webhooks/{hook['id']}/reactivate", headers=tenant.headers())
    assert response.status_code == 409
    assert response.json()["code"] == "WEBHOOK_NOT_AUTO_DISABLED"


@pytest.mark.parametrize("manually_disabled", [False, True])
async def test_reactivate_clears_only_the_auto_disabled_state(
    app_client, tenant, db, manually_disabled, worker, temporal_env
):
    hook = await create(app_client, tenant)
    if manually_disabled:
        await app_client.patch(
            f"/v1/webhooks/{hook['id']}", json={"enabled": False}, headers=tenant.headers()
        )
    await auto_disable(db, hook["id"])
    shown = (await app_client.get(f"/v1/webhooks/{hook['id']}", headers=tenant.headers())).json()
    assert shown["auto_disabled_at"] == "2026-01-02T00:00:00.000Z"
    enabled_patch = await app_client.patch(
        f"/v1/webhooks/{hook['id']}", json={"enabled": True}, headers=tenant.headers()
    )
    assert enabled_patch.json()["auto_disabled_at"] is not None
    if manually_disabled:
        await app_client.patch(
            f"/v1/webhooks/{hook['id']}", json={"enabled": False}, headers=tenant.headers()
        )
    response = await app_client.post(f"/v1/webhooks/{hook['id']}/reactivate", headers=tenant.headers())
    body = response.json()
    assert response.status_code == 200, body
    assert body["auto_disabled_at"] is None and body["auto_disabled_reason"] is None
    assert body["enabled"] is (not manually_disabled)
    stored = await db.webhook(hook["id"])
    assert (stored.failing_since, stored.exhausted_since_success, stored.health_state) == (None, 0, None)
    [note] = await db.notifications("webhook.reactivated")
    # The notice is sent by a worker (SendOwnerNotification), never inside the request.
    sent = temporal_env.client.get_workflow_handle(notification_workflow_id(note.id))
    assert await sent.result() == "no_recipient"
    [note] = await db.notifications("webhook.reactivated")
    assert (note.severity, note.webhook_id, note.delivery) == ("info", hook["id"], "no_recipient")
    again = await app_client.post(f"/v1/webhooks/{hook['id']}/reactivate", headers=tenant.headers())
    assert again.status_code == 409
    assert len(await db.notifications("webhook.reactivated")) == 1
