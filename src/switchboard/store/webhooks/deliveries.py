"""SQL for dispatching events to webhooks and recording delivery attempts.

Every write here is idempotent, because activities are retried: a delivery
row per (event, webhook) with a deterministic id, an attempt row per
(delivery, attempt) inserted at most once, a delivery settled only from
``pending``, an auto-disable applied only to a webhook not already disabled.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from typing import Any

from sqlalchemy import bindparam, exists, false, func, or_, update
from sqlalchemy import select as core_select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col, select

from switchboard.domain.events import WEBHOOK_TEST
from switchboard.models.base import new_id
from switchboard.models.events import Event, WebhookAttempt, WebhookDelivery, WebhookEndpoint
from switchboard.store.events import recorded_here, write_recorded_events
from switchboard.store.tables import table_of
from switchboard.store.untracked import copy_of
from switchboard.store.webhooks.active import ActiveWebhook, active_webhooks

PENDING = "pending"
# The settled status of a delivery whose attempt succeeded (DeliveryOutcome.SUCCEEDED).
SUCCEEDED = "succeeded"
# A busy endpoint's row is rewritten at most this often while its state stays
# the same, so thousands of attempts a second do not queue on one hot row.
CLOCK_GRANULARITY = timedelta(seconds=60)

_deliveries = table_of(WebhookDelivery)
_attempts = table_of(WebhookAttempt)
_endpoints = table_of(WebhookEndpoint)
_events = table_of(Event)


def delivery_id_for(event_id: str, webhook_id: str) -> str:
    """The one delivery id an (event, webhook) pair may have: time-ordered like the event, then a digest."""
    digest = hashlib.sha256(f"{event_id}:{webhook_id}".encode()).hexdigest()[:20]
    return f"dlv_{event_id.split('_', 1)[-1][:10]}{digest}"


def is_active(webhook: WebhookEndpoint) -> bool:
    """Enabled and not auto-disabled: the only webhooks that get deliveries."""
    return webhook.enabled and webhook.auto_disabled_at is None


async def plan_deliveries(session: AsyncSession, event_id: str) -> tuple[Event | None, list[WebhookDelivery]]:
    """Create the event's delivery rows (active, matching webhooks) and return all of them.

    Settled ones too: a run that exists already is not started again, and one started now for a delivery
    whose attempt was recorded reads that attempt back instead of posting.
    """
    event = await session.get(Event, event_id)
    if event is None:
        return None, []
    await _insert_deliveries(session, event)
    planned = select(WebhookDelivery).where(WebhookDelivery.event_id == event.id)
    return event, list((await session.execute(planned.order_by(WebhookDelivery.id))).scalars())


async def plan_recorded_deliveries(
    session: AsyncSession, event_ids: list[str]
) -> list[tuple[Event, list[str]]]:
    """Create the deliveries of events recorded in this transaction and still undispatched.

    Each such event with the ids of its matching webhooks (its deliveries are
    new, so none is read back); events stored already dispatched are left out.
    The events this session recorded are taken as they are; only others are read.
    """
    if not event_ids:
        return []
    await write_recorded_events(session)  # the deliveries' rows refer to them
    event_ids = list(dict.fromkeys(event_ids))  # each event once, in the order given
    held: dict[str, Event | None] = {event_id: recorded_here(session, event_id) for event_id in event_ids}
    missing = [event_id for event_id, event in held.items() if event is None]
    if missing:
        stmt = select(Event).where(col(Event.id).in_(missing))
        held.update({event.id: event for event in (await session.execute(stmt)).scalars()})
    events = [
        event
        for event_id in event_ids
        if isinstance(event := held.get(event_id), Event) and event.dispatched_at is None
    ]
    planned = [(event, await _matching_webhooks(session, event)) for event in events]
    # All the transaction's deliveries in one round trip.
    await _insert_rows(
        session, [row for event, webhooks in planned for row in _delivery_rows(event, webhooks)]
    )
    return [(event, [webhook.id for webhook in webhooks]) for event, webhooks in planned]


@cache
def _insert_delivery(dialect: str) -> Any:
    """INSERT one delivery row unless its id exists; built once per dialect, run once per row."""
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    return insert(_deliveries).on_conflict_do_nothing(index_elements=[_deliveries.c.id])


async def _matching_webhooks(session: AsyncSession, event: Event) -> list[ActiveWebhook]:
    """The active webhooks that want this event (a test event: only the webhook it tests)."""
    webhooks = [
        webhook
        for webhook in await active_webhooks(session, event.tenant_id)
        if webhook.wants(event.kind, event.phone_number_id)
    ]
    if event.kind == WEBHOOK_TEST:
        webhooks = [webhook for webhook in webhooks if webhook.id == event.payload.get("webhook_id")]
    return webhooks


def _delivery_rows(event: Event, webhooks: list[ActiveWebhook]) -> list[dict[str, Any]]:
    return [
        {
            "id": delivery_id_for(event.id, w.id),
            "tenant_id": event.tenant_id,
            "event_id": event.id,
            "webhook_id": w.id,
            "status": PENDING,
            "attempts": 0,
            "created_at": event.created_at,
        }
        for w in webhooks
    ]


async def _insert_rows(session: AsyncSession, rows: list[dict[str, Any]]) -> None:
    """Insert delivery rows whose ids do not exist yet (idempotent), in one round trip."""
    if rows:
        await session.execute(_insert_delivery(session.get_bind().dialect.name), rows)


async def _insert_deliveries(session: AsyncSession, event: Event) -> list[str]:
    """Insert one delivery per active, matching webhook (idempotent); the webhooks' ids."""
    webhooks = await _matching_webhooks(session, event)
    await _insert_rows(session, _delivery_rows(event, webhooks))
    return [w.id for w in webhooks]


