"""A delivery written straight to the database: a tenant, its webhook, and one event planned to it."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncEngine

from switchboard.models.base import utcnow
from switchboard.models.events import WebhookEndpoint
from switchboard.models.tenancy import Tenant
from switchboard.store import events
from switchboard.store.database import session_factory, unit_of_work
from switchboard.store.webhooks.deliveries import delivery_id_for, plan_recorded_deliveries

RECEIVED = "channel.message.received"


async def one_delivery(engine: AsyncEngine) -> tuple[str, str, str]:
    """A tenant with one webhook and one recorded event planned to it: (delivery, event, webhook) ids."""
    sessions = session_factory(engine)
    async with unit_of_work(sessions) as session:
        session.add(Tenant(id="ten_a", name="A"))
    async with unit_of_work(sessions) as session:
        hook = WebhookEndpoint(tenant_id="ten_a", url="https://a.test/in", secret_encrypted="s")
        session.add(hook)
    async with unit_of_work(sessions) as session:
        event = await events.record_event(
            session,
            tenant_id="ten_a",
            kind=RECEIVED,
            payload={"n": 1},
            occurred_at=utcnow(),
            phone_number_id="1",
        )
        ((planned_event, webhook_ids),) = await plan_recorded_deliveries(session, [event.id])
    assert webhook_ids == [hook.id]
    return delivery_id_for(planned_event.id, hook.id), planned_event.id, hook.id
