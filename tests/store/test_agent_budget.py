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


USD = usd_to_e10


async def _reserve(
    sessions, tenant_id: str, thread_id: str, amount: str, rid: str | None = None
) -> str | None:  # type: ignore[no-untyped-def]
    """One reservation of ``amount`` USD; the scope that refused it, or None."""
    from switchboard.models.base import utcnow

    try:
        async with unit_of_work(sessions) as session:
            await reserve(
                session,
                reservation_id=rid or f"run_{uuid.uuid4().hex}:1",
                tenant_id=tenant_id,
                thread_id=thread_id,
                amount_e10=USD(Decimal(amount)),
                now=utcnow(),
            )
    except CapReached as reached:
        return reached.scope
    return None


async def _set_thread_spend(sessions, thread_id: str, spent: str) -> None:  # type: ignore[no-untyped-def]
    async with unit_of_work(sessions) as session:
        thread = await session.get(AgentThread, thread_id)
        assert thread is not None
        thread.cost_e10 = USD(Decimal(spent))


@pytest.mark.parametrize(
    ("spent", "estimate", "refusal"),
    [
        ("0.97", "0.05", None),  # lands 0.02 past the 1 USD cap: within its 2 % margin
        ("0.97", "0.0500000001", "thread"),  # one unit past cap + margin
        ("0.9999", "0.0001", None),  # just below the cap, a small call still fits
        ("1", "0.0000000001", "thread"),  # recorded spend reached the cap: trips whatever the estimate
        ("0.5", "0", None),
    ],
)
async def test_the_thread_trips_at_its_cap_or_past_cap_plus_margin(
    database_url: str, spent: str, estimate: str, refusal: str | None
) -> None:
    engine = create_engine(database_url)
    sessions = session_factory(engine)
    try:
        tenant_id, [thread_id] = await _setup(
            sessions, thread_cap="1", day_cap="50", month_cap="500", threads=1
        )
        await _set_thread_spend(sessions, thread_id, spent)
        assert await _reserve(sessions, tenant_id, thread_id, estimate) == refusal
    finally:
        await engine.dispose()


async def _reserved(sessions, tenant_id: str, thread_ids: list[str]) -> tuple[dict[str, int], list[int], int]:  # type: ignore[no-untyped-def]
    async with sessions() as session:
        spend = (
            (await session.execute(select(AgentSpend).where(AgentSpend.tenant_id == tenant_id)))
            .scalars()
            .all()
        )
        threads = [await session.get(AgentThread, t, populate_existing=True) for t in thread_ids]
        held = (
            (
                await session.execute(
                    select(AgentCostReservation).where(AgentCostReservation.tenant_id == tenant_id)
                )
            )
            .scalars()
            .all()
        )
    return {row.period: row.reserved_e10 for row in spend}, [t.reserved_e10 for t in threads if t], len(held)


async def test_another_threads_reservation_blocks_only_when_the_sum_truly_passes(database_url: str) -> None:
    engine = create_engine(database_url)
    sessions = session_factory(engine)
    try:
        tenant_id, [a, b] = await _setup(sessions, thread_cap="1", day_cap="0.1", month_cap="500", threads=2)
        # 0.05 already spent today by thread A's settled call; A has another call in flight (0.03).
        assert await _reserve(sessions, tenant_id, a, "0.05", rid="run_a:1") is None
        async with unit_of_work(sessions) as session:
            await settle(session, reservation_id="run_a:1", actual_e10=USD(Decimal("0.05")))
        assert await _reserve(sessions, tenant_id, a, "0.03", rid="run_a:2") is None

        # B's call fits beside A's in-flight one (0.05 + 0.03 + 0.022 = 0.102, the cap plus 2 %)...
        assert await _reserve(sessions, tenant_id, b, "0.022", rid="run_b:1") is None
        async with unit_of_work(sessions) as session:
            await settle(session, reservation_id="run_b:1", actual_e10=None)
        # ...and one that would truly pass it with A's call is refused.
        assert await _reserve(sessions, tenant_id, b, "0.0220000001") == "tenant_day"

        # A's call settles below its estimate: its reservation is released at once, and B fits again.
        async with unit_of_work(sessions) as session:
            await settle(session, reservation_id="run_a:2", actual_e10=USD(Decimal("0.01")))
        assert await _reserved(sessions, tenant_id, [a, b]) == ({"day": 0, "month": 0}, [0, 0], 0)
        assert await _reserve(sessions, tenant_id, b, "0.04", rid="run_b:2") is None
        assert await _reserved(sessions, tenant_id, [a, b]) == (
            {"day": USD(Decimal("0.04")), "month": USD(Decimal("0.04"))},
            [0, USD(Decimal("0.04"))],
            1,
        )
    finally:
        await engine.dispose()


