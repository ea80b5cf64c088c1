from __future__ import annotations

from tests.simulator.support import AUTH, PHONE_ID, Sim, running_sim, text_body
from tests.support.http_server import free_port


async def test_health(sim: Sim) -> None:
    response = await sim.client.get("/_sim/health")

    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "webhook_url": sim.config.webhook_url,
        "api_version": "v21.0",
        "background_jobs": 0,
    }


async def test_messages_log_lists_both_directions_with_filters(sim: Sim) -> None:
    wamid = (await sim.send(text_body("+16505551234"))).json()["messages"][0]["id"]
    await sim.send(text_body("+12025550130"))
    await sim.client.post(
        "/_sim/inbound", json={"phone_number_id": PHONE_ID, "from": "16505551234", "text": "yo"}
    )
    await sim.receiver.wait_for(lambda: len(sim.receiver.statuses(wamid)) == 3)
    await sim.drain()

    everything = (await sim.client.get("/_sim/messages")).json()["data"]
    outbound = (await sim.client.get("/_sim/messages", params={"direction": "outbound"})).json()["data"]
    by_wamid = (await sim.client.get("/_sim/messages", params={"wamid": wamid})).json()["data"]

    assert [m["direction"] for m in everything] == ["outbound", "outbound", "inbound"]
    assert [m["outcome"] for m in outbound] == ["accepted", "rejected"]
    [sent] = by_wamid
    assert sent["to"] == "+16505551234" and sent["wa_id"] == "16505551234"
    assert sent["body"]["text"] == {"body": "hello"}
    assert sent["statuses"] == ["sent", "delivered", "read"]
    webhooks = (await sim.client.get("/_sim/webhooks", params={"wamid": wamid})).json()["data"]
    assert [(w["status"], w["delivered"], w["status_code"]) for w in webhooks] == [
        ("sent", True, 200),
        ("delivered", True, 200),
        ("read", True, 200),
    ]


async def test_reset_forgets_messages_and_counters(sim: Sim) -> None:
    await sim.send(text_body("+12025550153"))
    await sim.client.post("/_sim/reset")

    logged = (await sim.client.get("/_sim/messages")).json()["data"]
    again = await sim.send(text_body("+12025550153"))

    assert logged == []
    assert again.status_code == 503


async def test_service_down_still_accepts_sends_and_drops_webhooks_after_retries() -> None:
    dead_url = f"http://127.0.0.1:{free_port()}/channel/webhook"
    async with running_sim(webhook_url=dead_url, webhook_attempts=2, webhook_retry_ms=50) as sim:
        response = await sim.send(text_body("+16505551234"))
        wamid = response.json()["messages"][0]["id"]
        inbound = (
            await sim.client.post(
                "/_sim/inbound", json={"phone_number_id": PHONE_ID, "from": "1650", "text": "x"}
            )
        ).json()
        await sim.drain()
        webhooks = (await sim.client.get("/_sim/webhooks", params={"wamid": wamid})).json()["data"]

    assert response.status_code == 200
    assert (inbound["delivered"], inbound["status_code"], inbound["attempts"]) == (False, None, 2)
    assert [(w["status"], w["delivered"], w["attempts"]) for w in webhooks] == [
        ("sent", False, 2),
        ("delivered", False, 2),
        ("read", False, 2),
    ]
    assert all(w["error"] for w in webhooks)


async def test_status_webhooks_are_retried_on_service_errors() -> None:
    async with running_sim(fail_first=1) as sim:
        wamid = (await sim.send(text_body("+16505551234"))).json()["messages"][0]["id"]
        await sim.receiver.wait_for(lambda: len(sim.receiver.statuses(wamid)) == 3)
        webhooks = (await sim.client.get("/_sim/webhooks", params={"wamid": wamid})).json()["data"]

    assert [s["status"] for s in sim.receiver.statuses(wamid)] == ["sent", "delivered", "read"]
    assert [w["attempts"] for w in webhooks] == [2, 1, 1]


async def test_unknown_graph_path_and_method_answer_graph_errors(sim: Sim) -> None:
    unknown = await sim.client.get("/v21.0/1/2/3/4", headers=AUTH)
    bad_version = await sim.client.post(f"/latest/{PHONE_ID}/messages", json={}, headers=AUTH)
    wrong_method = await sim.client.put(f"/v21.0/{PHONE_ID}/messages", json={}, headers=AUTH)

    for response in (unknown, bad_version, wrong_method):
        assert response.status_code == 400
        assert response.json()["error"]["code"] == 100


async def test_phone_number_fields(sim: Sim) -> None:
    await sim.client.post(
        "/_sim/phone-numbers", json={"phone_number_id": PHONE_ID, "display_phone_number": "15550783881"}
    )

    response = await sim.client.get(
        f"/v21.0/{PHONE_ID}", params={"fields": "throughput,display_phone_number"}, headers=AUTH
    )

    assert response.json() == {
        "throughput": {"level": "STANDARD"},
        "display_phone_number": "15550783881",
        "id": PHONE_ID,
    }


async def test_control_routes_are_not_shadowed_by_graph_routes(sim: Sim) -> None:
    response = await sim.client.get("/_sim/messages")
    missing = await sim.client.get("/_sim/nope")

    assert response.status_code == 200 and "data" in response.json()
    assert missing.status_code == 404
    assert "detail" in missing.json()
