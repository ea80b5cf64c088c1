"""A tenant's active webhooks, read once per transaction by the paths that record events in bulk.

Recording an event asks whether any active webhook wants it (an unwanted one
is stored already dispatched), and planning its deliveries asks which ones do.
An inbound message raises two events, so that was four reads of the same rows
in one transaction. A transaction that opts in with ``read_webhooks_once``
keeps the first answer per tenant; the paths that opt in (an inbound item, a
send outcome) never change a webhook in the same transaction, so the answer
cannot go stale before their commit. Other transactions read every time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import JSON, ColumnElement, bindparam, func, select, true, type_coerce
from sqlalchemy.ext.asyncio import AsyncSession

from switchboard.domain.events import matches
from switchboard.models.events import WebhookEndpoint
from switchboard.store.tables import table_of

_CACHE = "switchboard.active_webhooks"

_endpoints = table_of(WebhookEndpoint)


def _active_of(tenant_id: ColumnElement[Any]) -> tuple[ColumnElement[bool], ...]:
    """Which webhooks are active: the tenant's, enabled, and not auto-disabled."""
    return (
        _endpoints.c.tenant_id == tenant_id,
        _endpoints.c.enabled.is_(true()),
        _endpoints.c.auto_disabled_at.is_(None),
    )


# Built once: constructing the statement cost more CPU than running it.
_ACTIVE = select(_endpoints.c.id, _endpoints.c.events, _endpoints.c.phone_number_id).where(
    *_active_of(bindparam("tenant_id"))
)


@dataclass(frozen=True, slots=True)
class ActiveWebhook:
    """What deciding a delivery needs of an enabled, not auto-disabled webhook."""

    id: str
    events: list[str] | None
    phone_number_id: str | None

    def wants(self, kind: str, phone_number_id: str | None) -> bool:
        return matches(self.events, self.phone_number_id, kind, phone_number_id)


def active_webhooks_as_json(tenant_id: ColumnElement[Any]) -> ColumnElement[Any]:
    """The active webhooks of the tenant ``tenant_id`` names, as one JSON array of [id, events, phone] (PostgreSQL).

    For a statement that reads a tenant's row anyway (store/inbound/number_claim.py): it reads the
    webhooks along, and ``keep_active_webhooks`` saves this transaction their separate read. NULL when
    the tenant has none.
    """
    listed = (
        select(
            func.json_agg(
                func.json_build_array(_endpoints.c.id, _endpoints.c.events, _endpoints.c.phone_number_id)
            )
        )
        .where(*_active_of(tenant_id))
        .scalar_subquery()
    )
    return type_coerce(listed, JSON)


def keep_active_webhooks(session: AsyncSession, tenant_id: str, listed: list[list[Any]] | None) -> None:
    """Keep a tenant's webhooks read along by another statement (``active_webhooks_as_json``) for this transaction.

    Nothing is kept unless the transaction opted in (``read_webhooks_once``): another would read them anew.
    """
    cache: dict[str, list[ActiveWebhook]] | None = session.info.get(_CACHE)
    if cache is None:
        return
    cache[tenant_id] = [
        ActiveWebhook(id=webhook_id, events=events, phone_number_id=phone_number_id)
        for webhook_id, events, phone_number_id in listed or []
    ]


def read_webhooks_once(session: AsyncSession) -> None:
    """Keep each tenant's active webhooks for the rest of this session (a ``unit_of_work``: one transaction)."""
    session.info[_CACHE] = {}


async def active_webhooks(session: AsyncSession, tenant_id: str) -> list[ActiveWebhook]:
    """The tenant's enabled, not auto-disabled webhooks (from this transaction's first read if it opted in)."""
    cache: dict[str, list[ActiveWebhook]] | None = session.info.get(_CACHE)
    if cache is not None and tenant_id in cache:
        return cache[tenant_id]
    rows: Any
    if cache is None:
        rows = (await session.execute(_ACTIVE, {"tenant_id": tenant_id})).all()
    else:
        # The paths that opt in change no webhook (above), so their pending rows need no flush before
        # this read: they go out together at the caller's next flush.
        with session.no_autoflush:
            rows = (await session.execute(_ACTIVE, {"tenant_id": tenant_id})).all()
    found = [ActiveWebhook(id=row.id, events=row.events, phone_number_id=row.phone_number_id) for row in rows]
    if cache is not None:
        cache[tenant_id] = found
    return found