async def test_a_failed_call_releases_its_reservation_and_books_nothing(database_url: str) -> None:
    engine = create_engine(database_url)
    sessions = session_factory(engine)
    try:
        tenant_id, [thread_id] = await _setup(
            sessions, thread_cap="1", day_cap="50", month_cap="500", threads=1
        )
        assert await _reserve(sessions, tenant_id, thread_id, "0.3", rid="run_f:1") is None
        async with unit_of_work(sessions) as session:
            await settle(session, reservation_id="run_f:1", actual_e10=None)
            await settle(session, reservation_id="run_f:1", actual_e10=None)  # a retried release is a no-op
        assert await _reserved(sessions, tenant_id, [thread_id]) == ({"day": 0, "month": 0}, [0], 0)
        async with sessions() as session:
            spent = {
                row.period: row.spent_e10
                for row in (
                    await session.execute(select(AgentSpend).where(AgentSpend.tenant_id == tenant_id))
                ).scalars()
            }
        assert spent == {"day": 0, "month": 0}
    finally:
        await engine.dispose()


async def test_recent_calls_read_the_threads_latest_model_calls(database_url: str) -> None:
    from datetime import timedelta

    from switchboard.models.agent_runtime import AgentRun, AgentRunStep
    from switchboard.models.base import utcnow
    from switchboard.store.agents.budget import ThreadCalls, recent_calls

    engine = create_engine(database_url)
    sessions = session_factory(engine)
    try:
        tenant_id, [thread_id, other] = await _setup(
            sessions, thread_cap="1", day_cap="50", month_cap="500", threads=2
        )
        async with sessions() as session:
            assert await recent_calls(session, thread_id=thread_id, purpose="loop") == ThreadCalls([], None)
        start = utcnow() - timedelta(hours=1)
        # (thread, minutes after start, purpose, prompt tokens, output tokens, recorded estimate)
        calls = [
            (thread_id, 1, "router", 400, 3, None),  # a step recorded before estimates were
            (thread_id, 2, "loop", 1_000, 120, 1_100),
            (thread_id, 3, "loop", 1_500, 40, 1_600),
            (other, 4, "loop", 9_000, 900, 9_000),  # another thread's calls never count
            (thread_id, 5, "router", 1_700, 4, 1_650),
        ]
        async with unit_of_work(sessions) as session:
            for n, (thread, minute, purpose, prompt, output, estimate) in enumerate(calls):
                at = start + timedelta(minutes=minute)
                run = AgentRun(tenant_id=tenant_id, thread_id=thread, created_at=at)
                session.add(run)
                await session.flush()
                data = {
                    "purpose": purpose,
                    # Normalised usage: 100 of the prompt tokens were read from the cache.
                    "usage": {
                        "input_tokens": prompt - 100,
                        "cache_read_tokens": 100,
                        "output_tokens": output,
                    },
                }
                if estimate is not None:
                    data["estimate"] = {"uncalibrated_prompt_tokens": estimate}
                session.add(
                    AgentRunStep(
                        tenant_id=tenant_id, run_id=run.id, seq=n, kind="model_call", data=data, created_at=at
                    )
                )
                session.add(
                    AgentRunStep(
                        tenant_id=tenant_id, run_id=run.id, seq=100 + n, kind="guardrail", created_at=at
                    )
                )
        async with sessions() as session:
            loop = await recent_calls(session, thread_id=thread_id, purpose="loop")
            router = await recent_calls(session, thread_id=thread_id, purpose="router")
        assert loop == ThreadCalls(outputs=[40, 120], last_prompt=(1_700, 1_650))
        assert router == ThreadCalls(outputs=[4, 3], last_prompt=(1_700, 1_650))
    finally:
        await engine.dispose()
