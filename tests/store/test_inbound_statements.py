"""The statements one inbound text message costs in its item transaction (the hottest path of POST /channel/webhook).

Pins the round trips the hot path was trimmed to: the tenant's webhooks read
once, the recorded events never read back, no conversation lookup for a
contact created in the same transaction (it can have no conversation yet), no
bindings read for a tenant without agents, no wamid lookup on a first try, one
INSERT for an item's events and one for its deliveries. A returning user's
message does look its conversation up. On PostgreSQL a user message's number
read, ledger claim and its tenant's webhooks are one statement (``with claim``), and so are its
contact's lookup and, for a new user, INSERT (``with found``), and a new
conversation's INSERT, the filing of its contact's unfiled sends and the
message's INSERT (``with conversation``). Numbering the item's events takes one UPDATE of
their conversation's counter (``store/events.py``, ``conversation_sequence``).
"""

from __future__ import annotations

import re
from collections import Counter

from sqlalchemy import event as sa_event
from sqlmodel import select

from switchboard.domain.inbound import parse_envelope
from switchboard.models.base import utcnow
from switchboard.models.inbound import InboundItemRecord
from switchboard.store import inbound as store
from switchboard.store.database import create_engine, session_factory, unit_of_work
from switchboard.store.webhooks.active import read_webhooks_once
from switchboard.store.webhooks.deliveries import plan_recorded_deliveries
from tests.api.agent_catalog_support import deployed
from tests.support.inbound import db, provision_fixture_number, text_payload


def _table_touched(statement: str) -> str:
    """``select conversations`` for a SELECT ... FROM conversations, ``insert events`` and so on."""
    # Subqueries (the number's EXISTS over its tenant's bindings) do not name the statement.
    while (outer := re.sub(r"\([^()]*\)", " ", statement)) != statement:
        statement = outer
    words = statement.lower().split()
    verb = words[0]
    if verb == "with":
        # PostgreSQL's combined statements, named by their first CTE: ``with claim``, ``with found``.
        return f"with {words[1]}"
    if verb == "select":
        return f"select {words[words.index('from') + 1]}"
    if verb in ("insert", "delete"):
        return f"{verb} {words[2]}"
    return f"{verb} {words[1]}"


async def _apply(settings, wamid: str, *, from_phone: str) -> tuple[store.ItemOutcome, Counter[str]]:
    """Apply one text message as the inbound activity does; its outcome and the statements it ran."""
    engine = create_engine(settings.database_url)
    ran: Counter[str] = Counter()

    def note(conn, cursor, statement, parameters, context, executemany):
        ran[_table_touched(statement)] += 1

    sa_event.listen(engine.sync_engine, "before_cursor_execute", note)
    try:
        (item,) = parse_envelope(text_payload(wamid, from_phone=from_phone), received_at=utcnow())
        async with unit_of_work(session_factory(engine)) as session:
            read_webhooks_once(session)
            outcome = await store.apply_item(
                session, item, payload_id=f"p-{wamid}", now=utcnow(), first_try=True
            )
            planned = await plan_recorded_deliveries(session, outcome.event_ids)
    finally:
        await engine.dispose()
    assert all(webhooks for _, webhooks in planned)
    return outcome, ran


