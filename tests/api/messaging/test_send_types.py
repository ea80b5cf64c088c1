"""Every send type goes out live with the exact Cloud API body (issue 3, Send payload)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support.fake_channel import FakeChannel
from tests.support.tenants import TenantFixture

TO = "14155550100"

TEMPLATE_POSITIONAL = {
    "name": "order_update",
    "language": {"code": "en_US"},
    "components": [
        {
            "type": "header",
            "parameters": [{"type": "image", "image": {"link": "https://cdn.example.com/h.jpg"}}],
        },
        {"type": "body", "parameters": [{"type": "text", "text": "Ana"}, {"type": "text", "text": "A-17"}]},
        {
            "type": "button",
            "sub_type": "quick_reply",
            "index": "0",
            "parameters": [{"type": "payload", "payload": "TRACK"}],
        },
    ],
}
TEMPLATE_NAMED_UPSTREAM = {
    "name": "order_named",
    "language": {"code": "es_AR"},
    "components": [
        {"type": "header", "parameters": [{"type": "text", "parameter_name": "store", "text": "Centro"}]},
        {
            "type": "body",
            "parameters": [
                {"type": "text", "parameter_name": "first_name", "text": "Ana"},
                {"type": "text", "parameter_name": "order_id", "text": "A-17"},
            ],
        },
    ],
}
BUTTONS = {
    "type": "button",
    "body": {"text": "Confirm your visit?"},
    "footer": {"text": "Clinic"},
    "action": {
        "buttons": [
            {"type": "reply", "reply": {"id": "yes", "title": "Yes"}},
            {"type": "reply", "reply": {"id": "no", "title": "No"}},
        ]
    },
}
LIST = {
    "type": "list",
    "header": {"type": "text", "text": "Slots"},
    "body": {"text": "Pick a time"},
    "footer": {"text": "Times are local"},
    "action": {
        "button": "See slots",
        "sections": [
            {"title": "Morning", "rows": [{"id": "m9", "title": "09:00", "description": "Dr. Diaz"}]},
            {"title": "Afternoon", "rows": [{"id": "a3", "title": "15:00"}]},
        ],
    },
}
LOCATION_REQUEST = {
    "type": "location_request_message",
    "body": {"text": "Where are you?"},
    "action": {"name": "send_location"},
}
CONTACT_REQUEST = {
    "type": "request_contact_info",
    "body": {"text": "Share your number"},
    "action": {"name": "request_contact_info"},
}
CONTACTS = [
    {
        "name": {"formatted_name": "Ana Diaz", "first_name": "Ana"},
        "phones": [{"phone": "+54 11 2345 6789", "type": "CELL", "wa_id": "541123456789"}],
        "emails": [{"email": "ana@example.com", "type": "WORK"}],
    }
]

# (type, type object sent, type object expected upstream; None = the same)
CASES: list[tuple[str, Any, Any]] = [
    ("text", {"body": "hello", "preview_url": True}, None),
    ("template", TEMPLATE_POSITIONAL, None),
    (
        "template",
        {
            "name": "order_named",
            "language": {"code": "es_AR"},
            "body_named_params": {"first_name": "Ana", "order_id": "A-17"},
            "header_named_param": {"store": "Centro"},
        },
        TEMPLATE_NAMED_UPSTREAM,
    ),
    ("image", {"id": "1001", "caption": "Your receipt"}, None),
    ("video", {"id": "1002", "caption": "Tour"}, None),
    ("audio", {"id": "1003"}, None),
    ("document", {"id": "1004", "caption": "Invoice", "filename": "invoice.pdf"}, None),
    ("sticker", {"id": "1005"}, None),
    (
        "location",
        {
            "latitude": -34.6037,
            "longitude": -58.3816,
            "name": "Obelisco",
            "address": "Av. 9 de Julio, Buenos Aires",
        },
        None,
    ),
    ("interactive", BUTTONS, None),
    ("interactive", LIST, None),
    ("interactive", LOCATION_REQUEST, None),
    ("interactive", CONTACT_REQUEST, None),
    ("contacts", CONTACTS, None),
    ("reaction", {"message_id": "wamid.TARGET1", "emoji": "\U0001f44d"}, None),
    ("reaction", {"message_id": "wamid.TARGET2", "emoji": ""}, None),
]
IDS = [
    "text",
    "template-positional",
    "template-named",
    "image",
    "video",
    "audio",
    "document",
    "sticker",
    "location",
    "buttons",
    "list",
    "location-request",
    "contact-request",
    "contacts",
    "reaction",
    "reaction-removed",
]


def upstream_body(tenant: TenantFixture, kind: str, obj: Any, *, to: str = TO) -> dict[str, Any]:
    return {
        "_phone_number_id": tenant.phone_number_id,
        "messaging_product": "whatsapp",
        "recipient_type": "individual",
        "to": "+" + to,
        "type": kind,
        kind: obj,
    }


@pytest.mark.parametrize(("kind", "sent", "expected"), CASES, ids=IDS)
async def test_each_type_is_sent_with_the_exact_cloud_api_body(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    worker,
    channel: FakeChannel,
    kind: str,
    sent: Any,
    expected: Any,
):
    payload = {"phone_number_id": tenant.phone_number_id, "to": TO, "type": kind, kind: sent}
    response = await app_client.post("/v1/messages", json=payload, headers=tenant.headers())
    assert response.status_code == 201, response.text
    body = response.json()
    assert (body["status"], body["message_type"], body["to_phone"]) == ("sent", kind, TO)
    assert channel.sends == [upstream_body(tenant, kind, sent if expected is None else expected)]
    stored = (await app_client.get(f"/v1/messages/{body['id']}", headers=tenant.headers())).json()
    assert stored["wa_message_id"] == body["wa_message_id"]
    assert stored["has_media"] is (kind in ("image", "video", "audio", "document", "sticker"))


async def test_reply_context_is_forwarded(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    payload = {
        "phone_number_id": tenant.phone_number_id,
        "to": TO,
        "type": "text",
        "text": {"body": "re"},
        "context": {"message_id": "wamid.ORIGINAL"},
    }
    response = await app_client.post("/v1/messages", json=payload, headers=tenant.headers())
    assert response.status_code == 201, response.text
    assert channel.sends[0]["context"] == {"message_id": "wamid.ORIGINAL"}


async def test_bsuid_recipient_is_sent_as_recipient(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    payload = {
        "phone_number_id": tenant.phone_number_id,
        "recipient": "US.ENT.1181579921",
        "type": "text",
        "text": {"body": "hi"},
    }
    response = await app_client.post("/v1/messages", json=payload, headers=tenant.headers())
    assert response.status_code == 201, response.text
    assert response.json()["to_phone"] is None
    assert channel.sends == [
        {
            "_phone_number_id": tenant.phone_number_id,
            "messaging_product": "whatsapp",
            "recipient_type": "individual",
            "recipient": "US.ENT.1181579921",
            "type": "text",
            "text": {"body": "hi"},
        }
    ]


async def test_to_wins_over_recipient(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    payload = {
        "phone_number_id": tenant.phone_number_id,
        "to": TO,
        "recipient": "US.13491208655302741918",
        "type": "text",
        "text": {"body": "hi"},
    }
    response = await app_client.post("/v1/messages", json=payload, headers=tenant.headers())
    assert response.status_code == 201, response.text
    assert response.json()["to_phone"] == TO
    assert channel.sends == [upstream_body(tenant, "text", {"body": "hi"})]


async def test_media_endpoint_sends_media_addressed_by_phone(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    payload = {"phone_number_id": tenant.phone_number_id, "to": TO, "type": "image", "image": {"id": "77"}}
    response = await app_client.post("/v1/messages/media", json=payload, headers=tenant.headers())
    assert response.status_code == 201, response.text
    assert channel.sends == [upstream_body(tenant, "image", {"id": "77"})]


@pytest.mark.parametrize(
    ("payload", "code", "field"),
    [
        (
            {"recipient": "US.13491208655302741918", "type": "image", "image": {"id": "77"}},
            "MISSING_REQUIRED_FIELD",
            "to",
        ),
        ({"to": TO, "type": "text", "text": {"body": "hi"}}, "INVALID_MESSAGE_TYPE", "type"),
    ],
    ids=["bsuid-refused", "not-media"],
)
async def test_media_endpoint_refuses(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    worker,
    channel: FakeChannel,
    payload: dict[str, Any],
    code: str,
    field: str,
):
    response = await app_client.post(
        "/v1/messages/media",
        json={"phone_number_id": tenant.phone_number_id, **payload},
        headers=tenant.headers(),
    )
    assert response.status_code == 400, response.text
    assert (response.json()["code"], response.json()["details"]["field"]) == (code, field)
    assert channel.sends == []
