"""Agent runs and their steps: recording model calls with their cost, tool calls, and how a run ended.

Every write is keyed by (run_id, seq), so a retried activity finds its step
already recorded and adds nothing twice (no double-counted cost).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from decimal import ROUND_CEILING, Decimal
from typing import Any

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col, select

from switchboard.models.agent_runtime import AgentRun, AgentRunStep, AgentThread
from switchboard.store.pagination import paginate
from switchboard.store.scoping import get_owned, owned

E10 = Decimal(10) ** 10
USAGE_DIMENSIONS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


def usd_to_e10(amount: Decimal) -> int:
    """Exact USD to whole 1e-10 USD units (rounded up: never under-count spend)."""
    return int((amount * E10).to_integral_value(rounding=ROUND_CEILING))


async def step_at(session: AsyncSession, run_id: str, seq: int) -> AgentRunStep | None:
    """The recorded step ``seq`` of a run, if any."""
    stmt = select(AgentRunStep).where(AgentRunStep.run_id == run_id, AgentRunStep.seq == seq)
    return (await session.execute(stmt)).scalars().first()


async def record_model_step(
    session: AsyncSession,
    *,
    run: AgentRun,
    seq: int,
    name: str,
    cost_e10: int,
    usage: dict[str, int],
    latency_ms: int,
    data: dict[str, Any],
    at: datetime,
) -> AgentRunStep:
    """Record one model call and add its cost to the run and the thread in the same transaction."""
    step = AgentRunStep(
        tenant_id=run.tenant_id,
        run_id=run.id,
        seq=seq,
        kind="model_call",
        name=name,
        status="ok",
        latency_ms=latency_ms,
        cost_e10=cost_e10,
        data=data,
        created_at=at,
    )
    session.add(step)
    merged = dict(run.usage or {})
    for dimension in USAGE_DIMENSIONS:
        merged[dimension] = int(merged.get(dimension, 0)) + int(usage.get(dimension, 0))
    run.usage = merged
    await session.execute(
        update(AgentRun)
        .where(col(AgentRun.id) == run.id)
        .values(cost_e10=col(AgentRun.cost_e10) + cost_e10, usage=merged)
    )
    await session.execute(
        update(AgentThread)
        .where(col(AgentThread.id) == run.thread_id)
        .values(
            cost_e10=col(AgentThread.cost_e10) + cost_e10,
            total_cost_e10=col(AgentThread.total_cost_e10) + cost_e10,
        )
    )
    await session.flush()
    return step


async def record_steps(
    session: AsyncSession, run: AgentRun, steps: Sequence[dict[str, Any]], *, at: datetime
) -> None:
    """Record steps not recorded yet (by seq); each dict has seq, kind and optional name, status, latency_ms, data."""
    if not steps:
        return
    seqs = [int(step["seq"]) for step in steps]
    stmt = select(AgentRunStep.seq).where(AgentRunStep.run_id == run.id, col(AgentRunStep.seq).in_(seqs))
    known = set((await session.execute(stmt)).scalars().all())
    for step in steps:
        if int(step["seq"]) in known:
            continue
        session.add(
            AgentRunStep(
                tenant_id=run.tenant_id,
                run_id=run.id,
                seq=int(step["seq"]),
                kind=step["kind"],
                name=step.get("name"),
                status=step.get("status"),
                latency_ms=step.get("latency_ms"),
                data=step.get("data") or {},
                created_at=at,
            )
        )
    await session.flush()


async def get_run(session: AsyncSession, tenant_id: str, run_id: str) -> AgentRun:
    """The tenant's run (404 otherwise)."""
    return await get_owned(session, AgentRun, tenant_id, run_id, resource="agent run")


async def run_steps(session: AsyncSession, run_id: str) -> list[AgentRunStep]:
    """A run's steps in order."""
    stmt = select(AgentRunStep).where(AgentRunStep.run_id == run_id).order_by(col(AgentRunStep.seq))
    return list((await session.execute(stmt)).scalars().all())


async def list_runs(
    session: AsyncSession,
    tenant_id: str,
    *,
    thread_id: str | None,
    status: str | None,
    page: int,
    per_page: int,
) -> tuple[list[AgentRun], int]:
    """A page of the tenant's runs, newest first, and the total."""
    stmt = owned(AgentRun, tenant_id)
    if thread_id is not None:
        stmt = stmt.where(AgentRun.thread_id == thread_id)
    if status is not None:
        stmt = stmt.where(AgentRun.status == status)
    stmt = stmt.order_by(col(AgentRun.created_at).desc(), col(AgentRun.id).desc())
    return await paginate(session, stmt, page=page, per_page=per_page)
