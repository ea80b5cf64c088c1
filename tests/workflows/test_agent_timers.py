"""The thread timers on Temporal's time-skipping server: automatic unmutes and the inactivity reset.

Every row of the mute table that unmutes by itself (human_detected and cost_cap_tenant_day after 24 h,
cost_cap_tenant_month on the 1st of next month in the tenant's time zone), the rows that never do
(handoff, cost_cap_thread), a reactivation racing a pending timer, a 24 h restarted by a new human
message, and the inactivity reset with its threshold from the binding, the environment, or a PATCH.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
from sqlalchemy import select
from temporalio.testing import WorkflowEnvironment

from switchboard.activities.agents.payloads import TimersInput
from switchboard.activities.workflow_starts import timers_workflow_id
from switchboard.models.agent_runtime import AgentEvent, AgentThread
from switchboard.models.agents import AgentBinding
from switchboard.models.tenancy import Tenant
from switchboard.settings import Settings
from switchboard.store.agents.guardrails import apply_mute_trigger
from switchboard.store.database import create_engine, session_factory, unit_of_work
from switchboard.workflows.agent_timers import AgentThreadTimersWorkflow
from tests.conftest import ADMIN_KEY, make_settings
from tests.support.agent_threads import new_thread
from tests.support.tenants import TenantFixture, provision_tenant


@dataclass
class Stack:
    env: WorkflowEnvironment
    settings: Settings
    sessions: Any
    tenant: TenantFixture


@pytest.fixture
async def stack(
    database_url: str, time_skipping_env: WorkflowEnvironment, temporal_env: WorkflowEnvironment
) -> AsyncIterator[Stack]:
    """A worker on the time-skipping server over a fresh database with one provisioned tenant."""
    from switchboard.api.app import create_app
    from switchboard.worker import build_deps, build_worker, close_deps

    address = temporal_env.client.service_client.config.target_host
    api_settings = make_settings(database_url, address)
    app = create_app(api_settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            tenant = await provision_tenant(client, ADMIN_KEY)
    settings = make_settings(database_url, "unused:7233", temporal_search_attributes=False)
    engine = create_engine(database_url)
    deps = build_deps(time_skipping_env.client, settings, engine)
    async with build_worker(time_skipping_env.client, deps, max_concurrent=10):
        yield Stack(time_skipping_env, settings, session_factory(engine), tenant)
    await close_deps(deps)
    await engine.dispose()


async def _thread(stack: Stack, **fields: Any) -> AgentThread:
    async with unit_of_work(stack.sessions) as session:
        tenant = await session.get(Tenant, stack.tenant.id)
        assert tenant is not None
        if "timezone" in fields:
            tenant.timezone = fields.pop("timezone")
        thread = await new_thread(
            session,
            tenant_id=tenant.id,
            customer_id=stack.tenant.customer_id,
            phone_number_id="106540352242922",
            **fields,
        )
    return thread


async def _mute(stack: Stack, thread_id: str, trigger: str, *, at: datetime) -> None:
    async with unit_of_work(stack.sessions) as session:
        thread = await session.get(AgentThread, thread_id)
        assert thread is not None
        await apply_mute_trigger(session, thread, trigger, now=at)


async def _run_timers(stack: Stack, thread_id: str) -> Any:
    return await stack.env.client.start_workflow(
        AgentThreadTimersWorkflow.run,
        TimersInput(thread_id=thread_id, tenant_id=stack.tenant.id),
        id=timers_workflow_id(thread_id),
        task_queue=stack.settings.temporal_task_queue,
    )


async def _state(stack: Stack, thread_id: str) -> tuple[AgentThread, list[AgentEvent]]:
    async with stack.sessions() as session:
        thread = await session.get(AgentThread, thread_id, populate_existing=True)
        stmt = select(AgentEvent).where(AgentEvent.thread_id == thread_id).order_by(AgentEvent.created_at)  # type: ignore[arg-type]
        events = list((await session.execute(stmt)).scalars().all())
    assert thread is not None
    return thread, events


async def _now(stack: Stack) -> datetime:
    return (await stack.env.get_current_time()).astimezone(UTC)


@pytest.mark.parametrize("reason", ["human_detected", "cost_cap_tenant_day"])
async def test_unmutes_24_hours_after_muted_at(stack: Stack, reason: str) -> None:
    trigger = "human_message" if reason == "human_detected" else reason
    now = await _now(stack)
    thread = await _thread(stack)
    await _mute(stack, thread.id, trigger, at=now)

    await (await _run_timers(stack, thread.id)).result()

    state, events = await _state(stack, thread.id)
    assert (state.muted_at, state.muted_reason) == (None, None)
    assert [e.type for e in events] == ["thread.muted", "thread.unmuted"]
    assert events[1].properties == {"previous_muted_reason": reason}
    assert abs((events[1].created_at - (now + timedelta(hours=24))).total_seconds()) < 2


async def test_month_cap_unmutes_on_the_first_of_next_month_in_the_tenant_zone(stack: Stack) -> None:
    zone = "America/Argentina/Buenos_Aires"
    now = await _now(stack)
    thread = await _thread(stack, timezone=zone)
    await _mute(stack, thread.id, "cost_cap_tenant_month", at=now)

    await (await _run_timers(stack, thread.id)).result()

    state, events = await _state(stack, thread.id)
    local = now.astimezone(ZoneInfo(zone))
    first = (local.replace(day=28) + timedelta(days=4)).replace(
        day=1, hour=0, minute=0, second=0, microsecond=0
    )
    assert state.muted_at is None
    assert [e.type for e in events] == ["thread.muted", "thread.unmuted"]
    assert abs((events[1].created_at - first.astimezone(UTC)).total_seconds()) < 2


@pytest.mark.parametrize("trigger", ["escalation", "cost_cap_thread"])
async def test_handoff_and_thread_cap_never_unmute_by_themselves(stack: Stack, trigger: str) -> None:
    thread = await _thread(stack)
    await _mute(stack, thread.id, trigger, at=await _now(stack))

    await (await _run_timers(stack, thread.id)).result()

    state, events = await _state(stack, thread.id)
    assert state.muted_reason == ("handoff" if trigger == "escalation" else "cost_cap_thread")
    assert [e.type for e in events] == ["thread.muted"]


async def test_reactivation_while_the_timer_is_pending_leaves_one_state_and_one_event(stack: Stack) -> None:
    now = await _now(stack)
    thread = await _thread(stack)
    await _mute(stack, thread.id, "human_message", at=now)
    with stack.env.auto_time_skipping_disabled():
        handle = await _run_timers(stack, thread.id)
        await stack.env.sleep(timedelta(hours=2))
        async with unit_of_work(stack.sessions) as session:
            row = await session.get(AgentThread, thread.id)
            assert row is not None
            await apply_mute_trigger(
                session, row, "reactivate", now=now + timedelta(hours=2), user_id="op", reason="ok"
            )
        await handle.signal(AgentThreadTimersWorkflow.wake)
    await handle.result()

    state, events = await _state(stack, thread.id)
    assert state.muted_at is None and state.muted_reason is None
    assert [e.type for e in events] == ["thread.muted", "thread.reactivated"]


async def test_a_new_human_message_restarts_the_24_hours(stack: Stack) -> None:
    now = await _now(stack)
    thread = await _thread(stack)
    await _mute(stack, thread.id, "human_message", at=now)
    with stack.env.auto_time_skipping_disabled():
        handle = await _run_timers(stack, thread.id)
        await stack.env.sleep(timedelta(hours=20))
        await _mute(stack, thread.id, "human_message", at=now + timedelta(hours=20))
    await handle.result()

    state, events = await _state(stack, thread.id)
    assert state.muted_at is None
    assert [e.type for e in events] == ["thread.muted", "thread.unmuted"]
    assert abs((events[1].created_at - (now + timedelta(hours=44))).total_seconds()) < 2


async def _binding(stack: Stack, params: dict[str, Any]) -> str:
    async with unit_of_work(stack.sessions) as session:
        from switchboard.models.agents import Agent, AgentVersion

        agent = Agent(tenant_id=stack.tenant.id, name="a", provider="openai", model="gpt-4.1-mini")
        session.add(agent)
        await session.flush()
        version = AgentVersion(
            tenant_id=stack.tenant.id,
            agent_id=agent.id,
            version=1,
            system_prompt="x",
            tools=[],
            guardrails_config={},
            routing={},
        )
        session.add(version)
        await session.flush()
        binding = AgentBinding(
            tenant_id=stack.tenant.id,
            name="b",
            agent_id=agent.id,
            agent_version_id=version.id,
            scope="tenant",
            params=params,
            reglas={},
        )
        session.add(binding)
    return binding.id


HISTORY = [
    {"role": "user", "text": "hola"},
    {"role": "assistant", "text": "¿en qué te ayudo?", "tool_calls": []},
]


@pytest.mark.parametrize(
    ("params", "days", "source"), [({}, 3, "environment"), ({"inactiveResetDays": 5}, 5, "binding")]
)
async def test_inactivity_reset(stack: Stack, params: dict[str, Any], days: int, source: str) -> None:
    now = await _now(stack)
    binding_id = await _binding(stack, params)
    thread = await _thread(stack, messages=HISTORY, updated_at=now, binding_id=binding_id)

    await (await _run_timers(stack, thread.id)).result()

    state, events = await _state(stack, thread.id)
    assert state.messages == []
    [event] = events
    assert event.type == "thread.messages_inactivity_reset"
    assert event.properties == {
        "previous_message_count": 2,
        "inactive_days": days,
        "threshold_days": days,
        "threshold_source": source,
    }
    assert abs((event.created_at - (now + timedelta(days=days))).total_seconds()) < 2


async def test_inactivity_reset_disabled_with_zero(stack: Stack) -> None:
    binding_id = await _binding(stack, {"inactiveResetDays": 0})
    thread = await _thread(stack, messages=HISTORY, updated_at=await _now(stack), binding_id=binding_id)

    await (await _run_timers(stack, thread.id)).result()

    state, events = await _state(stack, thread.id)
    assert state.messages == HISTORY and events == []


async def test_a_patched_threshold_is_picked_up_when_the_timer_wakes(stack: Stack) -> None:
    now = await _now(stack)
    binding_id = await _binding(stack, {"inactiveResetDays": 10})
    thread = await _thread(stack, messages=HISTORY, updated_at=now, binding_id=binding_id)
    with stack.env.auto_time_skipping_disabled():
        handle = await _run_timers(stack, thread.id)
        await stack.env.sleep(timedelta(hours=1))
        async with unit_of_work(stack.sessions) as session:
            binding = await session.get(AgentBinding, binding_id)
            assert binding is not None
            binding.params = {"inactiveResetDays": 1}
        await handle.signal(AgentThreadTimersWorkflow.wake)
    await handle.result()

    _state_row, events = await _state(stack, thread.id)
    [event] = events
    assert event.properties["threshold_days"] == 1
    assert abs((event.created_at - (now + timedelta(days=1))).total_seconds()) < 2
