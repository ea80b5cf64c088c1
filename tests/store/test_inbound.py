"""Inbound persistence under retries and concurrency: insert-or-ignore, the ledger, racing writers."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta

import pytest

from switchboard.activities.inbound import InboundActivities
from switchboard.domain.inbound import parse_envelope
from switchboard.models.base import utcnow
from switchboard.models.messaging import Message
from switchboard.store import inbound as store
from switchboard.store.database import create_engine
from tests.support.inbound import (
    add_outbound,
    contacts,
    conversations,
    db,
    events,
    messages,
    of_kind,
    provision_fixture_number,
    status_payload,
    text_payload,
)

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


async def test_raw_envelope_is_stored_once(settings):
    async with db(settings) as session:
        assert await store.store_raw_inbound(session, payload_id="p1", body="{}", received_at=T0) is True
    async with db(settings) as session:
        assert await store.store_raw_inbound(session, payload_id="p1", body="{}", received_at=T0) is False
        assert await store.raw_inbound_processed(session, "p1") is False
        await store.mark_raw_inbound_processed(session, "p1", at=T0)
    async with db(settings) as session:
        assert await store.raw_inbound_processed(session, "p1") is True
        pending = await store.unprocessed_raw_inbound(
            session, received_before=T0 + timedelta(days=1), limit=10
        )
    assert pending == []


async def test_keeping_an_envelope_says_whether_it_was_stamped_processed_before(settings):
    async def keep(at: datetime | None) -> bool:
        async with db(settings) as session:
            return await store.record_processed_raw_inbound(
                session, payload_id="p2", body="{}", received_at=T0, at=at
            )

    # Kept unstamped (deferred statuses the endpoint could not hand over): not a repeat, and left for the sweeper.
    assert await keep(None) is False
    async with db(settings) as session:
        assert await store.raw_inbound_processed(session, "p2") is False
    assert await keep(T0 + timedelta(seconds=1)) is False, "the first stamp is not a repeat"
    assert await keep(T0 + timedelta(seconds=2)) is True
    assert await keep(None) is True, "a stamp, once set, is kept"
    async with db(settings) as session:
        assert await store.raw_inbound_processed(session, "p2") is True


async def test_an_item_key_is_claimed_once_and_a_rollback_releases_it(settings):
    async with db(settings) as session:
        assert await store.claim_item(session, key="k", payload_id="p", at=T0) is True
        assert await store.claim_item(session, key="k", payload_id="p", at=T0) is False
    with pytest.raises(RuntimeError):
        async with db(settings) as session:
            assert await store.claim_item(session, key="k2", payload_id="p", at=T0) is True
            raise RuntimeError("the item's other changes failed")
    async with db(settings) as session:
        assert await store.claim_item(session, key="k2", payload_id="p", at=T0) is True


@asynccontextmanager
async def workers(settings, temporal_env):
    """A factory of InboundActivities, each standing for a separate worker process (no shared write turn)."""
    from switchboard.worker import build_deps, close_deps

    engine = create_engine(settings.database_url)
    deps = build_deps(temporal_env.client, settings, engine)
    try:
        yield lambda: InboundActivities(deps)
    finally:
        await close_deps(deps)
        await engine.dispose()


async def test_concurrent_first_messages_of_one_user_make_one_contact_and_conversation(
    app_client, tenant, settings, temporal_env
):
    await provision_fixture_number(app_client, tenant)
    items = [
        item
        for n in range(6)
        for item in parse_envelope(
            text_payload(f"wamid.race{n}", at=T0 + timedelta(seconds=n), user_id="US.4242"),
            received_at=utcnow(),
        )
    ]
    async with workers(settings, temporal_env) as worker:
        outcomes = await asyncio.gather(
            *(worker().applier.apply_one(item, payload_id=f"p{n}") for n, item in enumerate(items))
        )
    assert [o.result for o in outcomes] == ["applied"] * 6
    assert len(await contacts(settings, tenant.id)) == 1
    (conversation,) = await conversations(settings, tenant.id)
    assert conversation.unread_count == 6 and conversation.last_inbound_at == T0 + timedelta(seconds=5)
    recorded = await events(settings, tenant.id)
    assert len(of_kind(recorded, "conversation.created")) == 1
    received = of_kind(recorded, "channel.message.received")
    assert len(received) == 6 and sum(e.payload["is_new_conversation"] for e in received) == 1


async def test_concurrent_duplicates_apply_once(app_client, tenant, settings, temporal_env):
    await provision_fixture_number(app_client, tenant)
    (item,) = parse_envelope(text_payload("wamid.twice", at=T0), received_at=utcnow())
    async with workers(settings, temporal_env) as worker:
        outcomes = await asyncio.gather(
            *(worker().applier.apply_one(item, payload_id=f"p{n}") for n in range(4))
        )
    assert sorted(o.result for o in outcomes) == ["applied", "duplicate", "duplicate", "duplicate"]
    assert len(await messages(settings, tenant.id)) == 1
    assert len(of_kind(await events(settings, tenant.id), "channel.message.received")) == 1


async def test_concurrent_statuses_of_one_message_end_at_read(app_client, tenant, settings, temporal_env):
    await provision_fixture_number(app_client, tenant)
    sent = await add_outbound(settings, tenant, "wamid.out1")
    items = [
        item
        for status in ("delivered", "read", "sent", "delivered")
        for item in parse_envelope(status_payload("wamid.out1", status, at=T0), received_at=utcnow())
    ]
    async with workers(settings, temporal_env) as worker:
        await asyncio.gather(
            *(worker().applier.apply_one(item, payload_id=f"p{n}") for n, item in enumerate(items))
        )
    async with db(settings) as session:
        assert (await session.get(Message, sent.id)).status == "read"
    kinds = [e.kind for e in await events(settings, tenant.id)]
    assert kinds.count("channel.message.read") == 1 and kinds.count("channel.message.delivered") <= 1
    assert "channel.message.sent" not in kinds
