from __future__ import annotations

import base64
import hashlib

import pytest

from tests.simulator.support import AUTH, PHONE_ID, Sim

OGG = b"OggS" + b"\x00" * 64


async def test_inbound_text_posts_signed_envelope(sim: Sim) -> None:
    await sim.client.post(
        "/_sim/phone-numbers",
        json={"phone_number_id": PHONE_ID, "display_phone_number": "15550783881", "waba_id": "WABA9"},
    )
    body = {"phone_number_id": PHONE_ID, "from": "+1 650 555 1234", "text": "Hola", "name": "Pablo"}

    response = await sim.client.post("/_sim/inbound", json=body)

    assert response.status_code == 200
    answer = response.json()
    assert answer["wamid"].startswith("wamid.")
    assert (answer["delivered"], answer["status_code"], answer["attempts"]) == (True, 200, 1)
    [delivery] = sim.receiver.deliveries
    assert delivery.signed()
    assert delivery.payload["object"] == "whatsapp_business_account"
    assert delivery.payload["entry"][0]["id"] == "WABA9"
    assert delivery.field == "messages"
    value = delivery.value
    assert value["messaging_product"] == "whatsapp"
    assert value["metadata"] == {"display_phone_number": "15550783881", "phone_number_id": PHONE_ID}
    assert value["contacts"] == [{"profile": {"name": "Pablo"}, "wa_id": "16505551234"}]
    [message] = value["messages"]
    assert message["from"] == "16505551234"
    assert message["id"] == answer["wamid"]
    assert message["timestamp"].isdigit()
    assert message["type"] == "text"
    assert message["text"] == {"body": "Hola"}


async def test_inbound_carries_bsuid_and_username(sim: Sim) -> None:
    body = {
        "phone_number_id": PHONE_ID,
        "from": "16505551234",
        "text": "hi",
        "name": "Pablo M.",
        "bsuid": "US.13491208655302741918",
        "parent_bsuid": "US.ENT.11815799212886844830",
        "username": "pablomorales",
    }
    await sim.client.post("/_sim/inbound", json=body)

    value = sim.receiver.deliveries[0].value
    assert value["contacts"] == [
        {
            "profile": {"name": "Pablo M.", "username": "pablomorales"},
            "wa_id": "16505551234",
            "user_id": "US.13491208655302741918",
            "parent_user_id": "US.ENT.11815799212886844830",
        }
    ]
    message = value["messages"][0]
    assert message["from_user_id"] == "US.13491208655302741918"
    assert message["from_parent_user_id"] == "US.ENT.11815799212886844830"


async def test_hidden_phone_omits_wa_id_and_from(sim: Sim) -> None:
    body = {
        "phone_number_id": PHONE_ID,
        "from": "16505551234",
        "bsuid": "US.1349",
        "username": "pablo",
        "hide_phone": True,
        "text": "hi",
    }
    await sim.client.post("/_sim/inbound", json=body)

    value = sim.receiver.deliveries[0].value
    assert value["contacts"] == [{"profile": {"username": "pablo"}, "user_id": "US.1349"}]
    assert "from" not in value["messages"][0]
    assert value["messages"][0]["from_user_id"] == "US.1349"


async def test_statuses_to_a_known_bsuid_customer_carry_contacts(sim: Sim) -> None:
    await sim.client.post(
        "/_sim/inbound",
        json={
            "phone_number_id": PHONE_ID,
            "from": "16505551234",
            "bsuid": "US.1349",
            "username": "pablo",
            "name": "Pablo",
            "text": "hi",
        },
    )
    wamid = (
        await sim.send(
            {"messaging_product": "whatsapp", "to": "+16505551234", "type": "text", "text": {"body": "x"}}
        )
    ).json()["messages"][0]["id"]
    await sim.receiver.wait_for(lambda: len(sim.receiver.statuses(wamid)) == 3)

    status_deliveries = [d for d in sim.receiver.deliveries if d.value.get("statuses")]
    sent, delivered, _read = status_deliveries
    assert sent.value["statuses"][0]["recipient_user_id"] == "US.1349"
    assert sent.value["contacts"] == [
        {"profile": {"name": "Pablo"}, "wa_id": "16505551234", "user_id": "US.1349"}
    ]
    assert delivered.value["contacts"][0]["profile"]["username"] == "pablo"


async def test_inbound_typed_message_and_reply_context(sim: Sim) -> None:
    body = {
        "phone_number_id": PHONE_ID,
        "from": "16505551234",
        "type": "interactive",
        "interactive": {"type": "button_reply", "button_reply": {"id": "slot-am", "title": "Morning"}},
        "reply_to": "wamid.previous",
    }
    await sim.client.post("/_sim/inbound", json=body)

    message = sim.receiver.deliveries[0].value["messages"][0]
    assert message["type"] == "interactive"
    assert message["interactive"] == body["interactive"]
    assert message["context"] == {"from": sim.config.default_display_phone_number, "id": "wamid.previous"}


async def test_inbound_media_is_stored_and_downloadable(sim: Sim) -> None:
    body = {
        "phone_number_id": PHONE_ID,
        "from": "16505551234",
        "type": "audio",
        "audio": {
            "mime_type": "audio/ogg; codecs=opus",
            "data_base64": base64.b64encode(OGG).decode(),
            "voice": True,
        },
    }
    await sim.client.post("/_sim/inbound", json=body)

    audio = sim.receiver.deliveries[0].value["messages"][0]["audio"]
    assert audio["mime_type"] == "audio/ogg; codecs=opus"
    assert audio["sha256"] == hashlib.sha256(OGG).hexdigest()
    assert audio["voice"] is True
    assert "data_base64" not in audio
    info = (await sim.client.get(f"/v21.0/{audio['id']}", headers=AUTH)).json()
    download = await sim.client.get(info["url"], headers=AUTH)
    assert download.content == OGG
    assert (await sim.client.get(audio["url"], headers=AUTH)).content == OGG


@pytest.mark.parametrize(
    "body",
    [
        {"phone_number_id": PHONE_ID, "text": "no sender"},
        {"phone_number_id": PHONE_ID, "from": "1650"},
        {"phone_number_id": PHONE_ID, "from": "1650", "type": "image"},
        {"phone_number_id": PHONE_ID, "from": "1650", "hide_phone": True, "text": "x"},
        {"phone_number_id": PHONE_ID, "from": "1650", "type": "image", "image": {"data_base64": "AAAA"}},
        {"from": "1650", "text": "no phone number id"},
    ],
)
async def test_incomplete_inbound_is_422(sim: Sim, body: dict) -> None:
    response = await sim.client.post("/_sim/inbound", json=body)
    assert response.status_code == 422
    assert sim.receiver.deliveries == []


async def test_inbound_is_retried_when_the_service_fails(sim: Sim) -> None:
    sim.receiver.fail_first = 2
    try:
        answer = (
            await sim.client.post(
                "/_sim/inbound", json={"phone_number_id": PHONE_ID, "from": "1650", "text": "x"}
            )
        ).json()
    finally:
        sim.receiver.fail_first = 0

    assert (answer["delivered"], answer["attempts"]) == (True, 3)
    assert len(sim.receiver.deliveries) == 1
