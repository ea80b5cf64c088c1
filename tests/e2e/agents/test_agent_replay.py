"""Replay: the thread and run workflows' recorded histories replay deterministically against today's code.

The test drives a real turn (a tool round trip), fetches both workflows'
histories from the server and replays them with ``Replayer``. With
``RECORD_AGENT_HISTORIES=1`` it also writes them to ``tests/workflows/histories``,
where ``tests/workflows/test_agent_histories.py`` replays them on every run, so
a change that breaks determinism for workflows already running in production
fails CI.
"""

from __future__ import annotations

import os
from pathlib import Path

import httpx
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer

from switchboard.activities.workflow_starts import run_workflow_id, thread_workflow_id
from switchboard.workflows.agent_run import AgentRunWorkflow
from switchboard.workflows.agent_thread import AgentThreadWorkflow
from tests.e2e.agents.support import (
    ToolServer,
    deploy_agent,
    eventually,
    finished_runs,
    say,
    text_envelope,
    tool_declaration,
)
from tests.fakes.scripting import FakeProvider, FakeToolCall, TextReply, ToolCallReply
from tests.fixtures.channel import USER_PHONE
from tests.support.fake_channel import FakeChannel
from tests.support.tenants import TenantFixture

HISTORIES = Path(__file__).resolve().parents[2] / "workflows" / "histories"


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
    run_history = await temporal_client.get_workflow_handle(run_workflow_id(run["id"])).fetch_history()

    replayer = Replayer(
        workflows=[AgentThreadWorkflow, AgentRunWorkflow], data_converter=pydantic_data_converter
    )
    await replayer.replay_workflow(thread_history)
    await replayer.replay_workflow(run_history)

    if os.environ.get("RECORD_AGENT_HISTORIES") == "1":
        HISTORIES.mkdir(parents=True, exist_ok=True)
        (HISTORIES / "agent_thread.json").write_text(thread_history.to_json())
        (HISTORIES / "agent_run_tool_round_trip.json").write_text(run_history.to_json())
