from __future__ import annotations

import pytest

from tests.simulator.support import AUTH, PHONE_ID, Sim, running_sim, text_body


async def test_send_answers_cloud_api_success_body(sim: Sim) -> None:
    response = await sim.send(text_body("+1 650 555 1234"))

    assert response.status_code == 200
    body = response.json()
    assert body["messaging_product"] == "whatsapp"
    assert body["contacts"] == [{"input": "+1 650 555 1234", "wa_id": "16505551234"}]
    [message] = body["messages"]
    assert message["id"].startswith("wamid.")
    assert "message_status" not in message


async def test_send_is_followed_by_signed_sent_delivered_read(sim: Sim) -> None:
    wamid = (await sim.send(text_body("+16505551234"))).json()["messages"][0]["id"]

    await sim.receiver.wait_for(lambda: len(sim.receiver.statuses(wamid)) == 3)

    assert all(delivery.signed() for delivery in sim.receiver.deliveries)
    assert all(d.headers["content-type"] == "application/json" for d in sim.receiver.deliveries)
    sent, delivered, read = sim.receiver.statuses(wamid)
    assert [sent["status"], delivered["status"], read["status"]] == ["sent", "delivered", "read"]
    assert sent["recipient_id"] == "16505551234"
    assert sent["timestamp"].isdigit()
    assert sent["conversation"]["expiration_timestamp"].isdigit()
    assert sent["pricing"] == {
        "billable": False,
        "pricing_model": "PMP",
        "type": "free_customer_service",
        "category": "service",
    }
    assert "expiration_timestamp" not in delivered["conversation"]
    assert "pricing" not in read and "conversation" not in read
    envelope = sim.receiver.deliveries[0].payload
    assert envelope["object"] == "whatsapp_business_account"
    change = envelope["entry"][0]["changes"][0]
    assert change["field"] == "messages"
    assert change["value"]["messaging_product"] == "whatsapp"
    assert change["value"]["metadata"]["phone_number_id"] == PHONE_ID
    assert envelope["entry"][0]["id"] == sim.config.default_waba_id


async def test_webhook_body_escapes_slashes_like_the_channel(sim: Sim) -> None:
    body = text_body("+16505551234")
    body["biz_opaque_callback_data"] = "order/42 café"
    wamid = (await sim.send(body)).json()["messages"][0]["id"]

    await sim.receiver.wait_for(lambda: len(sim.receiver.statuses(wamid)) == 3)

    raw = sim.receiver.deliveries[0].raw
    assert b"order\\/42 caf\\u00e9" in raw
    assert sim.receiver.deliveries[0].signed()
    assert sim.receiver.statuses(wamid)[0]["biz_opaque_callback_data"] == "order/42 café"


async def test_template_send_is_billable_and_accepted(sim: Sim) -> None:
    body = {
        "messaging_product": "whatsapp",
        "to": "+16505551234",
        "type": "template",
        "template": {"name": "order_confirmation", "language": {"code": "en_US"}},
    }
    response = await sim.send(body)

    assert response.status_code == 200
    message = response.json()["messages"][0]
    assert message["message_status"] == "accepted"
    await sim.receiver.wait_for(lambda: len(sim.receiver.statuses(message["id"])) == 3)
    assert sim.receiver.statuses(message["id"])[0]["pricing"]["billable"] is True
    assert sim.receiver.statuses(message["id"])[0]["pricing"]["category"] == "utility"


async def test_reaction_gets_only_a_sent_status(sim: Sim) -> None:
    body = {
        "messaging_product": "whatsapp",
        "to": "+16505551234",
        "type": "reaction",
        "reaction": {"message_id": "wamid.abc", "emoji": "\U0001f600"},
    }
    wamid = (await sim.send(body)).json()["messages"][0]["id"]
    other = (await sim.send(text_body("+16505551234"))).json()["messages"][0]["id"]

    await sim.receiver.wait_for(lambda: len(sim.receiver.statuses(other)) == 3)
    assert [s["status"] for s in sim.receiver.statuses(wamid)] == ["sent"]


async def test_bsuid_send_answers_user_id_and_statuses_carry_it(sim: Sim) -> None:
    body = {
        "messaging_product": "whatsapp",
        "recipient": "US.13491208655302741918",
        "type": "text",
        "text": {"body": "hi"},
    }
    response = await sim.send(body)

    assert response.json()["contacts"] == [
        {"input": "US.13491208655302741918", "user_id": "US.13491208655302741918"}
    ]
    wamid = response.json()["messages"][0]["id"]
    await sim.receiver.wait_for(lambda: len(sim.receiver.statuses(wamid)) == 3)
    assert all(s["recipient_user_id"] == "US.13491208655302741918" for s in sim.receiver.statuses(wamid))


async def test_to_wins_over_recipient(sim: Sim) -> None:
    body = text_body("+16505551234") | {"recipient": "US.1"}
    assert (await sim.send(body)).json()["contacts"] == [{"input": "+16505551234", "wa_id": "16505551234"}]


@pytest.mark.parametrize(
    ("to", "wa_id"),
    [
        ("+54 11 5555 1234", "5491155551234"),
        ("+5491155551234", "5491155551234"),
        ("+52 55 5555 1234", "5215555551234"),
        ("+55 11 8765 4321", "5511987654321"),
        ("+55 11 5555 4321", "551155554321"),
        ("+44 7700 900123", "447700900123"),
    ],
)
async def test_wa_id_diverges_from_input_like_the_channel(sim: Sim, to: str, wa_id: str) -> None:
    contact = (await sim.send(text_body(to))).json()["contacts"][0]
    assert contact == {"input": to, "wa_id": wa_id}


