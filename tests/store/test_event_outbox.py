"""The outbox marks events no enabled webhook wants as dispatched (no workflow, never delivered later)."""

from __future__ import annotations

from datetime import datetime

import pytest

from switchboard.models.base import utcnow
from switchboard.models.events import WebhookEndpoint
from switchboard.models.tenancy import Tenant
from switchboard.store import events
from switchboard.store.database import create_engine, session_factory, unit_of_work


@pytest.fixture
async def sessions(database_url):
    engine = create_engine(database_url)
    factory = session_factory(engine)
    async with unit_of_work(factory) as session:
        session.add(Tenant(id="ten_a", name="A"))
        session.add(Tenant(id="ten_b", name="B"))
    yield factory
    await engine.dispose()


async def _webhook(sessions, **fields) -> None:
    async with unit_of_work(sessions) as session:
        session.add(
            WebhookEndpoint(tenant_id="ten_a", url="https://x.test/h", secret_encrypted="s", **fields)
        )


async def _record(
    sessions, kind: str = "channel.message.received", phone: str | None = "111"
) -> datetime | None:
    async with unit_of_work(sessions) as session:
        event = await events.record_event(
            session,
            tenant_id="ten_a",
            kind=kind,
            payload={"event": kind},
            occurred_at=utcnow(),
            phone_number_id=phone,
        )
    async with sessions() as session:
        pending = await events.awaiting_dispatch(session, [event.id])
    assert (pending == [event.id]) == (event.dispatched_at is None)
    return event.dispatched_at


async def test_no_webhook_means_stored_dispatched(sessions):
    assert await _record(sessions) is not None


@pytest.mark.parametrize(
    ("fields", "kind", "phone", "wanted"),
    [
        ({}, "channel.message.received", "111", True),
        ({"events": ["channel.message.read"]}, "channel.message.received", "111", False),
        ({"phone_number_id": "222"}, "channel.message.received", "111", False),
        ({"phone_number_id": "111"}, "channel.message.received", "111", True),
        ({"enabled": False}, "channel.message.received", "111", False),
        ({"auto_disabled_at": utcnow()}, "channel.message.received", "111", False),
    ],
    ids=["all-events", "other-kind", "other-phone", "same-phone", "disabled", "auto-disabled"],
)
async def test_dispatch_only_when_an_enabled_webhook_wants_it(sessions, fields, kind, phone, wanted):
    await _webhook(sessions, **fields)
    assert (await _record(sessions, kind, phone) is None) is wanted


async def test_webhook_test_events_always_dispatch(sessions):
    assert await _record(sessions, "webhook.test", None) is None