async def mark_dispatched(session: AsyncSession, event_id: str, *, at: datetime) -> None:
    """Stamp the outbox row so the sweeper leaves it alone."""
    await session.execute(
        update(_events)
        .where(_events.c.id == event_id, _events.c.dispatched_at.is_(None))
        .values(dispatched_at=at)
    )


# Built once (every inbound item and send outcome runs it); an UPDATE's bound names may not be column names.
_MARK_DISPATCHED_MANY = (
    update(_events)
    .where(_events.c.id.in_(bindparam("event_ids", expanding=True)), _events.c.dispatched_at.is_(None))
    .values(dispatched_at=bindparam("stamped_at"))
)


async def mark_dispatched_many(session: AsyncSession, event_ids: list[str], *, at: datetime) -> None:
    """Stamp several outbox rows in one statement."""
    if event_ids:
        await session.execute(_MARK_DISPATCHED_MANY, {"event_ids": event_ids, "stamped_at": at})


async def undispatched_events(session: AsyncSession, *, created_before: datetime, limit: int) -> list[str]:
    """Outbox rows a crash left undispatched (oldest first)."""
    stmt = (
        select(Event.id)
        .where(col(Event.dispatched_at).is_(None), Event.created_at < created_before)
        .order_by(col(Event.created_at))
        .limit(limit)
    )
    return list((await session.execute(stmt)).scalars())


@dataclass(frozen=True)
class DeliveryContext:
    delivery: WebhookDelivery
    webhook: WebhookEndpoint | None
    event: Event


# Every attempt starts here, so the three rows come in one round trip, as columns: the attempt only
# reads them, and loading three mapped rows into a session cost more CPU than the statement
# (docs/decisions/0004-hot-statements-without-orm.md). Fresh from the database, never from a session's identity map:
# the webhook's state (disabled, deleted) decides whether to post.
_LOAD_DELIVERY = (
    core_select(
        *(column.label(f"d_{column.name}") for column in _deliveries.c),
        *(column.label(f"e_{column.name}") for column in _events.c),
        *(column.label(f"w_{column.name}") for column in _endpoints.c),
    )
    .select_from(
        _deliveries.join(_events, _events.c.id == _deliveries.c.event_id).outerjoin(
            _endpoints, _endpoints.c.id == _deliveries.c.webhook_id
        )
    )
    .where(_deliveries.c.id == bindparam("of_delivery_id"))
)


async def load_delivery(session: AsyncSession, delivery_id: str) -> DeliveryContext | None:
    """The delivery with its webhook (None once deleted) and event; None when the delivery or its event is gone.

    Copies that no session tracks (``store/untracked.py``): the attempt writes with statements of its
    own (``record_attempt``), and a health evaluation reads the webhook afresh.
    """
    row = (await session.execute(_LOAD_DELIVERY, {"of_delivery_id": delivery_id})).first()
    if row is None:
        return None
    values = row._mapping
    delivery, event = copy_of(WebhookDelivery, values, "d_"), copy_of(Event, values, "e_")
    assert delivery is not None and event is not None  # inner-joined: the row is theirs
    return DeliveryContext(delivery=delivery, webhook=copy_of(WebhookEndpoint, values, "w_"), event=event)


async def recorded_attempt(session: AsyncSession, delivery_id: str, attempt: int) -> WebhookAttempt | None:
    """An attempt already recorded (a retried activity returns it instead of posting again)."""
    stmt = select(WebhookAttempt).where(
        WebhookAttempt.delivery_id == delivery_id, WebhookAttempt.attempt == attempt
    )
    return (await session.execute(stmt)).scalars().first()


@dataclass(frozen=True)
class RecordedAttempt:
    # A success settles its pending delivery in the same UPDATE that counts the attempt.
    settled: bool


