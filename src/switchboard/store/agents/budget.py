"""The cost circuit breaker in the database: reserve before a model call, settle after, atomically.

A reservation adds a call's honest estimate to ``reserved`` of the thread,
the tenant's cost day and its cost month with conditional UPDATEs
(``spent < cap and spent + reserved + amount <= cap + margin``, the rule of
domain.agents.cost.trips), all in one transaction: PostgreSQL re-checks the
condition on the locked row and SQLite has one writer, so concurrent runs on
several workers never hold more than the caps plus margin allow, and spend
passes a cap by at most the margin plus what the in-flight calls' actual
costs exceed their estimates. Settling (or releasing, when the call failed)
replaces the reservation with the actual cost at once. Both are keyed by
``{run_id}:{seq}``, so a retried activity reserves and settles once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import delete, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col, select

from switchboard.domain.agents.cost import admission_limit, cost_day, cost_month
from switchboard.models.agent_runtime import (
    AgentCostReservation,
    AgentRun,
    AgentRunStep,
    AgentSpend,
    AgentThread,
)
from switchboard.models.tenancy import Tenant
from switchboard.store.agents.runs import usd_to_e10
from switchboard.store.tables import table_of

DEFAULT_CAPS = {"thread": Decimal("1"), "tenant_day": Decimal("50"), "tenant_month": Decimal("500")}


class CapReached(Exception):
    """A reservation would pass a cap; ``scope`` is thread, tenant_day or tenant_month."""

    def __init__(self, scope: str) -> None:
        super().__init__(f"cost cap reached: {scope}")
        self.scope = scope


@dataclass(frozen=True)
class Caps:
    thread: int
    day: int
    month: int
    timezone: str

    def limit(self, cap_e10: int) -> int:
        """The most spent + reserved may reach with a call admitted (the cap plus its margin), in 1e-10 USD."""
        return usd_to_e10(admission_limit(Decimal(cap_e10).scaleb(-10)))


async def tenant_caps(session: AsyncSession, tenant_id: str) -> Caps:
    """The tenant's caps in 1e-10 USD (operator overrides, else the spec's defaults) and its time zone."""
    tenant = await session.get(Tenant, tenant_id)

    def cap(value: Decimal | None, default: Decimal) -> int:
        return usd_to_e10(Decimal(value) if value is not None else default)

    return Caps(
        thread=cap(tenant.cost_cap_thread_usd if tenant else None, DEFAULT_CAPS["thread"]),
        day=cap(tenant.cost_cap_day_usd if tenant else None, DEFAULT_CAPS["tenant_day"]),
        month=cap(tenant.cost_cap_month_usd if tenant else None, DEFAULT_CAPS["tenant_month"]),
        timezone=(tenant.timezone if tenant and tenant.timezone else "UTC"),
    )


async def _ensure_spend_row(session: AsyncSession, tenant_id: str, period: str, start: str) -> None:
    """Create the period's row if missing (a concurrent creator wins quietly)."""
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    table = table_of(AgentSpend)
    await session.execute(
        insert(table)
        .values(tenant_id=tenant_id, period=period, period_start=start, spent_e10=0, reserved_e10=0)
        .on_conflict_do_nothing(index_elements=[table.c.tenant_id, table.c.period, table.c.period_start])
    )


async def _hold(session: AsyncSession, stmt: Any, scope: str) -> None:
    # RETURNING rather than rowcount: drivers disagree on rowcount.
    if (await session.execute(stmt.execution_options(synchronize_session=False))).first() is None:
        raise CapReached(scope)


async def reserve(
    session: AsyncSession,
    *,
    reservation_id: str,
    tenant_id: str,
    thread_id: str,
    amount_e10: int,
    now: datetime,
) -> None:
    """Hold a call's estimate against the thread, day and month caps, or raise CapReached (the caller rolls back)."""
    if await session.get(AgentCostReservation, reservation_id) is not None:
        return
    caps = await tenant_caps(session, tenant_id)
    day = cost_day(now, caps.timezone).isoformat()
    month = cost_month(now, caps.timezone).isoformat()
    await _ensure_spend_row(session, tenant_id, "day", day)
    await _ensure_spend_row(session, tenant_id, "month", month)
    await _hold(
        session,
        update(AgentThread)
        .where(
            col(AgentThread.id) == thread_id,
            col(AgentThread.cost_e10) < caps.thread,
            col(AgentThread.cost_e10) + col(AgentThread.reserved_e10) + amount_e10 <= caps.limit(caps.thread),
        )
        .values(reserved_e10=col(AgentThread.reserved_e10) + amount_e10)
        .returning(col(AgentThread.id)),
        "thread",
    )
    for period, start, cap, scope in (
        ("day", day, caps.day, "tenant_day"),
        ("month", month, caps.month, "tenant_month"),
    ):
        await _hold(
            session,
            update(AgentSpend)
            .where(
                col(AgentSpend.tenant_id) == tenant_id,
                col(AgentSpend.period) == period,
                col(AgentSpend.period_start) == start,
                col(AgentSpend.spent_e10) < cap,
                col(AgentSpend.spent_e10) + col(AgentSpend.reserved_e10) + amount_e10 <= caps.limit(cap),
            )
            .values(reserved_e10=col(AgentSpend.reserved_e10) + amount_e10)
            .returning(col(AgentSpend.period)),
            scope,
        )
    session.add(
        AgentCostReservation(
            id=reservation_id,
            tenant_id=tenant_id,
            thread_id=thread_id,
            day_start=day,
            month_start=month,
            amount_e10=amount_e10,
            created_at=now,
        )
    )
    await session.flush()


