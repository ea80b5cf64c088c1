"""Templates (create, sync, send rules), usernames and media uploads through the API."""

from __future__ import annotations

import httpx
import pytest

from tests.support.fake_channel import FakeChannel, Scripted, cloud_error
from tests.support.tenants import TenantFixture

ORDER_TEMPLATE = {
    "name": "order_update",
    "language": "en_US",
    "category": "UTILITY",
    "components": [
        {"type": "BODY", "text": "Order {{1}} ships on {{2}}", "example": {"body_text": [["#1", "Monday"]]}}
    ],
}
NAMED_TEMPLATE = {
    "name": "order_named",
    "language": "en_US",
    "category": "UTILITY",
    "parameter_format": "NAMED",
    "components": [{"type": "BODY", "text": "Hi {{first_name}}, order {{order_id}} is ready"}],
    "body_text_named_params": [
        {"param_name": "first_name", "example": "Ana"},
        {"param_name": "order_id", "example": "#1"},
    ],
}


def _template_send(tenant: TenantFixture, name: str, parameters: list[dict]) -> dict:
    return {
        "phone_number_id": tenant.phone_number_id,
        "to": "14155550100",
        "type": "template",
        "template": {
            "name": name,
            "language": {"code": "en_US"},
            "components": [{"type": "body", "parameters": parameters}],
        },
    }