@pytest.mark.parametrize("typing", [None, {"type": "text"}])
async def test_mark_read_answers_success(sim: Sim, typing: dict | None) -> None:
    body = {
        "messaging_product": "whatsapp",
        "status": "read",
        "message_id": "wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQz",
    }
    if typing:
        body["typing_indicator"] = typing

    response = await sim.send(body)

    assert response.status_code == 200
    assert response.json() == {"success": True}
    logged = (await sim.client.get("/_sim/messages")).json()["data"]
    assert logged[-1]["kind"] == "mark_read"
    assert logged[-1]["body"]["message_id"] == body["message_id"]


@pytest.mark.parametrize(
    ("headers", "subcode"),
    [
        ({}, None),
        ({"Authorization": "Basic abc"}, None),
        ({"Authorization": "Bearer sim-expired-token"}, 463),
    ],
)
async def test_missing_or_expired_token_is_401_code_190(sim: Sim, headers: dict, subcode: int | None) -> None:
    response = await sim.send(text_body("+16505551234"), headers=headers)

    assert response.status_code == 401
    error = response.json()["error"]
    assert error["code"] == 190
    assert error["type"] == "OAuthException"
    assert error["fbtrace_id"]
    assert error.get("error_subcode") == subcode


async def test_configured_tokens_refuse_others() -> None:
    async with running_sim(access_tokens=frozenset({"only-this"})) as sim:
        refused = await sim.send(text_body("+16505551234"))
        accepted = await sim.send(text_body("+16505551234"), headers={"Authorization": "Bearer only-this"})

    assert refused.status_code == 401 and refused.json()["error"]["code"] == 190
    assert accepted.status_code == 200


LONG = "x" * 4097


@pytest.mark.parametrize(
    ("body", "code", "needle"),
    [
        ({"to": "+16505551234", "type": "text", "text": {"body": "hi"}}, 100, "messaging_product"),
        ({"messaging_product": "whatsapp", "type": "text", "text": {"body": "hi"}}, 131008, "to"),
        ({"messaging_product": "whatsapp", "to": "+1650", "type": "poll", "poll": {}}, 100, "poll"),
        ({"messaging_product": "whatsapp", "to": "+1650", "type": "text"}, 131008, "text"),
        ({"messaging_product": "whatsapp", "to": "+1650", "type": "text", "text": {}}, 131008, "body"),
        (
            {"messaging_product": "whatsapp", "to": "+1650", "type": "text", "text": {"body": LONG}},
            131009,
            "4096",
        ),
        (
            {
                "messaging_product": "whatsapp",
                "to": "+1650",
                "type": "image",
                "image": {"id": "1", "link": "https://x"},
            },
            100,
            "exactly one",
        ),
        (
            {
                "messaging_product": "whatsapp",
                "to": "+1650",
                "type": "interactive",
                "interactive": {
                    "type": "button",
                    "body": {"text": "pick"},
                    "action": {
                        "buttons": [
                            {"type": "reply", "reply": {"id": str(i), "title": "t"}} for i in range(4)
                        ]
                    },
                },
            },
            131009,
            "1 to 3",
        ),
        (
            {
                "messaging_product": "whatsapp",
                "to": "+1650",
                "type": "interactive",
                "interactive": {
                    "type": "list",
                    "body": {"text": "pick"},
                    "action": {
                        "button": "Choose",
                        "sections": [
                            {"title": "s", "rows": [{"id": str(i), "title": "r"} for i in range(11)]}
                        ],
                    },
                },
            },
            131009,
            "10 rows",
        ),
        (
            {"messaging_product": "whatsapp", "to": "+1650", "type": "template", "template": {"name": "x"}},
            131008,
            "language",
        ),
        (
            {"messaging_product": "whatsapp", "to": "+1650", "type": "reaction", "reaction": {"emoji": "x"}},
            131008,
            "message_id",
        ),
        ({"messaging_product": "whatsapp", "status": "read"}, 131008, "message_id"),
        ({"messaging_product": "whatsapp", "status": "read", "message_id": "nope"}, 131009, "nope"),
    ],
)
async def test_malformed_sends_answer_graph_400(sim: Sim, body: dict, code: int, needle: str) -> None:
    response = await sim.send(body)

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == code
    assert needle in error["message"] + error["error_data"]["details"]
    assert sim.receiver.deliveries == []


async def test_non_json_body_is_graph_400(sim: Sim) -> None:
    response = await sim.client.post(f"/v21.0/{PHONE_ID}/messages", content=b"{nope", headers=AUTH)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == 100


async def test_status_webhooks_can_be_turned_off() -> None:
    async with running_sim(send_status_webhooks=False) as sim:
        response = await sim.send(text_body("+16505551234"))
        second = await sim.send(text_body("+16505551235"))
        logged = (await sim.client.get("/_sim/messages")).json()["data"]

    assert response.status_code == 200 and second.status_code == 200
    assert sim.receiver.deliveries == []
    assert [m["statuses"] for m in logged] == [[], []]


async def test_read_receipts_off_stops_at_delivered() -> None:
    async with running_sim(read_receipts=False) as sim:
        wamid = (await sim.send(text_body("+16505551234"))).json()["messages"][0]["id"]
        await sim.receiver.wait_for(lambda: len(sim.receiver.statuses(wamid)) == 2)
        marker = (await sim.send(text_body("+16505551299"))).json()["messages"][0]["id"]
        await sim.receiver.wait_for(lambda: len(sim.receiver.statuses(marker)) == 2)

    assert [s["status"] for s in sim.receiver.statuses(wamid)] == ["sent", "delivered"]
