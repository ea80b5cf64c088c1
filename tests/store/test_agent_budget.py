"""The cost circuit breaker's reservations under concurrency, on a real database (SQLite, and PostgreSQL in CI).

Two engines stand for two worker processes. Many model calls reserve at once against a tenant whose
caps allow only some of them: exactly that many are admitted, reserved plus spent never passes any
cap, and settling books the actual cost to the day and month.
"""

from __future__ import annotations

import asyncio
import uuid
from decimal import Decimal

import pytest
from sqlalchemy import select

from switchboard.models.agent_runtime import AgentCostReservation, AgentSpend, AgentThread
from switchboard.models.messaging import Contact, Conversation
from switchboard.models.tenancy import Customer, Tenant
from switchboard.store.agents.budget import CapReached, reserve, settle
from switchboard.store.agents.runs import usd_to_e10
from switchboard.store.database import create_engine, session_factory, unit_of_work

CALL = usd_to_e10(Decimal("0.01"))


async def _setup(
    sessions, *, thread_cap: str, day_cap: str, month_cap: str, threads: int
) -> tuple[str, list[str]]:  # type: ignore[no-untyped-def]
    async with unit_of_work(sessions) as session:
        tenant = Tenant(
            name="budget",
            cost_cap_thread_usd=Decimal(thread_cap),
            cost_cap_day_usd=Decimal(day_cap),
            cost_cap_month_usd=Decimal(month_cap),
            timezone="Europe/Madrid",
        )
        session.add(tenant)
        await session.flush()
        customer = Customer(tenant_id=tenant.id, name="c")
        session.add(customer)
        await session.flush()
        ids = []
        for n in range(threads):
            contact = Contact(tenant_id=tenant.id, customer_id=customer.id, phone=f"1650000{n:04d}")
            session.add(contact)
            await session.flush()
            conversation = Conversation(
                tenant_id=tenant.id, customer_id=customer.id, phone_number_id="1", contact_id=contact.id
            )
            session.add(conversation)
            await session.flush()
            thread = AgentThread(tenant_id=tenant.id, conversation_id=conversation.id, phone_number_id="1")
            session.add(thread)
            await session.flush()
            ids.append(thread.id)
    return tenant.id, ids


async def _try(sessions, tenant_id: str, thread_id: str) -> str | None:  # type: ignore[no-untyped-def]
    """One reservation; the cap scope that refused it, or None when admitted (retrying lock conflicts)."""
    from switchboard.models.base import utcnow

    for attempt in range(50):
        try:
            async with unit_of_work(sessions) as session:
                await reserve(
                    session,
                    reservation_id=f"run_{uuid.uuid4().hex}:1",
                    tenant_id=tenant_id,
                    thread_id=thread_id,
                    amount_e10=CALL,
                    now=utcnow(),
                )
            return None
        except CapReached as reached:
            return reached.scope
        except Exception as error:
            if "locked" not in str(error):
                raise
            await asyncio.sleep(0.01 * (attempt + 1))
    raise AssertionError("the database stayed locked")


@pytest.mark.parametrize(
    ("caps", "threads", "admitted", "refusal"),
    [
        # 40 calls of 0.01 on one thread with a 0.25 thread cap: 25 pass.
        (("0.25", "50", "500"), 1, 25, "thread"),
        # 40 calls spread over 8 threads, day cap 0.13: 13 pass whatever the threads.
        (("1", "0.13", "500"), 8, 13, "tenant_day"),
        (("1", "50", "0.07"), 8, 7, "tenant_month"),
    ],
)
async def test_concurrent_reservations_never_pass_a_cap(
    database_url: str, caps: tuple[str, str, str], threads: int, admitted: int, refusal: str
) -> None:
    engines = [create_engine(database_url), create_engine(database_url)]
    workers = [session_factory(engine) for engine in engines]
    try:
        tenant_id, thread_ids = await _setup(
            workers[0], thread_cap=caps[0], day_cap=caps[1], month_cap=caps[2], threads=threads
        )
        outcomes = await asyncio.gather(
            *(_try(workers[n % 2], tenant_id, thread_ids[n % threads]) for n in range(40))
        )
        assert outcomes.count(None) == admitted, outcomes
        assert set(outcomes) - {None} == {refusal}
        async with workers[1]() as session:
            spend = (
                (await session.execute(select(AgentSpend).where(AgentSpend.tenant_id == tenant_id)))
                .scalars()
                .all()
            )
            reserved = {row.period: row.reserved_e10 for row in spend}
            held = (await session.execute(select(AgentCostReservation))).scalars().all()
        assert reserved == {"day": admitted * CALL, "month": admitted * CALL}
        assert len([r for r in held if r.tenant_id == tenant_id]) == admitted

        # Settling books the actual cost (here half the reservation) and releases the rest.
        async with unit_of_work(workers[0]) as session:
            for row in [r for r in held if r.tenant_id == tenant_id]:
                await settle(session, reservation_id=row.id, actual_e10=CALL // 2)
        async with workers[0]() as session:
            rows = (
                (await session.execute(select(AgentSpend).where(AgentSpend.tenant_id == tenant_id)))
                .scalars()
                .all()
            )
            thread_reserved = [
                (await session.get(AgentThread, thread_id, populate_existing=True)).reserved_e10  # type: ignore[union-attr]
                for thread_id in thread_ids
            ]
        assert {(row.period, row.reserved_e10, row.spent_e10) for row in rows} == {
            ("day", 0, admitted * (CALL // 2)),
            ("month", 0, admitted * (CALL // 2)),
        }
        assert thread_reserved == [0] * threads
    finally:
        for engine in engines:
            await engine.dispose()


async def test_a_retried_reservation_holds_once(database_url: str) -> None:
    engine = create_engine(database_url)
    sessions = session_factory(engine)
    try:
        tenant_id, [thread_id] = await _setup(
            sessions, thread_cap="1", day_cap="50", month_cap="500", threads=1
        )
        from switchboard.models.base import utcnow

        for _ in range(3):
            async with unit_of_work(sessions) as session:
                await reserve(
                    session,
                    reservation_id="run_x:1",
                    tenant_id=tenant_id,
                    thread_id=thread_id,
                    amount_e10=CALL,
                    now=utcnow(),
                )
        async with sessions() as session:
            thread = await session.get(AgentThread, thread_id)
        assert thread is not None and thread.reserved_e10 == CALL
    finally:
        await engine.dispose()