async def test_create_template_goes_upstream_and_is_stored_pending(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel
):
    response = await app_client.post(
        f"/v1/wabas/{tenant.waba_id}/templates", json=NAMED_TEMPLATE, headers=tenant.headers()
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert (body["status"], body["parameter_format"], body["name"]) == ("PENDING", "NAMED", "order_named")
    sent = channel.template_creates[-1]
    assert sent["waba_id"] == tenant.waba_id and sent["parameter_format"] == "named"
    listed = await app_client.get(f"/v1/wabas/{tenant.waba_id}/templates", headers=tenant.headers())
    assert [t["name"] for t in listed.json()["data"]] == ["order_named"]


@pytest.mark.parametrize(
    "change",
    [
        {
            "components": [{"type": "BODY", "text": "Hi {{FirstName}}"}],
            "parameter_format": "NAMED",
            "body_text_named_params": [{"param_name": "FirstName", "example": "x"}],
        },
        {
            "components": [{"type": "BODY", "text": "Hi {{first_name}} {{1}}"}],
            "parameter_format": "NAMED",
            "body_text_named_params": [{"param_name": "first_name", "example": "x"}],
        },
    ],
    ids=["named-not-snake-case", "named-mixed-with-positional"],
)
async def test_template_validation_refuses_bad_named_variables(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel, change: dict
):
    response = await app_client.post(
        f"/v1/wabas/{tenant.waba_id}/templates", json={**NAMED_TEMPLATE, **change}, headers=tenant.headers()
    )
    assert response.status_code == 400, response.text
    assert response.json()["statusCode"] == 400
    assert channel.template_creates == []


async def test_other_tenants_waba_is_waba_not_in_tenant(
    app_client: httpx.AsyncClient, tenant: TenantFixture, other_tenant: TenantFixture, channel: FakeChannel
):
    for method, path in (
        ("POST", f"/v1/wabas/{other_tenant.waba_id}/templates"),
        ("POST", f"/v1/wabas/{other_tenant.waba_id}/templates/sync"),
    ):
        response = await app_client.request(method, path, json=ORDER_TEMPLATE, headers=tenant.headers())
        assert response.status_code == 403
        assert response.json()["code"] == "WABA_NOT_IN_TENANT"


async def _sync(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel, status: str
) -> dict:
    channel.templates[tenant.waba_id] = [
        {
            "id": "111",
            "name": "order_update",
            "language": "en_US",
            "category": "UTILITY",
            "status": status,
            "components": ORDER_TEMPLATE["components"],
        },
        {
            "id": "222",
            "name": "legacy",
            "language": "es",
            "status": "APPROVED",
            "components": [{"type": "BODY", "text": "Hola"}],
        },
    ]
    response = await app_client.post(f"/v1/wabas/{tenant.waba_id}/templates/sync", headers=tenant.headers())
    assert response.status_code == 200, response.text
    return response.json()


async def test_sync_persists_status_and_parameter_format(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel
):
    synced = await _sync(app_client, tenant, channel, "APPROVED")
    assert synced["synced"] == 2
    by_name = {t["name"]: t for t in synced["data"]}
    assert by_name["legacy"]["parameter_format"] == "POSITIONAL"
    assert by_name["order_update"]["status"] == "APPROVED"
    again = await _sync(app_client, tenant, channel, "PAUSED")
    assert {t["name"]: t["status"] for t in again["data"]}["order_update"] == "PAUSED"


@pytest.mark.parametrize("status", ["PENDING", "REJECTED", "PAUSED"])
async def test_unapproved_template_is_refused_before_upstream(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel, worker, status: str
):
    await _sync(app_client, tenant, channel, status)
    response = await app_client.post(
        "/v1/messages",
        json=_template_send(
            tenant, "order_update", [{"type": "text", "text": "#9"}, {"type": "text", "text": "Friday"}]
        ),
        headers=tenant.headers(),
    )
    assert response.status_code == 400
    assert response.json()["code"] == "TEMPLATE_NOT_APPROVED"
    assert channel.sends == []


async def test_variable_count_mismatch_and_rendered_body(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel, worker
):
    await _sync(app_client, tenant, channel, "APPROVED")
    wrong = await app_client.post(
        "/v1/messages",
        json=_template_send(tenant, "order_update", [{"type": "text", "text": "#9"}]),
        headers=tenant.headers(),
    )
    assert wrong.status_code == 400
    assert wrong.json()["code"] == "TEMPLATE_VARIABLE_COUNT_MISMATCH"
    ok = await app_client.post(
        "/v1/messages",
        json=_template_send(
            tenant, "order_update", [{"type": "text", "text": "#9"}, {"type": "text", "text": "Friday"}]
        ),
        headers=tenant.headers(),
    )
    assert ok.status_code == 201, ok.text
    assert ok.json()["rendered_body"] == "Order #9 ships on Friday"
    assert channel.sends[-1]["template"]["components"][0]["parameters"][1] == {
        "type": "text",
        "text": "Friday",
    }


async def test_username_set_approved_and_stored(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel
):
    response = await app_client.post(
        f"/v1/phone-numbers/{tenant.phone_id}/username",
        json={"username": "acme.store", "transferAction": "none"},
        headers=tenant.headers(),
    )
    assert response.status_code == 200, response.text
    assert response.json()["ok"] is True and response.json()["status"] == "approved"
    assert channel.username_requests[-1] == {
        "phone_number_id": tenant.phone_number_id,
        "username": "acme.store",
        "transfer_action": "none",
    }
    phone = await app_client.get(f"/v1/phone-numbers/{tenant.phone_id}", headers=tenant.headers())
    assert (phone.json()["username"], phone.json()["username_status"]) == ("acme.store", "approved")


async def test_username_reserved_while_upstream_processes(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel
):
    channel.username_script.append(Scripted(200, {"status": "reserved"}))
    response = await app_client.post(
        f"/v1/phone-numbers/{tenant.phone_id}/username",
        json={"username": "acme_shop"},
        headers=tenant.headers(),
    )
    assert response.json()["status"] == "reserved"


@pytest.mark.parametrize(
    ("upstream_code", "status", "code"),
    [
        (147001, 409, "USERNAME_TAKEN"),
        (147002, 403, "USERNAME_NOT_ELIGIBLE"),
        (147005, 409, "USERNAME_IN_USE_ON_OTHER_PHONE"),
    ],
)
async def test_username_upstream_errors_are_translated(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    channel: FakeChannel,
    upstream_code: int,
    status: int,
    code: str,
):
    channel.username_script.append(Scripted(400, cloud_error(upstream_code, "nope")))
    response = await app_client.post(
        f"/v1/phone-numbers/{tenant.phone_id}/username",
        json={"username": "acme.store"},
        headers=tenant.headers(),
    )
    assert response.status_code == status, response.text
    assert response.json()["code"] == code


@pytest.mark.parametrize("username", ["ab", "www.acme", "acme..store", "1234", "a" * 36, "acme store"])
async def test_username_format_rules(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel, username: str
):
    response = await app_client.post(
        f"/v1/phone-numbers/{tenant.phone_id}/username", json={"username": username}, headers=tenant.headers()
    )
    assert response.status_code == 400, response.text
    assert channel.username_requests == []


async def test_username_is_owner_or_admin_only(
    app_client: httpx.AsyncClient, tenant: TenantFixture, other_tenant: TenantFixture, channel: FakeChannel
):
    member = await app_client.post(
        f"/v1/phone-numbers/{tenant.phone_id}/username",
        json={"username": "acme.store"},
        headers=tenant.headers(tenant.member_key),
    )
    assert member.status_code == 403 and member.json()["code"] == "ROLE_FORBIDDEN"
    foreign = await app_client.post(
        f"/v1/phone-numbers/{other_tenant.phone_id}/username",
        json={"username": "acme.store"},
        headers=tenant.headers(),
    )
    assert foreign.status_code == 404


PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


async def test_media_upload_returns_reusable_id(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel
):
    response = await app_client.post(
        "/v1/media",
        data={"phone_number_id": tenant.phone_number_id, "type": "image/png"},
        files={"file": ("cat.png", PNG, "image/png")},
        headers=tenant.headers(),
    )
    assert response.status_code == 201, response.text
    assert response.json()["id"].startswith("media-")
    assert channel.uploads[-1] == {
        "phone_number_id": tenant.phone_number_id,
        "type": "image/png",
        "size": len(PNG),
        "filename": "cat.png",
    }


@pytest.mark.parametrize(
    ("mime", "size", "code"),
    [
        ("application/zip", 10, "UNSUPPORTED_MEDIA_TYPE"),
        ("image/png", 5 * 1024 * 1024 + 1, "MEDIA_TOO_LARGE"),
    ],
)
async def test_media_upload_checks_type_and_size(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    channel: FakeChannel,
    mime: str,
    size: int,
    code: str,
):
    response = await app_client.post(
        "/v1/media",
        data={"phone_number_id": tenant.phone_number_id, "type": mime},
        files={"file": ("f", b"x" * size, mime)},
        headers=tenant.headers(),
    )
    assert response.status_code == 400
    assert response.json()["code"] == code
    assert channel.uploads == []


async def test_upload_media_sends_with_the_uploaded_id(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel, worker
):
    response = await app_client.post(
        "/v1/messages/upload-media",
        data={
            "phone_number_id": tenant.phone_number_id,
            "to": "14155550100",
            "type": "image/png",
            "caption": "cat",
        },
        files={"file": ("cat.png", PNG, "image/png")},
        headers=tenant.headers(),
    )
    assert response.status_code == 201, response.text
    assert response.json()["message_type"] == "image"
    media_id = channel.sends[-1]["image"]["id"]
    assert media_id.startswith("media-") and channel.sends[-1]["image"]["caption"] == "cat"


async def test_upload_media_requires_to(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel
):
    response = await app_client.post(
        "/v1/messages/upload-media",
        data={"phone_number_id": tenant.phone_number_id, "type": "image/png"},
        files={"file": ("cat.png", PNG, "image/png")},
        headers=tenant.headers(),
    )
    assert response.status_code == 400
    assert response.json()["code"] == "MISSING_REQUIRED_FIELD"
    assert response.json()["details"]["field"] == "to"
    assert channel.uploads == []


async def test_template_refused_upstream_is_an_error_and_not_stored(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel
):
    channel.template_script.append(Scripted(400, cloud_error(100, "Invalid parameter", details="name taken")))
    response = await app_client.post(
        f"/v1/wabas/{tenant.waba_id}/templates", json=ORDER_TEMPLATE, headers=tenant.headers()
    )
    assert response.status_code == 400, response.text
    assert (response.json()["statusCode"], response.json()["code"]) == (400, "100")
    listed = await app_client.get(f"/v1/wabas/{tenant.waba_id}/templates", headers=tenant.headers())
    assert listed.json()["total"] == 0


async def test_sandbox_template_create_contacts_nothing(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel
):
    response = await app_client.post(
        f"/v1/wabas/{tenant.waba_id}/templates", json=ORDER_TEMPLATE, headers=tenant.headers(tenant.test_key)
    )
    assert response.status_code == 201, response.text
    assert response.json()["id"].startswith("sandbox-")
    assert channel.template_creates == []
    listed = await app_client.get(f"/v1/wabas/{tenant.waba_id}/templates", headers=tenant.headers())
    assert listed.json()["total"] == 0
