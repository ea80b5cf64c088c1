"""Every error path answers the spec's body."""

from __future__ import annotations

import json

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
    assert isinstance(body["code"], str) and body["code"], "every error has a code"
    if code is not None:
        assert body["code"] == code
    # One serializer for every error, the edge's own answers included: compact, UTF-8 JSON.
    assert response.text == json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    assert "Traceback" not in response.text
    return body


async def test_unknown_route_is_404_body(app_client: httpx.AsyncClient):
    body = assert_error_body(await app_client.get("/v1/nope"), 404, "NOT_FOUND")
    assert body["error"] == "Not Found"


async def test_wrong_method_is_405_body(app_client: httpx.AsyncClient, tenant: TenantFixture):
    response = await app_client.put("/v1/phone-numbers", headers=tenant.headers())
    body = assert_error_body(response, 405, "METHOD_NOT_ALLOWED")
    assert body["error"] == "Method Not Allowed"
    assert response.headers["Allow"] == "GET, HEAD"


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("OPTIONS", "/v1/messages/mark-read", "POST"),
        ("GET", "/v1/messages/mark-read", "POST"),
        ("OPTIONS", "/v1/messages/media", "POST"),
        ("GET", "/v1/messages/upload-media", "POST"),
        ("DELETE", "/v1/webhooks/health-by-phone", "GET, HEAD"),
        ("PATCH", "/v1/webhooks/health-by-phone", "GET, HEAD"),
    ],
)
async def test_a_fixed_path_is_not_shadowed_by_a_parameter_route(
    app_client: httpx.AsyncClient, tenant: TenantFixture, method: str, path: str, allow: str
):
    """``/v1/messages/{message_id}`` must not answer for ``/v1/messages/mark-read``: not a 404 for a message
    called "mark-read", and not GET in the 405's Allow (as the OpenAPI document says)."""
    response = await app_client.request(method, path, headers=tenant.headers())
    assert_error_body(response, 405, "METHOD_NOT_ALLOWED")
    assert response.headers["Allow"] == allow


async def test_405_allow_names_every_method_of_the_path(app_client: httpx.AsyncClient, tenant: TenantFixture):
    """/v1/messages has one route per method; Allow lists them all, not just the first match."""
    response = await app_client.put("/v1/messages", headers=tenant.headers())
    assert_error_body(response, 405)
    assert response.headers["Allow"] == "GET, HEAD, POST"
    response = await app_client.put("/v1/agent-versions/av_x", headers=tenant.headers())
    assert_error_body(response, 405)
    assert set(response.headers["Allow"].split(", ")) == {"DELETE", "GET", "HEAD", "PATCH"}


async def test_openapi_documents_errors_limits_and_security(app_client: httpx.AsyncClient):
    doc = (await app_client.get("/openapi.json")).json()
    assert "HTTPValidationError" not in doc["components"]["schemas"]
    assert doc["components"]["schemas"]["Error"]["required"] == ["statusCode", "message", "error", "code"]
    assert doc["components"]["securitySchemes"]["ApiKey"]["name"] == "X-API-Key"
    listing = doc["paths"]["/v1/phone-numbers"]["get"]
    assert listing["security"] == [{"ApiKey": []}]
    params = {p["name"]: p["schema"] for p in listing["parameters"]}
    assert (params["page"]["minimum"], params["page"]["maximum"]) == (1, 10_000)
    assert (params["per_page"]["minimum"], params["per_page"]["maximum"]) == (1, 100)
    assert {"400", "401", "429", "500"} <= set(listing["responses"])
    assert "422" not in listing["responses"]
    assert listing["responses"]["429"]["headers"]["Retry-After"]["required"] is True
    assert "X-RateLimit-Remaining" in listing["responses"]["200"]["headers"]
    send = doc["paths"]["/v1/messages"]["post"]
    assert {"text", "template", "image"} <= set(
        send["requestBody"]["content"]["application/json"]["examples"]
    )
    assert {"403", "404", "409", "413", "415", "422", "429", "503"} <= set(send["responses"])
    assert {"Idempotency-Key"} == {p["name"] for p in send["parameters"]}
    admin = doc["paths"]["/v1/admin/agent-bindings/{binding_id}/secrets"]["post"]
    assert admin["security"] == [{"ApiKey": [], "AdminKey": []}]


async def test_page_out_of_range_is_400(app_client: httpx.AsyncClient, tenant: TenantFixture):
    body = assert_error_body(
        await app_client.get("/v1/phone-numbers?page=10001", headers=tenant.headers()), 400
    )
    assert body["details"]["field"] == "page"


async def test_non_json_body_is_415(app_client: httpx.AsyncClient):
    response = await app_client.post(
        "/v1/admin/tenants",
        content=b"name=x",
        headers={**ADMIN, "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert_error_body(response, 415, "UNSUPPORTED_MEDIA_TYPE")


async def test_missing_content_type_with_body_is_415(app_client: httpx.AsyncClient):
    response = await app_client.post("/v1/admin/tenants", content=b'{"name": "x"}', headers=ADMIN)
    assert_error_body(response, 415, "UNSUPPORTED_MEDIA_TYPE")


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
    from switchboard.api.app import create_app

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
    body = assert_error_body(response, 500, "INTERNAL_ERROR")
    assert "kaboom" not in response.text
    assert body["error"] == "Internal Server Error"
    assert "kaboom-internal-detail" in caplog.text
    assert "Traceback" in caplog.text or "RuntimeError" in caplog.text


async def test_oversized_json_body_is_413_before_anything_runs(app_client: httpx.AsyncClient):
    body = b'{"name": "' + b"x" * (1024 * 1024 + 10) + b'"}'
    response = await app_client.post(
        "/v1/admin/tenants", content=body, headers={**ADMIN, "Content-Type": "application/json"}
    )
    assert_error_body(response, 413, "PAYLOAD_TOO_LARGE")


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
    assert_error_body(response, 413, "PAYLOAD_TOO_LARGE")


@pytest.mark.parametrize(
    ("path", "method", "body", "field"),
    [
        ("/v1/notification-settings", "PATCH", {"notification_email": "\x00@x.io"}, "notification_email"),
        ("/v1/messages", "POST", {"type": "text", "text": {"body": "hi\x00"}}, "text.body"),
    ],
)
async def test_a_nul_character_anywhere_in_a_body_is_400_naming_the_field(
    app_client: httpx.AsyncClient, tenant: TenantFixture, path: str, method: str, body: dict, field: str
):
    """PostgreSQL text cannot hold U+0000: refused at the edge, on every database alike."""
    response = await app_client.request(method, path, json=body, headers=tenant.headers())
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "VALIDATION_FAILED"
    assert response.json()["details"] == {"field": field}
