"""Every error path answers the spec's body."""

from __future__ import annotations

import httpx
import pytest
from fastapi import APIRouter

from tests.conftest import ADMIN_KEY
from tests.support.tenants import TenantFixture

ADMIN = {"X-Admin-Key": ADMIN_KEY}


def assert_error_body(response: httpx.Response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["statusCode"] == status
    assert isinstance(body["message"], str) and body["message"]
    assert isinstance(body["error"], str) and body["error"]
    if code is not None:
        assert body["code"] == code
    assert "Traceback" not in response.text
    return body


async def test_unknown_route_is_404_body(app_client: httpx.AsyncClient):
    body = assert_error_body(await app_client.get("/v1/nope"), 404)
    assert body["error"] == "Not Found"


async def test_wrong_method_is_405_body(app_client: httpx.AsyncClient, tenant: TenantFixture):
    body = assert_error_body(await app_client.put("/v1/phone-numbers", headers=tenant.headers()), 405)
    assert body["error"] == "Method Not Allowed"


async def test_non_json_body_is_415(app_client: httpx.AsyncClient):
    response = await app_client.post(
        "/v1/admin/tenants",
        content=b"name=x",
        headers={**ADMIN, "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert_error_body(response, 415)


async def test_missing_content_type_with_body_is_415(app_client: httpx.AsyncClient):
    response = await app_client.post("/v1/admin/tenants", content=b'{"name": "x"}', headers=ADMIN)
    assert_error_body(response, 415)


async def test_json_with_charset_is_accepted(app_client: httpx.AsyncClient):
    response = await app_client.post(
        "/v1/admin/tenants",
        content=b'{"name": "x"}',
        headers={**ADMIN, "Content-Type": "application/json; charset=utf-8"},
    )
    assert response.status_code == 201


async def test_missing_required_field_names_the_field(app_client: httpx.AsyncClient):
    body = assert_error_body(
        await app_client.post("/v1/admin/tenants", json={"plan": "standard"}, headers=ADMIN),
        400,
        "MISSING_REQUIRED_FIELD",
    )
    assert body["details"]["field"] == "name"


async def test_malformed_json_is_400(app_client: httpx.AsyncClient):
    response = await app_client.post(
        "/v1/admin/tenants", content=b'{"name": ', headers={**ADMIN, "Content-Type": "application/json"}
    )
    assert_error_body(response, 400, "INVALID_JSON")


async def test_invalid_enum_value_is_400_with_field(app_client: httpx.AsyncClient):
    body = assert_error_body(
        await app_client.post("/v1/admin/tenants", json={"name": "x", "plan": "gold"}, headers=ADMIN),
        400,
        "VALIDATION_FAILED",
    )
    assert body["details"]["field"] == "plan"
    assert body["details"]["value"] == "gold"


@pytest.mark.parametrize("per_page", [0, 101])
async def test_per_page_out_of_range_is_400(
    app_client: httpx.AsyncClient, tenant: TenantFixture, per_page: int
):
    body = assert_error_body(
        await app_client.get(f"/v1/phone-numbers?per_page={per_page}", headers=tenant.headers()), 400
    )
    assert body["details"]["field"] == "per_page"


async def test_not_found_resource_body(app_client: httpx.AsyncClient, tenant: TenantFixture):
    assert_error_body(await app_client.get("/v1/phone-numbers/pn_missing", headers=tenant.headers()), 404)


async def test_unexpected_exception_is_500_body_with_logged_traceback(settings, caplog):
    from api.app import create_app

    app = create_app(settings)
    boom = APIRouter()

    @boom.get("/v1/_boom")
    async def explode() -> None:
        raise RuntimeError("kaboom-internal-detail")

    app.include_router(boom)
    caplog.set_level("ERROR")
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            response = await client.get("/v1/_boom")
    body = assert_error_body(response, 500)
    assert "kaboom" not in response.text
    assert body["error"] == "Internal Server Error"
    assert "kaboom-internal-detail" in caplog.text
    assert "Traceback" in caplog.text or "RuntimeError" in caplog.text


async def test_oversized_json_body_is_413_before_anything_runs(app_client: httpx.AsyncClient):
    body = b'{"name": "' + b"x" * (1024 * 1024 + 10) + b'"}'
    response = await app_client.post(
        "/v1/admin/tenants", content=body, headers={**ADMIN, "Content-Type": "application/json"}
    )
    assert_error_body(response, 413)


async def test_media_routes_take_large_bodies(app_client: httpx.AsyncClient, tenant: TenantFixture):
    """A 2 MB upload passes the body limit (and is then judged by the media rules)."""
    response = await app_client.post(
        "/v1/media",
        data={"phone_number_id": tenant.phone_number_id, "type": "application/zip"},
        files={"file": ("f.zip", b"x" * (2 * 1024 * 1024), "application/zip")},
        headers=tenant.headers(),
    )
    assert response.status_code == 400
    assert response.json()["code"] == "UNSUPPORTED_MEDIA_TYPE"


async def test_oversized_chunked_body_is_413(app_client: httpx.AsyncClient):
    async def chunks():
        for _ in range(20):
            yield b"x" * (64 * 1024)

    response = await app_client.post(
        "/v1/admin/tenants", content=chunks(), headers={**ADMIN, "Content-Type": "application/json"}
    )
    assert_error_body(response, 413)
