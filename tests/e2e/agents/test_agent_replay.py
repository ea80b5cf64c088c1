"""Replay: the thread and run workflows' recorded histories replay deterministically against today's code.

The tests drive real turns (a tool round trip; a milestone booking; a burst whose
one urgent message another's veto hid), fetch the
workflows' histories from the server and replay them with ``Replayer``. With
``RECORD_AGENT_HISTORIES=1`` they also write them to ``tests/workflows/histories``,
where ``tests/workflows/test_agent_histories.py`` replays them on every run, so
a change that breaks determinism for workflows already running in production
fails CI. The milestone turn runs twice: on ``LegacyAgentRunWorkflow`` (the code
before ``milestone-ends-run``, standing for runs in flight at its deploy; its
history must replay on today's unpatched branch) and on today's code (with the
patch's marker).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from temporalio.client import WorkflowFailureError, WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer, Worker

from switchboard.activities.all_activities import build_activities
from switchboard.activities.workflow_starts import run_workflow_id, thread_workflow_id
from switchboard.settings import Settings
from switchboard.store.database import create_engine
from switchboard.worker import build_deps, close_deps
from switchboard.workflows.agent_run import MILESTONE_ENDS_RUN, URGENCY_EACH_MESSAGE, AgentRunWorkflow
from switchboard.workflows.agent_thread import AgentThreadWorkflow
from switchboard.workflows.all_workflows import WORKFLOWS
from tests.e2e.agents.support import (
    ToolServer,
    deploy_agent,
    eventually,
    finished_runs,
    run_detail,
    say,
    text_envelope,
    tool_declaration,
)
from tests.fakes.scripting import FakeProvider, FakeToolCall, TextReply, ToolCallReply
from tests.fixtures.channel import USER_PHONE
from tests.support.fake_channel import FakeChannel
from tests.support.tenants import TenantFixture
from tests.workflows.legacy_workflows import LegacyAgentRunWorkflow
from tests.workflows.record_support import patch_ids

HISTORIES = Path(__file__).resolve().parents[2] / "workflows" / "histories"
BEFORE = "before"
BOOKED = "Listo, quedó reservado para el 2/12."


async def closed_history(temporal_env: WorkflowEnvironment, workflow_id: str) -> WorkflowHistory:
    """A run's history once the run has closed.

    The run's last local activity commits its status before the workflow task that records it (and
    the task's markers) completes, so a finished run in the API can still have a short history.
    """
    handle = temporal_env.client.get_workflow_handle(workflow_id)
    with contextlib.suppress(WorkflowFailureError):
        await handle.result()
    return await handle.fetch_history()


@pytest.fixture
async def worker(
    request: pytest.FixtureRequest, settings: Settings, temporal_env: WorkflowEnvironment
) -> AsyncIterator[Worker]:
    """The test's worker; parametrized with ``BEFORE`` it runs ``LegacyAgentRunWorkflow`` as AgentRun."""
    legacy = getattr(request, "param", None) == BEFORE
    workflows = [LegacyAgentRunWorkflow if legacy and cls is AgentRunWorkflow else cls for cls in WORKFLOWS]
    engine = create_engine(settings.database_url)
    deps = build_deps(temporal_env.client, settings, engine)
    try:
        async with Worker(
            temporal_env.client,
            task_queue=settings.temporal_task_queue,
            workflows=workflows,
            activities=build_activities(deps),
            max_concurrent_activities=20,
        ) as running:
            yield running
    finally:
        await close_deps(deps)
        await engine.dispose()


async def test_thread_and_run_histories_replay(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools: ToolServer,
    tools_url: str,
    temporal_env: WorkflowEnvironment,
) -> None:
    temporal_client = temporal_env.client
    tools.script("/slots", (200, {"data": ["09:00"]}))
    fakes["openai"].script(
        ToolCallReply([FakeToolCall("slots", {"date": "2026-12-02"}, id="call_9")]),
        TextReply("Hay un turno a las 09:00."),
    )
    await deploy_agent(
        app_client,
        bound_tenant,
        provider="openai",
        tool_base_url=tools_url,
        tools={"slots": tool_declaration()},
    )
    await say(app_client, text_envelope("turno el 2/12?"))

    async def replied() -> bool:
        return bool(channel.sends_to(USER_PHONE))

    await eventually(replied)
    [run] = await finished_runs(app_client, bound_tenant)
    thread_history = await temporal_client.get_workflow_handle(
        thread_workflow_id(run["thread_id"])
    ).fetch_history()
    run_history = await closed_history(temporal_env, run_workflow_id(run["id"]))

    replayer = Replayer(
        workflows=[AgentThreadWorkflow, AgentRunWorkflow], data_converter=pydantic_data_converter
    )
    await replayer.replay_workflow(thread_history)
    await replayer.replay_workflow(run_history)

    if os.environ.get("RECORD_AGENT_HISTORIES") == "1":
        HISTORIES.mkdir(parents=True, exist_ok=True)
        (HISTORIES / "agent_thread.json").write_text(thread_history.to_json())
        (HISTORIES / "agent_run_tool_round_trip.json").write_text(run_history.to_json())