# A delivery attempt's record is written by every delivery, so its statements are built once with bound
# parameters: building them per attempt cost more CPU than their round trips (py-spy, deployed inbound).
# Their bound names are not column names: in the one-statement record (PostgreSQL), an UPDATE given a
# parameter named like one of its table's columns (``id``) would SET it.
_GIVEN = ("id", "attempt", "success", "status_code", "latency_ms", "error", "response_body", "attempted_at")


def _given(name: str) -> str:
    return f"given_{name}"


@cache
def _insert_attempt(dialect: str) -> Any:
    """INSERT the attempt, its tenant and webhook copied from its delivery; RETURNING the webhook (none if gone)."""
    a, d = _attempts.c, _deliveries.c
    source = core_select(
        *(bindparam(_given(name), type_=a[name].type) for name in _GIVEN), d.tenant_id, d.webhook_id, d.id
    ).where(d.id == bindparam("delivery_id"))
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    return (
        insert(_attempts)
        .from_select([*(a[name] for name in _GIVEN), a.tenant_id, a.webhook_id, a.delivery_id], source)
        .on_conflict_do_nothing(index_elements=[a.delivery_id, a.attempt])
        .returning(a.webhook_id)
    )


_COUNT_AND_SETTLE = (
    update(_deliveries)
    .where(_deliveries.c.id == bindparam("delivery_id"), _deliveries.c.status == PENDING)
    .values(
        attempts=bindparam("attempt"),
        status=SUCCEEDED,
        completed_at=bindparam("at", type_=_deliveries.c.completed_at.type),
    )
    .returning(_deliveries.c.webhook_id)
)
_COUNT = (
    update(_deliveries)
    .where(_deliveries.c.id == bindparam("delivery_id"))
    .values(attempts=bindparam("attempt"))
)


def _clock_moves(of_webhook: Any) -> tuple[Any, Any]:
    """The clock of the webhook ``of_webhook`` selects after a success and after a failure, each written
    only when it is worth it.

    A success ends a failing spell (and notes itself at most once per CLOCK_GRANULARITY); a failure
    starts one (or notes itself likewise).
    """
    e = _endpoints.c
    at = bindparam("at", type_=e.last_success_at.type)
    stale = bindparam("stale", type_=e.last_success_at.type)
    on_success = (
        update(_endpoints)
        .where(
            of_webhook,
            or_(
                e.failing_since.is_not(None),
                e.exhausted_since_success != 0,
                e.last_success_at.is_(None),
                e.last_success_at <= stale,
            ),
        )
        .values(failing_since=None, exhausted_since_success=0, last_success_at=at)
    )
    on_failure = (
        update(_endpoints)
        .where(
            of_webhook,
            or_(e.failing_since.is_(None), e.last_failure_at.is_(None), e.last_failure_at <= stale),
        )
        .values(failing_since=func.coalesce(e.failing_since, at), last_failure_at=at)
    )
    return on_success, on_failure


_CLOCK_ON_SUCCESS, _CLOCK_ON_FAILURE = _clock_moves(_endpoints.c.id == bindparam("webhook_id"))


def records_at_once(dialect: str) -> bool:
    """Whether ``record_attempt`` is one statement here (atomic by itself, so it needs no transaction)."""
    return dialect == "postgresql"


@cache
def _record_at_once(success: bool) -> Any:
    """PostgreSQL: the attempt, its count (settling a success) and the webhook's clock as one statement.

    The same three writes as the separate statements below, as data-modifying CTEs: each later one
    acts only if the attempt's INSERT did (a row in ``attempt``), and all see the same snapshot, so a
    success's settling UPDATE (delivery still pending) and its counting UPDATE (delivery no longer
    pending) exclude each other. One round trip instead of five (BEGIN, three statements, COMMIT): a
    delivery's record was a quarter of an inbound message's round trips (docs/decisions/0004-hot-statements-without-orm.md).
    Answers the webhook (NULL when nothing was inserted) and whether the delivery was settled.
    """
    d, e = _deliveries.c, _endpoints.c
    attempt = _insert_attempt("postgresql").cte("attempt")
    inserted = exists(core_select(attempt.c.webhook_id))
    of_delivery = d.id == bindparam("delivery_id")
    settled = (
        update(_deliveries)
        .where(of_delivery, d.status == PENDING, inserted)
        .values(
            attempts=bindparam(_given("attempt")),
            status=SUCCEEDED,
            completed_at=bindparam("at", type_=d.completed_at.type),
        )
        .returning(d.id)
        .cte("settled")
    )
    counted = (
        update(_deliveries)
        .where(of_delivery, inserted, *((d.status != PENDING,) if success else ()))
        .values(attempts=bindparam(_given("attempt")))
        .returning(d.id)
        .cte("counted")
    )
    on_success, on_failure = _clock_moves(e.id.in_(core_select(attempt.c.webhook_id)))
    moved = (on_success if success else on_failure).returning(e.id).cte("moved")
    answer = core_select(
        core_select(attempt.c.webhook_id).scalar_subquery().label("webhook_id"),
        (exists(core_select(settled.c.id)) if success else false()).label("settled"),
    )
    return answer.add_cte(counted, moved, *((settled,) if success else ()))


