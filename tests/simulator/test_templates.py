from __future__ import annotations

from typing import Any

import pytest

from tests.simulator.support import AUTH, Sim, running_sim

WABA = "102290129340398"


def _template(name: str = "order_confirmation", language: str = "en_US", **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "language": language,
        "category": "UTILITY",
        "parameter_format": "named",
        "components": [
            {
                "type": "BODY",
                "text": "Thank you, {{first_name}}!",
                "example": {"body_text_named_params": [{"param_name": "first_name", "example": "Pablo"}]},
            }
        ],
        **extra,
    }


async def _create(sim: Sim, body: dict[str, Any]):
    return await sim.client.post(f"/v21.0/{WABA}/message_templates", json=body, headers=AUTH)


def _template_send(name: str, language: str = "en_US") -> dict[str, Any]:
    return {
        "messaging_product": "whatsapp",
        "to": "+16505551234",
        "type": "template",
        "template": {"name": name, "language": {"code": language}},
    }


async def test_create_answers_pending(sim: Sim) -> None:
    response = await _create(sim, _template())

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "PENDING"
    assert body["category"] == "UTILITY"
    assert body["id"].isdigit()


async def test_duplicate_name_and_language_is_2388024(sim: Sim) -> None:
    await _create(sim, _template())
    other_language = await _create(sim, _template(language="es_AR"))
    duplicate = await _create(sim, _template())

    assert other_language.status_code == 200
    assert duplicate.status_code == 400
    error = duplicate.json()["error"]
    assert (error["code"], error["error_subcode"]) == (100, 2388024)


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"name": "Bad-Name"}, 100),
        ({"category": "PROMO"}, 100),
        ({"parameter_format": "mixed"}, 100),
        ({"components": None}, 131008),
    ],
)
async def test_invalid_creation_is_refused(sim: Sim, change: dict[str, Any], code: int) -> None:
    response = await _create(sim, _template() | change)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == code


async def test_list_includes_parameter_format_and_pages(sim: Sim) -> None:
    for index in range(3):
        await _create(sim, _template(name=f"tpl_{index}"))
    await _create(sim, _template(name="positional_one", parameter_format="positional"))

    first = (
        await sim.client.get(f"/v21.0/{WABA}/message_templates", params={"limit": 2}, headers=AUTH)
    ).json()
    after = first["paging"]["cursors"]["after"]
    second = (
        await sim.client.get(
            f"/v21.0/{WABA}/message_templates", params={"limit": 2, "after": after}, headers=AUTH
        )
    ).json()

    assert [t["name"] for t in first["data"]] == ["tpl_0", "tpl_1"]
    assert "next" in first["paging"]
    assert [t["name"] for t in second["data"]] == ["tpl_2", "positional_one"]
    assert "next" not in second["paging"]
    assert [t["parameter_format"] for t in first["data"] + second["data"]] == [
        "NAMED",
        "NAMED",
        "NAMED",
        "POSITIONAL",
    ]
    assert set(first["data"][0]) >= {"name", "status", "category", "language", "components", "id"}


async def test_list_filters_by_status_and_name(sim: Sim) -> None:
    await _create(sim, _template(name="welcome"))
    await _create(sim, _template(name="receipt"))
    await sim.client.post("/_sim/templates/receipt/status", json={"status": "APPROVED"})

    approved = (
        await sim.client.get(f"/v21.0/{WABA}/message_templates", params={"status": "APPROVED"}, headers=AUTH)
    ).json()
    by_name = (
        await sim.client.get(f"/v21.0/{WABA}/message_templates", params={"name": "wel"}, headers=AUTH)
    ).json()
    other_waba = (await sim.client.get("/v21.0/999/message_templates", headers=AUTH)).json()

    assert [t["name"] for t in approved["data"]] == ["receipt"]
    assert [t["name"] for t in by_name["data"]] == ["welcome"]
    assert other_waba["data"] == []


