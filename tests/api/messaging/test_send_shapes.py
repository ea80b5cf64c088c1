"""Send shapes the Cloud API documents are accepted, checked against its limits and sent as it expects.

Bodies from Meta's pages (shared/reference/cloud-api-and-peers.md section 1): an interactive CTA URL
button, reply buttons under an image header, a location whose coordinates are strings (Meta's own
example), template buttons that need a ``coupon_code`` (copy_code) or an ``action`` (flow, catalog), and a
read receipt that shows the typing indicator. Each goes through ``POST /v1/messages`` (or mark-read) to
the fake upstream on loopback.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support.fake_channel import FakeChannel
from tests.support.tenants import TenantFixture

TO = "14155550100"

CTA_URL = {
    "type": "cta_url",
    "header": {"type": "image", "image": {"link": "https://cdn.example.com/clinic.jpg"}},
    "body": {"text": "Book your check-up online."},
    "footer": {"text": "Clínica Norte"},
    "action": {
        "name": "cta_url",
        "parameters": {"display_text": "Book now", "url": "https://clinic.example.com/book?src=wa"},
    },
}
BUTTONS_WITH_IMAGE = {
    "type": "button",
    "header": {"type": "image", "image": {"id": "2762702990552401"}},
    "body": {"text": "Is this the right prescription?"},
    "action": {
        "buttons": [
            {"type": "reply", "reply": {"id": "rx-yes", "title": "Yes"}},
            {"type": "reply", "reply": {"id": "rx-no", "title": "No"}},
        ]
    },
}


async def send(client: httpx.AsyncClient, tenant: TenantFixture, kind: str, obj: Any) -> httpx.Response:
    body = {"phone_number_id": tenant.phone_number_id, "to": TO, "type": kind, kind: obj}
    return await client.post("/v1/messages", json=body, headers=tenant.headers())


@pytest.mark.parametrize("interactive", [CTA_URL, BUTTONS_WITH_IMAGE], ids=["cta_url", "buttons with image"])
async def test_interactive_shapes_go_out_as_written(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel, interactive
):
    response = await send(app_client, tenant, "interactive", interactive)
    assert response.status_code == 201, response.text
    assert channel.sends[0]["interactive"] == interactive


async def test_location_coordinates_may_be_strings(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel
):
    location = {"latitude": "37.44216251868683", "longitude": "-122.16153582049394", "name": "Philz Coffee"}
    response = await send(app_client, tenant, "location", location)
    assert response.status_code == 201, response.text
    assert channel.sends[0]["location"] == {
        "latitude": 37.44216251868683,
        "longitude": -122.16153582049394,
        "name": "Philz Coffee",
    }


@pytest.mark.parametrize(
    ("interactive", "field"),
    [
        (
            {
                **CTA_URL,
                "action": {"name": "cta_url", "parameters": {"display_text": "x" * 21, "url": "https://a"}},
            },
            "interactive.action.parameters.display_text",
        ),
        (
            {
                **CTA_URL,
                "action": {"name": "cta_url", "parameters": {"display_text": "Go", "url": "ftp://a"}},
            },
            "interactive.action.parameters.url",
        ),
        ({**CTA_URL, "action": {"name": "cta_url"}}, "interactive.action.parameters"),
        ({**BUTTONS_WITH_IMAGE, "header": {"type": "image", "image": {}}}, "interactive.header.image"),
        (
            {**BUTTONS_WITH_IMAGE, "header": {"type": "audio", "audio": {"id": "1"}}},
            "interactive.header.type",
        ),
    ],
    ids=["display text over 20", "url not http", "no parameters", "image without link or id", "audio header"],
)
async def test_interactive_shapes_out_of_the_limits_are_refused(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel, interactive, field
):
    response = await send(app_client, tenant, "interactive", interactive)
    assert response.status_code == 400, response.text
    assert response.json()["details"]["field"] == field
    assert channel.sends == []


async def test_a_location_that_is_not_a_number_is_refused(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel
):
    response = await send(app_client, tenant, "location", {"latitude": "north", "longitude": "1"})
    assert response.status_code == 400, response.text
    assert response.json()["details"] == {"field": "location.latitude", "value": "north"}


COPY_CODE = {
    "type": "button",
    "sub_type": "copy_code",
    "index": "0",
    "parameters": [{"type": "coupon_code", "coupon_code": "SAVE25"}],
}
FLOW = {
    "type": "button",
    "sub_type": "flow",
    "index": "1",
    "parameters": [
        {"type": "action", "action": {"flow_token": "tok-17", "flow_action_data": {"step": "start"}}}
    ],
}
CATALOG = {
    "type": "button",
    "sub_type": "catalog",
    "index": "0",
    "parameters": [{"type": "action", "action": {"thumbnail_product_retailer_id": "di9ozbzfi4"}}],
}


@pytest.mark.parametrize("button", [COPY_CODE, FLOW, CATALOG], ids=["copy_code", "flow", "catalog"])
async def test_template_buttons_take_the_parameters_their_sub_type_needs(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel, button
):
    template = {"name": "order_update", "language": {"code": "en_US"}, "components": [button]}
    response = await send(app_client, tenant, "template", template)
    assert response.status_code == 201, response.text
    assert channel.sends[0]["template"]["components"] == [button]


@pytest.mark.parametrize(
    ("button", "field"),
    [
        ({**COPY_CODE, "parameters": [{"type": "coupon_code", "coupon_code": "X" * 16}]}, "coupon_code"),
        ({**COPY_CODE, "sub_type": "quick_reply"}, "type"),
        ({**FLOW, "parameters": [{"type": "action", "action": {}}]}, "action"),
    ],
    ids=["coupon over 15", "coupon on a quick reply", "empty action"],
)
async def test_template_button_parameters_out_of_the_rules_are_refused(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel, button, field
):
    template = {"name": "order_update", "language": {"code": "en_US"}, "components": [button]}
    response = await send(app_client, tenant, "template", template)
    assert response.status_code == 400, response.text
    assert response.json()["details"]["field"] == f"template.components[0].parameters[0].{field}"
    assert channel.sends == []


async def test_mark_read_can_show_the_typing_indicator(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel
):
    body = {
        "phone_number_id": tenant.phone_number_id,
        "wa_message_id": "wamid.in01",
        "typing_indicator": {"type": "text"},
    }
    response = await app_client.post("/v1/messages/mark-read", json=body, headers=tenant.headers())
    assert response.status_code == 200, response.text
    assert channel.sends == [
        {
            "_phone_number_id": tenant.phone_number_id,
            "messaging_product": "whatsapp",
            "status": "read",
            "message_id": "wamid.in01",
            "typing_indicator": {"type": "text"},
        }
    ]
    wrong = await app_client.post(
        "/v1/messages/mark-read",
        json={**body, "typing_indicator": {"type": "audio"}},
        headers=tenant.headers(),
    )
    assert (wrong.status_code, wrong.json()["details"]["field"]) == (400, "typing_indicator.type")
    unknown = await app_client.post(
        "/v1/messages/mark-read", json={**body, "foo": 1}, headers=tenant.headers()
    )
    assert (unknown.status_code, unknown.json()["details"]["field"]) == (400, "foo")
    assert len(channel.sends) == 1
