from __future__ import annotations

import pytest

from switchboard.simulator.triggers import TRIGGERS
from tests.simulator.support import Sim, running_sim, text_body


@pytest.mark.parametrize(
    ("to", "http_status", "code", "message"),
    [
        ("+1 202 555 0130", 400, 131030, "(#131030) Recipient phone number not in allowed list"),
        ("+1 202 555 0147", 400, 131047, "(#131047) Re-engagement message"),
        ("+1 202 555 0150", 500, 131000, "(#131000) Something went wrong"),
        ("+1 202 555 0104", 429, 4, "(#4) Application request limit reached"),
        ("+1 202 555 0129", 429, 130429, "(#130429) Rate limit hit"),
        ("+54 9 11 5550 0130", 400, 131030, "(#131030) Recipient phone number not in allowed list"),
        ("+52 1 55 5550 0130", 400, 131030, "(#131030) Recipient phone number not in allowed list"),
        ("+55 11 9 8765 0130", 400, 131030, "(#131030) Recipient phone number not in allowed list"),
    ],
)
async def test_sync_trigger_answers_documented_envelope(
    sim: Sim, to: str, http_status: int, code: int, message: str
) -> None:
    response = await sim.send(text_body(to))

    assert response.status_code == http_status
    error = response.json()["error"]
    assert error["message"] == message
    assert error["code"] == code
    assert error["type"] == "OAuthException"
    assert error["error_data"]["messaging_product"] == "whatsapp"
    assert error["error_data"]["details"]
    assert error["fbtrace_id"]
    logged = (await sim.client.get("/_sim/messages")).json()["data"][-1]
    assert (logged["outcome"], logged["http_status"], logged["error_code"]) == ("rejected", http_status, code)


async def test_server_error_trigger_fails_every_attempt(sim: Sim) -> None:
    statuses = [(await sim.send(text_body("+12025550150"))).status_code for _ in range(4)]
    assert statuses == [500, 500, 500, 500]


async def test_flaky_trigger_fails_n_times_then_succeeds_and_repeats(sim: Sim) -> None:
    answers = [await sim.send(text_body("+12025550153")) for _ in range(6)]

    assert [a.status_code for a in answers] == [503, 503, 200, 503, 503, 200]
    assert answers[0].json()["error"]["code"] == 131016
    assert answers[0].json()["error"]["is_transient"] is True
    assert answers[2].json()["messages"][0]["id"].startswith("wamid.")


async def test_flaky_failure_count_is_configurable() -> None:
    async with running_sim(flaky_failures=1) as sim:
        answers = [(await sim.send(text_body("+12025550153"))).status_code for _ in range(4)]
    assert answers == [503, 200, 503, 200]


@pytest.mark.parametrize(
    ("rejected", "accepted", "wa_id"),
    [
        ("+5491155500130", "+541155500130", "5491155500130"),
        ("+5215555500130", "+525555500130", "5215555500130"),
        ("+5511987650130", "+551187650130", "5511987650130"),
    ],
)
async def test_alternate_form_is_accepted(sim: Sim, rejected: str, accepted: str, wa_id: str) -> None:
    first = await sim.send(text_body(rejected))
    second = await sim.send(text_body(accepted))

    assert first.status_code == 400 and first.json()["error"]["code"] == 131030
    assert second.status_code == 200
    assert second.json()["contacts"] == [{"input": accepted, "wa_id": wa_id}]


@pytest.mark.parametrize(
    ("to", "code"),
    [("+12025550126", 131026), ("+12025550148", 131047), ("+12025550149", 131049)],
)
async def test_async_trigger_accepts_then_posts_failed_status(sim: Sim, to: str, code: int) -> None:
    response = await sim.send(text_body(to))

    assert response.status_code == 200
    wamid = response.json()["messages"][0]["id"]
    await sim.receiver.wait_for(lambda: len(sim.receiver.statuses(wamid)) == 1)
    await sim.drain()
    [failed] = sim.receiver.statuses(wamid)
    assert failed["status"] == "failed"
    assert failed["recipient_id"] == to.lstrip("+")
    assert "recipient_user_id" not in failed and "pricing" not in failed
    [error] = failed["errors"]
    assert error["code"] == code
    assert error["title"] == error["message"] == TRIGGERS[to.lstrip("+")].title
    assert error["error_data"]["details"]
    assert error["href"] == "/documentation/business-messaging/whatsapp/support/error-codes"
    assert all(d.signed() for d in sim.receiver.deliveries)
    assert "contacts" not in sim.receiver.deliveries[0].value


async def test_missing_template_name_answers_132001(sim: Sim) -> None:
    body = {
        "messaging_product": "whatsapp",
        "to": "+16505551234",
        "type": "template",
        "template": {"name": "missing_welcome", "language": {"code": "en_US"}},
    }
    response = await sim.send(body)

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == 132001
    assert error["message"] == "(#132001) Template name does not exist in the translation"
    assert "missing_welcome" in error["error_data"]["details"]


async def test_customer_window_is_enforced_when_configured() -> None:
    async with running_sim(enforce_customer_window=True) as sim:
        cold = (await sim.send(text_body("+16505550001"))).json()["messages"][0]["id"]
        inbound = {"phone_number_id": "106540352242922", "from": "16505550002", "text": "hi", "name": "Ana"}
        assert (await sim.client.post("/_sim/inbound", json=inbound)).json()["delivered"] is True
        warm = (await sim.send(text_body("+16505550002"))).json()["messages"][0]["id"]
        await sim.receiver.wait_for(lambda: len(sim.receiver.statuses(warm)) == 3)
        await sim.drain()

    [failed] = sim.receiver.statuses(cold)
    assert failed["status"] == "failed" and failed["errors"][0]["code"] == 131047
    assert [s["status"] for s in sim.receiver.statuses(warm)] == ["sent", "delivered", "read"]
