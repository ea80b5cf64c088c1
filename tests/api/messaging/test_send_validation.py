"""The send payload rules through HTTP, identical for live and sandbox keys; nothing goes upstream."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support.fake_channel import FakeChannel
from tests.support.tenants import TenantFixture

TO = "14155550100"
TEXT = {"type": "text", "text": {"body": "hi"}}


def button(i: int) -> dict[str, Any]:
    return {"type": "reply", "reply": {"id": f"b{i}", "title": f"Option {i}"}}


FOUR_BUTTONS = {
    "type": "button",
    "body": {"text": "Pick"},
    "action": {"buttons": [button(i) for i in range(4)]},
}
ELEVEN_ROWS = {
    "type": "list",
    "body": {"text": "Pick"},
    "action": {
        "button": "Open",
        "sections": [
            {"title": "A", "rows": [{"id": f"a{i}", "title": f"A {i}"} for i in range(6)]},
            {"title": "B", "rows": [{"id": f"b{i}", "title": f"B {i}"} for i in range(5)]},
        ],
    },
}

# (id, payload without phone_number_id unless the case is about it, code, details.field)
INVALID: list[tuple[str, dict[str, Any], str, str]] = [
    (
        "no-phone-number-id",
        {"phone_number_id": None, "to": TO, **TEXT},
        "MISSING_REQUIRED_FIELD",
        "phone_number_id",
    ),
    ("neither-to-nor-recipient", TEXT, "MISSING_REQUIRED_FIELD", "to"),
    ("to-with-plus", {"to": "+14155550100", **TEXT}, "INVALID_E164", "to"),
    ("to-with-spaces", {"to": "1 415 555 0100", **TEXT}, "INVALID_E164", "to"),
    ("to-with-dashes", {"to": "1-415-555-0100", **TEXT}, "INVALID_E164", "to"),
    ("to-with-parens", {"to": "1 (415) 5550100", **TEXT}, "INVALID_E164", "to"),
    ("to-seven-digits", {"to": "1415555", **TEXT}, "INVALID_PHONE_NUMBER", "to"),
    ("to-sixteen-digits", {"to": "1415555010012345", **TEXT}, "INVALID_PHONE_NUMBER", "to"),
    ("to-letters", {"to": "call-me-maybe", **TEXT}, "INVALID_PHONE_NUMBER", "to"),
    ("recipient-no-country", {"recipient": "13491208655302741918", **TEXT}, "INVALID_RECIPIENT", "recipient"),
    ("recipient-dash", {"recipient": "US-13491208655302741918", **TEXT}, "INVALID_RECIPIENT", "recipient"),
    ("recipient-empty-id", {"recipient": "US.", **TEXT}, "INVALID_RECIPIENT", "recipient"),
    ("recipient-ent-empty", {"recipient": "US.ENT.", **TEXT}, "INVALID_RECIPIENT", "recipient"),
    ("recipient-symbols", {"recipient": "US.1349!208", **TEXT}, "INVALID_RECIPIENT", "recipient"),
    ("recipient-too-long", {"recipient": "US." + "1" * 129, **TEXT}, "INVALID_RECIPIENT", "recipient"),
    ("unknown-type", {"to": TO, "type": "carousel", "carousel": {}}, "INVALID_MESSAGE_TYPE", "type"),
    ("missing-type", {"to": TO, "text": {"body": "hi"}}, "MISSING_REQUIRED_FIELD", "type"),
    ("missing-type-object", {"to": TO, "type": "text"}, "MISSING_REQUIRED_FIELD", "text.body"),
    ("missing-image-object", {"to": TO, "type": "image"}, "MISSING_REQUIRED_FIELD", "image.link"),
    (
        "link-and-id",
        {"to": TO, "type": "image", "image": {"id": "1", "link": "https://example.com/a.jpg"}},
        "VALIDATION_FAILED",
        "image",
    ),
    (
        "four-buttons",
        {"to": TO, "type": "interactive", "interactive": FOUR_BUTTONS},
        "VALIDATION_FAILED",
        "interactive.action.buttons",
    ),
    (
        "eleven-rows",
        {"to": TO, "type": "interactive", "interactive": ELEVEN_ROWS},
        "VALIDATION_FAILED",
        "interactive.action.sections",
    ),
    (
        "display-number-as-id",
        {"phone_number_id": "+1 555 0000001", "to": TO, **TEXT},
        "INVALID_PHONE_NUMBER_ID",
        "phone_number_id",
    ),
    (
        "unknown-number",
        {"phone_number_id": "123456789", "to": TO, **TEXT},
        "INVALID_PHONE_NUMBER_ID",
        "phone_number_id",
    ),
    (
        "media-with-buttons",
        {"to": TO, "type": "image", "image": {"id": "1", "caption": "x", "buttons": [button(0)]}},
        "INVALID_MESSAGE_TYPE",
        "image",
    ),
    (
        "buttons-with-audio-header",
        {
            "to": TO,
            "type": "interactive",
            "interactive": {
                **FOUR_BUTTONS,
                "header": {"type": "audio", "audio": {"id": "1"}},
                "action": {"buttons": [button(0)]},
            },
        },
        "VALIDATION_FAILED",
        "interactive.header.type",
    ),
    (
        "text-too-long",
        {"to": TO, "type": "text", "text": {"body": "x" * 4097}},
        "VALIDATION_FAILED",
        "text.body",
    ),
    ("to-no-country-code", {"to": "0012345678", **TEXT}, "INVALID_PHONE_NUMBER", "to"),
    (
        "reaction-without-emoji",
        {"to": TO, "type": "reaction", "reaction": {"message_id": "wamid.X"}},
        "MISSING_REQUIRED_FIELD",
        "reaction.emoji",
    ),
]


def key_of(tenant: TenantFixture, mode: str) -> dict[str, str]:
    return tenant.headers(tenant.live_key if mode == "live" else tenant.test_key)


@pytest.mark.parametrize("mode", ["live", "sandbox"])
@pytest.mark.parametrize(("payload", "code", "field"), [c[1:] for c in INVALID], ids=[c[0] for c in INVALID])
async def test_invalid_send_is_refused_before_anything_happens(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    channel: FakeChannel,
    mode: str,
    payload: dict[str, Any],
    code: str,
    field: str,
):
    body = {"phone_number_id": tenant.phone_number_id, **payload}
    if body["phone_number_id"] is None:
        del body["phone_number_id"]
    response = await app_client.post("/v1/messages", json=body, headers=key_of(tenant, mode))
    assert response.status_code == 400, response.text
    error = response.json()
    assert (error["statusCode"], error["error"], error["code"]) == (400, "Bad Request", code)
    assert error["details"]["field"] == field
    assert error["message"]
    listed = await app_client.get("/v1/messages", headers=tenant.headers())
    assert listed.json()["total"] == 0
    assert channel.sends == []


@pytest.mark.parametrize("mode", ["live", "sandbox"])
async def test_another_tenants_number_is_forbidden(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    other_tenant: TenantFixture,
    channel: FakeChannel,
    mode: str,
):
    body = {"phone_number_id": other_tenant.phone_number_id, "to": TO, **TEXT}
    response = await app_client.post("/v1/messages", json=body, headers=key_of(tenant, mode))
    assert response.status_code == 403, response.text
    assert response.json()["code"] == "PHONE_NUMBER_NOT_IN_TENANT"
    assert response.json()["details"]["field"] == "phone_number_id"
    assert channel.sends == []


@pytest.mark.parametrize("mode", ["live", "sandbox"])
@pytest.mark.parametrize(
    ("content", "content_type"),
    [("phone_number_id=1&to=2", "application/x-www-form-urlencoded"), ("hello", "text/plain")],
    ids=["form", "text"],
)
async def test_non_json_body_is_415(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    channel: FakeChannel,
    mode: str,
    content: str,
    content_type: str,
):
    response = await app_client.post(
        "/v1/messages", content=content, headers={**key_of(tenant, mode), "Content-Type": content_type}
    )
    assert response.status_code == 415, response.text
    assert response.json()["statusCode"] == 415
    assert channel.sends == []


@pytest.mark.parametrize(
    "recipient", ["US.13491208655302741918", "US.ENT.1181579921", "BR.abcDEF123", "US." + "a" * 128]
)
async def test_well_formed_bsuids_are_accepted(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel, recipient: str
):
    body = {"phone_number_id": tenant.phone_number_id, "recipient": recipient, **TEXT}
    response = await app_client.post("/v1/messages", json=body, headers=tenant.headers())
    assert response.status_code == 201, response.text
    assert response.json()["recipient"] == recipient
    assert channel.sends[0]["recipient"] == recipient and "to" not in channel.sends[0]


@pytest.mark.parametrize(
    ("to", "stored"),
    [
        ("5491123456789", "541123456789"),
        ("541123456789", "541123456789"),
        ("5215512345678", "525512345678"),
        ("525512345678", "525512345678"),
    ],
    ids=["ar-with-9", "ar-canonical", "mx-with-1", "mx-canonical"],
)
async def test_both_ar_and_mx_forms_are_accepted_and_stored_canonically(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel, to: str, stored: str
):
    body = {"phone_number_id": tenant.phone_number_id, "to": to, **TEXT}
    response = await app_client.post("/v1/messages", json=body, headers=tenant.headers())
    assert response.status_code == 201, response.text
    assert response.json()["to_phone"] == stored
    assert [s["to"] for s in channel.sends] == ["+" + stored]