async def test_status_change_posts_signed_template_webhook(sim: Sim) -> None:
    template_id = (await _create(sim, _template())).json()["id"]

    response = await sim.client.post(
        "/_sim/templates/order_confirmation/status", json={"status": "REJECTED", "reason": "INVALID_FORMAT"}
    )

    assert response.status_code == 200
    assert response.json()["data"][0]["status"] == "REJECTED"
    [delivery] = sim.receiver.deliveries
    assert delivery.signed()
    assert delivery.field == "message_template_status_update"
    assert delivery.payload["entry"][0]["id"] == WABA
    assert delivery.value == {
        "event": "REJECTED",
        "message_template_id": int(template_id),
        "message_template_name": "order_confirmation",
        "message_template_language": "en_US",
        "reason": "INVALID_FORMAT",
        "message_template_category": "UTILITY",
    }
    fetched = await sim.client.get(f"/v21.0/{template_id}", params={"fields": "status"}, headers=AUTH)
    assert fetched.json() == {"status": "REJECTED", "id": template_id}


async def test_status_change_of_unknown_template_is_404(sim: Sim) -> None:
    response = await sim.client.post("/_sim/templates/nope/status", json={"status": "APPROVED"})
    assert response.status_code == 404


@pytest.mark.parametrize(
    ("status", "http_status", "code"),
    [("PENDING", 400, 132001), ("REJECTED", 400, 132001), ("PAUSED", 400, 132015), ("DISABLED", 400, 132016)],
)
async def test_sending_a_non_approved_template_fails(
    sim: Sim, status: str, http_status: int, code: int
) -> None:
    await _create(sim, _template())
    if status != "PENDING":
        await sim.client.post("/_sim/templates/order_confirmation/status", json={"status": status})

    response = await sim.send(_template_send("order_confirmation"))

    assert response.status_code == http_status
    assert response.json()["error"]["code"] == code


async def test_sending_an_approved_template_uses_its_category(sim: Sim) -> None:
    await _create(sim, _template() | {"category": "marketing"})
    await sim.client.post("/_sim/templates/order_confirmation/status", json={"status": "APPROVED"})

    wrong_language = await sim.send(_template_send("order_confirmation", "fr"))
    response = await sim.send(_template_send("order_confirmation"))

    assert wrong_language.json()["error"]["code"] == 132001
    wamid = response.json()["messages"][0]["id"]
    await sim.receiver.wait_for(lambda: len(sim.receiver.statuses(wamid)) == 3)
    assert sim.receiver.statuses(wamid)[0]["pricing"]["category"] == "marketing"


async def test_auto_review_approves_after_delay() -> None:
    async with running_sim(template_review_ms=10) as sim:
        await _create(sim, _template())
        await sim.receiver.wait_for(lambda: len(sim.receiver.deliveries) == 1)
        listed = (await sim.client.get(f"/v21.0/{WABA}/message_templates", headers=AUTH)).json()

    assert sim.receiver.deliveries[0].value["event"] == "APPROVED"
    assert listed["data"][0]["status"] == "APPROVED"


async def test_edit_and_delete(sim: Sim) -> None:
    template_id = (await _create(sim, _template())).json()["id"]
    pending_edit = await sim.client.post(f"/v21.0/{template_id}", json={"components": []}, headers=AUTH)
    await sim.client.post("/_sim/templates/order_confirmation/status", json={"status": "APPROVED"})
    edit = await sim.client.post(f"/v21.0/{template_id}", json={"category": "marketing"}, headers=AUTH)

    deleted = await sim.client.delete(
        f"/v21.0/{WABA}/message_templates", params={"name": "order_confirmation"}, headers=AUTH
    )
    listed = (await sim.client.get(f"/v21.0/{WABA}/message_templates", headers=AUTH)).json()

    assert pending_edit.status_code == 400
    assert edit.json() == {"success": True}
    assert deleted.json() == {"success": True}
    assert listed["data"] == []
