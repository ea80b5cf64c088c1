"""No lost turn between inbound and the agent: a turn committed but never signalled is picked up by the sweeper."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from temporalio.service import RPCError, RPCStatusCode
from temporalio.testing import WorkflowEnvironment

from switchboard.activities.workflow_starts import timers_workflow_id
from switchboard.models.agent_runtime import AgentThread, AgentTurn
from switchboard.models.base import utcnow
from switchboard.models.messaging import Conversation, Message
from switchboard.settings import Settings
from switchboard.store.database import create_engine, session_factory, unit_of_work
from switchboard.workflows.maintenance import SweepAgentTurnsWorkflow
from tests.e2e.agents.support import deploy_agent, eventually, finished_runs, runs, say, text_envelope
from tests.fakes.scripting import FakeProvider, TextReply
from tests.fixtures.channel import USER_PHONE
from tests.support.agent_threads import new_thread
from tests.support.fake_channel import FakeChannel
from tests.support.tenants import TenantFixture


async def test_an_unsignalled_turn_is_answered_after_the_sweep(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    settings: Settings,
    temporal_env: WorkflowEnvironment,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
) -> None:
    fakes["mistral"].script(TextReply("Primera respuesta"), TextReply("Respuesta al mensaje perdido"))
    await deploy_agent(app_client, bound_tenant, provider="mistral", tool_base_url=tools_url)
    await say(app_client, text_envelope("hola"))
    [first] = await finished_runs(app_client, bound_tenant)

    # What a crash between the inbound commit and the signal leaves: a stored message and its turn, unsignalled.
    engine = create_engine(settings.database_url)
    try:
        async with unit_of_work(session_factory(engine)) as session:
            thread = await session.get(AgentThread, first["thread_id"])
            assert thread is not None
            original = (
                (await session.execute(select(Message).where(Message.id == first["message_ids"][0])))
                .scalars()
                .one()
            )
            earlier = utcnow() - timedelta(minutes=1)
            lost = Message(
                tenant_id=original.tenant_id,
                phone_number_id=original.phone_number_id,
                direction="inbound",
                message_type="text",
                wa_message_id="wamid.lost-turn",
                status="received",
                from_phone=original.from_phone,
                to_phone=original.to_phone,
                contact_id=original.contact_id,
                conversation_id=original.conversation_id,
                source=original.source,
                payload={"type": "text", "text": {"body": "¿me olvidaron?"}},
                content="¿me olvidaron?",
                occurred_at=earlier,
            )
            session.add(lost)
            await session.flush()
            session.add(
                AgentTurn(
                    message_id=lost.id, tenant_id=thread.tenant_id, thread_id=thread.id, created_at=earlier
                )
            )
    finally:
        await engine.dispose()

    result: Any = await temporal_env.client.execute_workflow(
        SweepAgentTurnsWorkflow.run, id=f"sweep-{lost.id}", task_queue=settings.temporal_task_queue
    )
    assert result.signalled == 1

    async def two_runs() -> list[dict[str, Any]] | None:
        data = await runs(app_client, bound_tenant)
        done = [run for run in data if run["status"] != "running"]
        return data if len(done) == 2 else None

    newest = (await eventually(two_runs))[0]
    assert newest["status"] == "completed" and newest["message_ids"] == [lost.id]
    assert "¿me olvidaron?" in str(fakes["mistral"].requests[-1].body)

    async def second_reply() -> bool:
        return len(channel.sends_to(USER_PHONE)) == 2

    await eventually(second_reply)
    again: Any = await temporal_env.client.execute_workflow(
        SweepAgentTurnsWorkflow.run, id=f"sweep-again-{lost.id}", task_queue=settings.temporal_task_queue
    )
    assert again.signalled == 0
    await say(app_client, text_envelope("gracias"))
    assert len(await finished_runs(app_client, bound_tenant, count=3)) == 3


async def test_an_overdue_automatic_mute_whose_timer_never_started_is_lifted_by_the_sweep(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    settings: Settings,
    temporal_env: WorkflowEnvironment,
    fakes: dict[str, FakeProvider],
    tools_url: str,
) -> None:
    fakes["mistral"].script(TextReply("hola"))
    await deploy_agent(app_client, bound_tenant, provider="mistral", tool_base_url=tools_url)
    await say(app_client, text_envelope("hola"))
    [run] = await finished_runs(app_client, bound_tenant)
    # What Temporal being down when a human message muted a thread leaves: the mute, no timer workflow.
    # It is a thread of its own, with another contact: the run's thread has its timer workflow woken by
    # the run's end and by its reply's send, either of which may land after this point, start that
    # workflow afresh and lift a backdated mute before the sweep does (it did, on a loaded CI machine).
    engine = create_engine(settings.database_url)
    try:
        async with unit_of_work(session_factory(engine)) as session:
            answered = await session.get(AgentThread, run["thread_id"])
            assert answered is not None
            conversation = await session.get(Conversation, answered.conversation_id)
            assert conversation is not None
            muted = await new_thread(
                session,
                tenant_id=answered.tenant_id,
                customer_id=conversation.customer_id,
                phone_number_id=answered.phone_number_id,
                binding_id=answered.binding_id,
                muted_at=utcnow() - timedelta(hours=25),
                muted_reason="human_detected",
            )
            thread_id = muted.id
    finally:
        await engine.dispose()
    with pytest.raises(RPCError) as never_started:
        await temporal_env.client.get_workflow_handle(timers_workflow_id(thread_id)).describe()
    assert never_started.value.status == RPCStatusCode.NOT_FOUND

    result: Any = await temporal_env.client.execute_workflow(
        SweepAgentTurnsWorkflow.run,
        id=f"sweep-timers-{thread_id}",
        task_queue=settings.temporal_task_queue,
    )
    assert result.woken_timers == 1

    async def unmuted() -> dict[str, Any] | None:
        response = await app_client.get(f"/v1/agent-threads/{thread_id}", headers=bound_tenant.headers())
        return response.json() if response.json()["muted_at"] is None else None

    await eventually(unmuted)
    events = await app_client.get(
        "/v1/agent-events", params={"thread_id": thread_id}, headers=bound_tenant.headers()
    )
    assert [e["type"] for e in events.json()["data"]] == ["thread.unmuted"]