async def test_a_new_users_message_and_a_returning_users(app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    hook = await app_client.post(
        "/v1/webhooks", json={"url": "https://hooks.example.com/in"}, headers=tenant.headers()
    )
    assert hook.status_code == 201, hook.text

    postgres = settings.database_url.startswith("postgresql")
    outcome, first = await _apply(settings, "wamid.first", from_phone="16505550001")
    assert outcome.result == store.APPLIED
    assert first["select conversations"] == 0
    # Inserted already pointing at its first message: the one UPDATE numbers its two events.
    assert first["update conversations"] == 1
    assert first["select events"] == 0
    # conversation.created and channel.message.received, in one INSERT.
    assert first["insert events"] == 1
    assert first["insert webhook_deliveries"] == 1
    # The tenant has no agent binding: the number's read said so, and no bindings read follows.
    assert first["select agent_bindings"] == 0
    # A first try does not look for the wamid (the unique key refuses a duplicate).
    assert first["select messages"] == 0
    if postgres:
        # The number with the claim and the tenant's webhooks, the contact's lookup with its INSERT, and
        # the conversation's INSERT with the filing of unfiled sends and the message's INSERT: five fewer.
        assert first["with claim"] == 1 and first["with found"] == 1 and first["with conversation"] == 1
        assert first["select phone_numbers"] == first["insert inbound_items"] == 0
        assert first["select webhook_endpoints"] == 0
        assert first["select contacts"] == first["insert contacts"] == 0
        assert first["insert conversations"] == first["update messages"] == first["insert messages"] == 0
        assert sum(first.values()) == 6
    else:
        assert first["select webhook_endpoints"] == 1
        assert first["select phone_numbers"] == first["insert inbound_items"] == 1
        assert first["select contacts"] == first["insert contacts"] == 1
        assert first["insert conversations"] == first["update messages"] == first["insert messages"] == 1
        assert sum(first.values()) == 11

    outcome, again = await _apply(settings, "wamid.again", from_phone="16505550001")
    assert outcome.result == store.APPLIED
    assert again["select conversations"] == 1
    assert again["insert conversations"] == 0
    assert again["insert events"] == 1
    # Its last message (the ORM's flush), then its event's number.
    assert again["update conversations"] == 2
    assert again["select agent_bindings"] == 0
    assert again["select messages"] == 0
    if postgres:
        # The contact is found: the statement's INSERT adds no row.
        assert again["with claim"] == 1 and again["with found"] == 1
        assert again["insert contacts"] == again["select webhook_endpoints"] == 0
        assert sum(again.values()) == 8
    else:
        assert again["select webhook_endpoints"] == 1
        assert again["select contacts"] == 1 and again["insert contacts"] == 0
        assert sum(again.values()) == 10


async def test_a_tenant_with_an_agent_reads_its_bindings_and_records_the_turn(app_client, tenant, settings):
    await provision_fixture_number(app_client, tenant)
    hook = await app_client.post(
        "/v1/webhooks", json={"url": "https://hooks.example.com/in"}, headers=tenant.headers()
    )
    assert hook.status_code == 201, hook.text
    await deployed(app_client, tenant)

    outcome, ran = await _apply(settings, "wamid.bound", from_phone="16505550002")
    assert outcome.result == store.APPLIED
    # The number's read said the tenant has an enabled binding, so the binding is chosen and a turn recorded.
    assert ran["select agent_bindings"] == 1
    assert len(outcome.turns) == 1
    assert ran["insert agent_threads"] == 1 and ran["insert agent_turns"] == 1


async def test_a_user_message_claims_its_key_only_for_a_number_provisioned_here(app_client, tenant, settings):
    """The number's read and the claim are one statement on PostgreSQL: an unknown number claims nothing."""

    async def apply(wamid: str) -> str:
        (item,) = parse_envelope(text_payload(wamid, from_phone="16505550003"), received_at=utcnow())
        async with db(settings) as session:
            outcome = await store.apply_item(
                session, item, payload_id=f"p-{wamid}", now=utcnow(), first_try=True
            )
        return outcome.result

    assert await apply("wamid.early") == store.IGNORED
    async with db(settings) as session:
        claimed = (await session.execute(select(InboundItemRecord.key))).scalars().all()
    assert claimed == [], "a number not provisioned here leaves no ledger key behind"

    await provision_fixture_number(app_client, tenant)
    # The same item once the number is ours: applied now, and a duplicate after.
    assert await apply("wamid.early") == store.APPLIED
    assert await apply("wamid.early") == store.DUPLICATE
    async with db(settings) as session:
        claimed = (await session.execute(select(InboundItemRecord.key))).scalars().all()
    assert len(claimed) == 1 and claimed[0].endswith("wamid.early")


async def test_the_webhooks_read_along_are_the_ones_a_read_of_their_own_finds(
    app_client, tenant, other_tenant, settings
):
    """On PostgreSQL the claim's statement reads the tenant's webhooks along; the same ones must come out."""
    await provision_fixture_number(app_client, tenant)
    await provision_fixture_number(
        app_client, tenant, phone_number_id="106540352242999", display="+1 650 555 0999"
    )

    async def hook(body: dict, *, owner=tenant) -> str:
        created = await app_client.post("/v1/webhooks", json=body, headers=owner.headers())
        assert created.status_code == 201, created.text
        return str(created.json()["id"])

    everything = await hook({"url": "https://hooks.example.com/all"})
    received = await hook({"url": "https://hooks.example.com/in", "events": ["channel.message.received"]})
    await hook({"url": "https://hooks.example.com/sent", "events": ["channel.message.sent"]})
    await hook({"url": "https://hooks.example.com/other-phone", "phone_number_id": "106540352242999"})
    disabled = await hook({"url": "https://hooks.example.com/off"})
    switched = await app_client.patch(
        f"/v1/webhooks/{disabled}", json={"enabled": False}, headers=tenant.headers()
    )
    assert switched.status_code == 200, switched.text
    await hook({"url": "https://hooks.example.com/theirs"}, owner=other_tenant)

    (item,) = parse_envelope(text_payload("wamid.along", from_phone="16505550004"), received_at=utcnow())
    async with db(settings) as session:
        read_webhooks_once(session)
        outcome = await store.apply_item(session, item, payload_id="p-along", now=utcnow(), first_try=True)
        planned = await plan_recorded_deliveries(session, outcome.event_ids)
    wanted = {event.kind: sorted(webhooks) for event, webhooks in planned}
    assert wanted == {
        "conversation.created": [everything],
        "channel.message.received": sorted([everything, received]),
    }
