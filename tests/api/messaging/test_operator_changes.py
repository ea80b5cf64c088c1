"""Operator changes after provisioning (X-Admin-Key, and the `switchboard admin` commands that mirror them)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from switchboard.cli import app as cli_app
from switchboard.domain.secrets_box import open_sealed
from switchboard.models.messaging import Contact, Conversation, Message
from switchboard.models.tenancy import Customer, Waba
from tests.conftest import ADMIN_KEY, SECRETS_KEY
from tests.fixtures.channel import PHONE_NUMBER_ID
from tests.support.fake_channel import FakeChannel
from tests.support.inbound import db, deliver, provision_fixture_number, rows, text_payload
from tests.support.tenants import TenantFixture

ADMIN = {"X-Admin-Key": ADMIN_KEY}


async def patch_phone(client: httpx.AsyncClient, tenant_id: str, phone_id: str, body: Any) -> httpx.Response:
    return await client.patch(
        f"/v1/admin/tenants/{tenant_id}/phone-numbers/{phone_id}", json=body, headers=ADMIN
    )


async def patch_waba(client: httpx.AsyncClient, tenant_id: str, waba_id: str, body: Any) -> httpx.Response:
    return await client.patch(f"/v1/admin/tenants/{tenant_id}/wabas/{waba_id}", json=body, headers=ADMIN)


async def test_hiding_a_number_from_the_inbox_and_showing_it_again(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, settings, temporal_env
):
    phone = await provision_fixture_number(app_client, tenant)
    await deliver(app_client, temporal_env.client, text_payload("wamid.OP1"), settings=settings)
    inbox = "/v1/inbox-embed/conversations"
    [conversation] = (await app_client.get(inbox, headers=tenant.headers())).json()["data"]

    hidden = await patch_phone(app_client, tenant.id, phone["id"], {"hidden_from_inbox": True})
    assert hidden.status_code == 200, hidden.text
    assert (hidden.json()["hidden_from_inbox"], hidden.json()["throughput_tier"]) == (True, "standard")
    assert (await app_client.get(inbox, headers=tenant.headers())).json()["data"] == []
    assert (
        await app_client.get(f"{inbox}/{conversation['id']}", headers=tenant.headers())
    ).status_code == 404
    record = await app_client.get(f"/v1/phone-numbers/{phone['id']}", headers=tenant.headers())
    assert record.json()["hidden_from_inbox"] is True

    shown = await patch_phone(app_client, tenant.id, phone["id"], {"hidden_from_inbox": False})
    assert shown.json()["hidden_from_inbox"] is False
    assert [c["id"] for c in (await app_client.get(inbox, headers=tenant.headers())).json()["data"]] == [
        conversation["id"]
    ]


async def test_a_new_throughput_tier_applies_to_the_next_sends(
    app_client: httpx.AsyncClient, tenant: TenantFixture
):
    changed = await patch_phone(app_client, tenant.id, tenant.phone_id, {"throughput_tier": "high"})
    assert changed.status_code == 200, changed.text
    assert (changed.json()["throughput_tier"], changed.json()["hidden_from_inbox"]) == ("high", False)
    record = await app_client.get(f"/v1/phone-numbers/{tenant.phone_id}", headers=tenant.headers())
    assert record.json()["throughput_tier"] == "high"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"throughput_tier": "turbo"}, "throughput_tier"),
        ({"hidden_from_inbox": "perhaps"}, "hidden_from_inbox"),
        ({"display_phone_number": "+1 555"}, "display_phone_number"),
    ],
    ids=["unknown-tier", "not-a-boolean", "not-changeable"],
)
async def test_invalid_phone_changes_are_400(
    app_client: httpx.AsyncClient, tenant: TenantFixture, body: dict[str, Any], field: str
):
    response = await patch_phone(app_client, tenant.id, tenant.phone_id, body)
    assert response.status_code == 400, response.text
    assert (response.json()["code"], response.json()["details"]["field"]) == ("VALIDATION_FAILED", field)


async def test_unknown_or_foreign_ids_are_404(
    app_client: httpx.AsyncClient, tenant: TenantFixture, other_tenant: TenantFixture
):
    answers = {
        "unknown phone": await patch_phone(app_client, tenant.id, "pn_nope", {"hidden_from_inbox": True}),
        "foreign phone": await patch_phone(
            app_client, tenant.id, other_tenant.phone_id, {"hidden_from_inbox": True}
        ),
        "unknown waba": await patch_waba(app_client, tenant.id, "123", {"messaging_tier": "tier_2"}),
        "foreign waba": await patch_waba(
            app_client, tenant.id, other_tenant.waba_id, {"messaging_tier": "tier_2"}
        ),
        "unknown customer": await app_client.delete(
            f"/v1/admin/tenants/{tenant.id}/customers/cus_nope", headers=ADMIN
        ),
        "foreign customer": await app_client.delete(
            f"/v1/admin/tenants/{tenant.id}/customers/{other_tenant.customer_id}", headers=ADMIN
        ),
        "unknown tenant": await patch_phone(
            app_client, "ten_nope", tenant.phone_id, {"hidden_from_inbox": True}
        ),
    }
    assert {name: r.status_code for name, r in answers.items()} == dict.fromkeys(answers, 404)
    other = await app_client.get(f"/v1/phone-numbers/{other_tenant.phone_id}", headers=other_tenant.headers())
    assert other.json()["hidden_from_inbox"] is False


async def test_operator_changes_need_the_admin_key(app_client: httpx.AsyncClient, tenant: TenantFixture):
    path = f"/v1/admin/tenants/{tenant.id}"
    answers = [
        await app_client.patch(f"{path}/phone-numbers/{tenant.phone_id}", json={"hidden_from_inbox": True}),
        await app_client.patch(
            f"{path}/wabas/{tenant.waba_id}", json={"messaging_tier": "tier_2"}, headers=tenant.headers()
        ),
        await app_client.delete(f"{path}/customers/{tenant.customer_id}", headers={"X-Admin-Key": "wrong"}),
    ]
    assert [(a.status_code, a.json()["code"]) for a in answers] == [(401, "INVALID_ADMIN_KEY")] * 3


async def test_a_new_waba_token_is_sealed_never_returned_and_used_by_the_next_send(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel, settings
):
    changed = await patch_waba(
        app_client,
        tenant.id,
        tenant.waba_id,
        {"access_token": "rotated-secret-token", "messaging_tier": "tier_3"},
    )
    assert changed.status_code == 200, changed.text
    assert changed.json()["messaging_tier"] == "tier_3"
    assert "rotated-secret-token" not in changed.text and "access_token" not in changed.json()
    [waba] = await rows(settings, Waba, Waba.waba_id == tenant.waba_id)
    assert "rotated-secret-token" not in waba.access_token_encrypted
    assert waba.messaging_tier == "tier_3"
    body = {
        "phone_number_id": tenant.phone_number_id,
        "to": "14155550100",
        "type": "text",
        "text": {"body": "x"},
    }
    assert (await app_client.post("/v1/messages", json=body, headers=tenant.headers())).status_code == 201
    assert channel.auth_headers[-1] == "Bearer rotated-secret-token"


async def test_an_empty_token_or_unknown_tier_is_400(app_client: httpx.AsyncClient, tenant: TenantFixture):
    empty = await patch_waba(app_client, tenant.id, tenant.waba_id, {"access_token": ""})
    assert (empty.status_code, empty.json()["code"]) == (400, "VALIDATION_FAILED"), empty.text
    assert "value" not in empty.json()["details"], "a token is never echoed"
    tier = await patch_waba(app_client, tenant.id, tenant.waba_id, {"messaging_tier": "tier_9"})
    assert (tier.status_code, tier.json()["details"]["field"]) == (400, "messaging_tier"), tier.text


async def test_deleting_a_customer_removes_its_contacts_and_conversations(
    app_client: httpx.AsyncClient, tenant: TenantFixture, settings
):
    created = await app_client.post(
        f"/v1/admin/tenants/{tenant.id}/customers", json={"name": "Gone"}, headers=ADMIN
    )
    gone = created.json()["id"]
    # What a number of this customer left behind (numbers are never moved between customers by the API).
    async with db(settings) as session:
        contact = Contact(tenant_id=tenant.id, customer_id=gone, phone="14155550123")
        session.add(contact)
        await session.flush()
        conversation = Conversation(
            tenant_id=tenant.id,
            customer_id=gone,
            phone_number_id=tenant.phone_number_id,
            contact_id=contact.id,
            contact_phone=contact.phone,
        )
        session.add(conversation)
        await session.flush()
        message = Message(
            tenant_id=tenant.id,
            phone_number_id=tenant.phone_number_id,
            direction="inbound",
            message_type="text",
            status="received",
            contact_id=contact.id,
            conversation_id=conversation.id,
        )
        session.add(message)
    response = await app_client.delete(f"/v1/admin/tenants/{tenant.id}/customers/{gone}", headers=ADMIN)
    assert response.status_code == 200, response.text
    assert response.json() == {"id": gone, "deleted": True, "contacts_deleted": 1, "conversations_deleted": 1}
    assert await rows(settings, Customer, Customer.id == gone) == []
    assert await rows(settings, Contact, Contact.customer_id == gone) == []
    assert await rows(settings, Conversation, Conversation.customer_id == gone) == []
    [kept] = await rows(settings, Message, Message.id == message.id)
    assert (kept.conversation_id, kept.contact_id) == (None, None)
    assert (await app_client.get(f"/v1/customers/{gone}", headers=tenant.headers())).status_code == 404
    again = await app_client.delete(f"/v1/admin/tenants/{tenant.id}/customers/{gone}", headers=ADMIN)
    assert again.status_code == 404


async def test_a_customer_that_owns_numbers_is_not_deleted(
    app_client: httpx.AsyncClient, tenant: TenantFixture, worker, channel: FakeChannel, settings
):
    response = await app_client.delete(
        f"/v1/admin/tenants/{tenant.id}/customers/{tenant.customer_id}", headers=ADMIN
    )
    assert response.status_code == 409, response.text
    assert (response.json()["code"], response.json()["details"]["phone_numbers"]) == (
        "CUSTOMER_HAS_PHONE_NUMBERS",
        1,
    )
    assert (
        await app_client.get(f"/v1/customers/{tenant.customer_id}", headers=tenant.headers())
    ).status_code == 200
    # The default customer holds the contacts of numbers without a customer: refused while there are such numbers.
    await provision_fixture_number(app_client, tenant, with_customer=False)
    body = {"phone_number_id": PHONE_NUMBER_ID, "to": "14155550100", "type": "text", "text": {"body": "x"}}
    assert (await app_client.post("/v1/messages", json=body, headers=tenant.headers())).status_code == 201
    default = f"cus_default_{tenant.id}"
    refused = await app_client.delete(f"/v1/admin/tenants/{tenant.id}/customers/{default}", headers=ADMIN)
    assert (refused.status_code, refused.json()["code"]) == (409, "CUSTOMER_HAS_PHONE_NUMBERS")
    assert len(await rows(settings, Contact, Contact.customer_id == default)) == 1


def _cli(args: list[str], database_url: str, *, stdin: str | None = None) -> Any:
    env = {
        "DATABASE_URL": database_url,
        "SWITCHBOARD_SECRETS_KEY": SECRETS_KEY,
        "SWITCHBOARD_ADMIN_KEY": ADMIN_KEY,
        "SWITCHBOARD_ENV": "test",
    }
    return CliRunner().invoke(cli_app, ["admin", *args], env=env, input=stdin)


async def test_the_admin_commands_mirror_the_endpoints(
    app_client: httpx.AsyncClient, tenant: TenantFixture, settings, database_url
):
    run = asyncio.to_thread
    phone = await run(
        _cli,
        [
            "update-phone-number",
            tenant.id,
            tenant.phone_id,
            "--hidden-from-inbox",
            "--throughput-tier",
            "medium",
            "--json",
        ],
        database_url,
    )
    assert phone.exit_code == 0, phone.output
    assert (json.loads(phone.output)["hidden_from_inbox"], json.loads(phone.output)["throughput_tier"]) == (
        True,
        "medium",
    )
    record = (await app_client.get(f"/v1/phone-numbers/{tenant.phone_id}", headers=tenant.headers())).json()
    assert (record["hidden_from_inbox"], record["throughput_tier"]) == (True, "medium")

    waba = await run(
        _cli,
        ["update-waba", tenant.id, tenant.waba_id, "--messaging-tier", "tier_2", "--access-token", "--json"],
        database_url,
        stdin="cli-token\n",
    )
    assert waba.exit_code == 0, waba.output
    assert json.loads(waba.output[waba.output.index("{") :])["messaging_tier"] == "tier_2"
    assert "cli-token" not in waba.output
    [row] = await rows(settings, Waba, Waba.waba_id == tenant.waba_id)
    key = settings.secrets_key_bytes
    assert (
        open_sealed(key, row.access_token_encrypted, associated_data=f"waba:{tenant.waba_id}") == "cli-token"
    )

    created = await app_client.post(
        f"/v1/admin/tenants/{tenant.id}/customers", json={"name": "Old"}, headers=ADMIN
    )
    deleted = await run(
        _cli, ["delete-customer", tenant.id, created.json()["id"], "--yes", "--json"], database_url
    )
    assert deleted.exit_code == 0, deleted.output
    assert json.loads(deleted.output)["deleted"] is True
    refused = await run(_cli, ["delete-customer", tenant.id, tenant.customer_id, "--yes"], database_url)
    assert refused.exit_code == 1 and "still owns 1 phone number" in refused.output
    missing = await run(
        _cli, ["update-phone-number", tenant.id, "pn_nope", "--visible-in-inbox"], database_url
    )
    assert missing.exit_code == 1 and "not found" in missing.output