@pytest.mark.parametrize("worker", [BEFORE, "patched"], indirect=True)
async def test_milestone_run_histories_replay(
    request: pytest.FixtureRequest,
    worker: Worker,
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools: ToolServer,
    tools_url: str,
    temporal_env: WorkflowEnvironment,
) -> None:
    """A booking (milestone) and a lookup in one model answer, then a text answer, on either code."""
    before = request.node.callspec.params["worker"] == BEFORE
    tools.script("/book", (200, {"data": {"id": "bk_9"}}))
    tools.script("/slots", (200, {"data": ["09:00"]}))
    fakes["openai"].script(
        ToolCallReply(
            [
                FakeToolCall("book", {"date": "2026-12-02"}, id="call_book"),
                FakeToolCall("slots", {"date": "2026-12-09"}, id="call_slots"),
            ]
        ),
        TextReply(BOOKED),
    )
    await deploy_agent(
        app_client,
        bound_tenant,
        provider="openai",
        tool_base_url=tools_url,
        tools={
            "book": tool_declaration(method="POST", path="/book", terminates_thread=True),
            "slots": tool_declaration(),
        },
    )
    await say(app_client, text_envelope("reservame el 2/12"))
    [run] = await finished_runs(app_client, bound_tenant)
    history = await closed_history(temporal_env, run_workflow_id(run["id"]))

    assert run["status"] == "completed", run
    assert channel.sends_to(USER_PHONE)[-1]["text"]["body"] == BOOKED
    if before:
        # The old loop: the lookup of the same answer runs too, then a loop turn (tools declared) replies.
        assert [call["path"] for call in tools.calls] == ["/book", "/slots"]
        assert MILESTONE_ENDS_RUN not in patch_ids(history)
    else:
        # Today: the lookup is skipped and the text answer is the closing call's (no tools declared).
        assert [call["path"] for call in tools.calls] == ["/book"]
        assert "tools" not in fakes["openai"].requests[-1].body
        assert MILESTONE_ENDS_RUN in patch_ids(history)
    replayer = Replayer(
        workflows=[AgentThreadWorkflow, AgentRunWorkflow], data_converter=pydantic_data_converter
    )
    await replayer.replay_workflow(history)

    # The pre-patch file was recorded on the released code (2a22aa0); the legacy run only checks it still holds.
    if os.environ.get("RECORD_AGENT_HISTORIES") == "1" and not before:
        (HISTORIES / "agent_run_milestone.json").write_text(history.to_json())


async def test_urgency_in_one_message_of_a_burst_hands_off_and_replays(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
    temporal_env: WorkflowEnvironment,
) -> None:
    """A pet in one message does not hide the other's emergency: the layered verdict, made when the run's
    context is loaded, hands off, and the run asks no patch (``urgency-each-message`` is asked only by runs
    whose context was loaded before, which check the rules in the workflow; their recorded history,
    ``agent_run_urgency_in_one_message.json``, replays in test_agent_histories)."""
    await deploy_agent(app_client, bound_tenant, provider="openai", tool_base_url=tools_url)
    await asyncio.gather(
        say(app_client, text_envelope("mi gato se está muriendo")),
        say(app_client, text_envelope("se muere mi papá, vengan")),
    )
    [run] = await finished_runs(app_client, bound_tenant)
    history = await closed_history(temporal_env, run_workflow_id(run["id"]))

    assert len(run["message_ids"]) == 2, run
    assert run["status"] == "escalated" and "imminent_death" in run["errorMessage"], run
    assert fakes["openai"].requests == [] and channel.sends_to(USER_PHONE) == []
    threads = (await app_client.get("/v1/agent-threads", headers=bound_tenant.headers())).json()["data"]
    assert [t["muted_reason"] for t in threads] == ["handoff"]
    assert URGENCY_EACH_MESSAGE not in patch_ids(history)
    detail = await run_detail(app_client, bound_tenant, run["id"])
    [step] = [s for s in detail["steps"] if s["kind"] == "guardrail" and s["name"] == "urgency"]
    data = step["data"]
    assert (step["status"], data["category"], data["language"]) == ("handoff", "imminent_death", "es"), step
    assert data["decided_by"] in ("rule", "classifier") and 0 <= data["score"] <= 1, step
    replayer = Replayer(
        workflows=[AgentThreadWorkflow, AgentRunWorkflow], data_converter=pydantic_data_converter
    )
    await replayer.replay_workflow(history)

    if os.environ.get("RECORD_AGENT_HISTORIES") == "1":
        (HISTORIES / "agent_run_urgency_layered.json").write_text(history.to_json())