async def settle(session: AsyncSession, *, reservation_id: str, actual_e10: int | None) -> None:
    """Release a reservation and, with ``actual_e10``, book the actual cost to the day and month.

    The thread's own spend is booked with the run's step (store.agents.runs.record_model_step).
    """
    held = await session.get(AgentCostReservation, reservation_id, with_for_update=True)
    if held is None:
        return
    spent = actual_e10 or 0
    await session.execute(
        update(AgentThread)
        .where(col(AgentThread.id) == held.thread_id)
        .values(reserved_e10=col(AgentThread.reserved_e10) - held.amount_e10)
    )
    for period, start in (("day", held.day_start), ("month", held.month_start)):
        await session.execute(
            update(AgentSpend)
            .where(
                col(AgentSpend.tenant_id) == held.tenant_id,
                col(AgentSpend.period) == period,
                col(AgentSpend.period_start) == start,
            )
            .values(
                reserved_e10=col(AgentSpend.reserved_e10) - held.amount_e10,
                spent_e10=col(AgentSpend.spent_e10) + spent,
            )
        )
    await session.execute(delete(AgentCostReservation).where(col(AgentCostReservation.id) == reservation_id))
    await session.flush()


@dataclass(frozen=True)
class ThreadCalls:
    """What a thread's recent model calls tell the next estimate (newest first)."""

    outputs: list[int]
    """Output tokens of the recent calls of the asked purpose."""
    last_prompt: tuple[int, int] | None
    """(reported prompt tokens, uncalibrated estimate) of the latest call that recorded its estimate."""


RECENT_RUNS = 4
RECENT_CALLS = 8


async def recent_calls(session: AsyncSession, *, thread_id: str, purpose: str) -> ThreadCalls:
    """Usage and estimates of the model calls in the thread's last few runs, for the next call's estimate."""
    runs = (
        select(AgentRun.id)
        .where(col(AgentRun.thread_id) == thread_id)
        .order_by(col(AgentRun.created_at).desc())
        .limit(RECENT_RUNS)
        .scalar_subquery()
    )
    stmt = (
        select(AgentRunStep.data)
        .where(col(AgentRunStep.run_id).in_(runs), col(AgentRunStep.kind) == "model_call")
        .order_by(col(AgentRunStep.created_at).desc(), col(AgentRunStep.seq).desc())
        .limit(RECENT_CALLS * 2)
    )
    outputs: list[int] = []
    last_prompt: tuple[int, int] | None = None
    for row in (await session.execute(stmt)).scalars().all():
        data = row or {}
        usage = data.get("usage") or {}
        if data.get("purpose") == purpose and len(outputs) < RECENT_CALLS:
            outputs.append(int(usage.get("output_tokens", 0)))
        estimate = data.get("estimate") or {}
        if last_prompt is None and estimate.get("uncalibrated_prompt_tokens"):
            reported = sum(
                int(usage.get(key, 0)) for key in ("input_tokens", "cache_read_tokens", "cache_write_tokens")
            )
            last_prompt = (reported, int(estimate["uncalibrated_prompt_tokens"]))
    return ThreadCalls(outputs=outputs, last_prompt=last_prompt)


async def stale_reservations(session: AsyncSession, *, older_than: datetime, limit: int) -> list[str]:
    """Reservations a killed run left behind (no retry will settle them)."""
    stmt = (
        select(AgentCostReservation.id)
        .where(AgentCostReservation.created_at < older_than)
        .order_by(col(AgentCostReservation.created_at))
        .limit(limit)
    )
    return list((await session.execute(stmt)).scalars().all())


STALE_AFTER = timedelta(minutes=15)