async def record_attempt(
    session: AsyncSession,
    *,
    delivery_id: str,
    attempt: int,
    success: bool,
    status_code: int | None,
    latency_ms: int | None,
    error: str | None,
    at: datetime,
    response_body: str | None = None,
) -> RecordedAttempt | None:
    """Insert the attempt once, count it on its delivery (settling a success), move the webhook's clock.

    None when the attempt was already recorded, or when its delivery is gone (its webhook was deleted
    during the POST): the row is copied from the delivery's in the same statement, tenant and webhook
    included, so a vanished delivery inserts nothing, with no read beforehand. The clock's UPDATE is
    always sent and decides in SQL whether to write: the webhook as loaded before the POST may be stale
    by then (a concurrent attempt's failure), and a success must still end that failing spell.
    On PostgreSQL the three writes go as one statement (``_record_at_once``), on SQLite as three.
    """
    given = {
        _given("id"): new_id("att", at=at),
        _given("attempt"): attempt,
        _given("success"): success,
        _given("status_code"): status_code,
        _given("latency_ms"): latency_ms,
        _given("error"): error,
        _given("response_body"): response_body,
        _given("attempted_at"): at,
        "delivery_id": delivery_id,
    }
    dialect = session.get_bind().dialect.name
    if records_at_once(dialect):
        clock = {"at": at, "stale": at - CLOCK_GRANULARITY}
        row = (await session.execute(_record_at_once(success), given | clock)).one()
        return None if row.webhook_id is None else RecordedAttempt(settled=bool(row.settled))
    insert = _insert_attempt(dialect)
    webhook_id = (await session.execute(insert, given)).scalar()
    if webhook_id is None:
        return None
    settled = success and await _count_and_settle(session, delivery_id, attempt=attempt, at=at)
    if not settled:
        await session.execute(_COUNT, {"delivery_id": delivery_id, "attempt": attempt})
    await _move_clock(session, webhook_id, success=success, at=at)
    return RecordedAttempt(settled=settled)


async def _count_and_settle(session: AsyncSession, delivery_id: str, *, attempt: int, at: datetime) -> bool:
    """Count a successful attempt and settle its still-pending delivery in one UPDATE; False if not pending."""
    params = {"delivery_id": delivery_id, "attempt": attempt, "at": at}
    return (await session.execute(_COUNT_AND_SETTLE, params)).scalar() is not None


async def _move_clock(session: AsyncSession, webhook_id: str, *, success: bool, at: datetime) -> None:
    """Reset (success) or start (failure) the webhook's failure clock, unless written within the granularity."""
    stmt = _CLOCK_ON_SUCCESS if success else _CLOCK_ON_FAILURE
    await session.execute(stmt, {"webhook_id": webhook_id, "at": at, "stale": at - CLOCK_GRANULARITY})


async def settle_delivery(session: AsyncSession, delivery_id: str, *, status: str, at: datetime) -> bool:
    """Move a pending delivery to its final status; False when it was already settled (or deleted)."""
    stmt = (
        update(_deliveries)
        .where(_deliveries.c.id == delivery_id, _deliveries.c.status == PENDING)
        .values(status=status, completed_at=at)
        .returning(_deliveries.c.webhook_id)
    )
    return (await session.execute(stmt)).scalar() is not None


async def count_exhausted(session: AsyncSession, webhook_id: str) -> WebhookEndpoint | None:
    """Count one more exhausted delivery while the webhook is failing; the refreshed webhook."""
    await session.execute(
        update(_endpoints)
        .where(_endpoints.c.id == webhook_id, _endpoints.c.failing_since.is_not(None))
        .values(exhausted_since_success=_endpoints.c.exhausted_since_success + 1)
    )
    return await session.get(WebhookEndpoint, webhook_id, populate_existing=True)


async def auto_disable(
    session: AsyncSession, webhook_id: str, *, reason: str, at: datetime
) -> WebhookEndpoint | None:
    """Set the auto-disabled state unless already set; the webhook when this call disabled it."""
    stmt = (
        update(_endpoints)
        .where(_endpoints.c.id == webhook_id, _endpoints.c.auto_disabled_at.is_(None))
        .values(auto_disabled_at=at, auto_disabled_reason=reason, health_state="auto_disabled", updated_at=at)
        .returning(_endpoints.c.id)
    )
    if (await session.execute(stmt)).scalar() is None:
        return None
    return await session.get(WebhookEndpoint, webhook_id, populate_existing=True)
