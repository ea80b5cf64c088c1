from __future__ import annotations

import pytest

from tests.simulator.support import AUTH, PHONE_ID, Sim

OTHER_PHONE = "106540352242999"


async def _set(sim: Sim, username: str, *, phone: str = PHONE_ID, transfer_action: str | None = None):
    body = {"username": username}
    if transfer_action is not None:
        body["transfer_action"] = transfer_action
    return await sim.client.post(f"/v21.0/{phone}/username", json=body, headers=AUTH)


@pytest.mark.parametrize(("username", "status"), [("luckyshrimp", "approved"), ("review_shrimp", "reserved")])
async def test_set_username_answers_status(sim: Sim, username: str, status: str) -> None:
    response = await _set(sim, username)

    assert response.status_code == 200
    assert response.json() == {"status": status}
    current = await sim.client.get(f"/v21.0/{PHONE_ID}/username", headers=AUTH)
    assert current.json() == {"username": username, "status": status}


@pytest.mark.parametrize(
    ("username", "code"),
    [
        ("taken_shrimp", 147001),
        ("ineligible_shrimp", 147002),
        ("ab", 100),
        ("1234", 100),
        ("lucky..shrimp", 100),
        ("www_shrimp", 100),
        ("luckyshrimp.com", 100),
        ("lucky-shrimp", 100),
    ],
)
async def test_refused_usernames(sim: Sim, username: str, code: int) -> None:
    response = await _set(sim, username)

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == code
    assert error["error_data"]["details"]


async def test_username_on_another_phone_needs_force_transfer(sim: Sim) -> None:
    await _set(sim, "luckyshrimp", phone=OTHER_PHONE)

    refused = await _set(sim, "luckyshrimp", transfer_action="none")
    moved = await _set(sim, "luckyshrimp", transfer_action="force_transfer")
    old_holder = await sim.client.get(f"/v21.0/{OTHER_PHONE}/username", headers=AUTH)

    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == 147005
    assert "force_transfer" in refused.json()["error"]["error_data"]["details"]
    assert moved.json() == {"status": "approved"}
    assert old_holder.json() == {}


async def test_usernames_are_case_insensitive(sim: Sim) -> None:
    await _set(sim, "LuckyShrimp", phone=OTHER_PHONE)
    response = await _set(sim, "luckyshrimp")
    assert response.json()["error"]["code"] == 147005


async def test_delete_and_suggestions(sim: Sim) -> None:
    await _set(sim, "luckyshrimp")

    suggestions = (await sim.client.get(f"/v21.0/{PHONE_ID}/username_suggestions", headers=AUTH)).json()
    deleted = await sim.client.delete(f"/v21.0/{PHONE_ID}/username", headers=AUTH)
    after = await sim.client.get(f"/v21.0/{PHONE_ID}/username", headers=AUTH)

    names = suggestions["data"][0]["username_suggestions"]
    assert "luckyshrimp_co" in names and "luckyshrimp" not in names
    assert deleted.json() == {"success": True}
    assert after.json() == {}


async def test_review_outcome_posts_business_username_update(sim: Sim) -> None:
    await sim.client.post(
        "/_sim/phone-numbers",
        json={"phone_number_id": PHONE_ID, "display_phone_number": "15550783881", "waba_id": "WABA1"},
    )
    await _set(sim, "review_shrimp")

    response = await sim.client.post(f"/_sim/usernames/{PHONE_ID}/status", json={"status": "approved"})

    assert response.json() == {"username": "review_shrimp", "status": "approved"}
    [delivery] = sim.receiver.deliveries
    assert delivery.signed()
    assert delivery.field == "business_username_updates"
    assert delivery.payload["entry"][0]["id"] == "WABA1"
    assert isinstance(delivery.payload["entry"][0]["time"], int)
    assert delivery.value == {
        "display_phone_number": "15550783881",
        "username": "review_shrimp",
        "status": "approved",
    }
    current = await sim.client.get(f"/v21.0/{PHONE_ID}/username", headers=AUTH)
    assert current.json()["status"] == "approved"


async def test_deleted_update_omits_username(sim: Sim) -> None:
    await _set(sim, "luckyshrimp")
    await sim.client.post(f"/_sim/usernames/{PHONE_ID}/status", json={"status": "deleted"})

    assert sim.receiver.deliveries[0].value["status"] == "deleted"
    assert "username" not in sim.receiver.deliveries[0].value
