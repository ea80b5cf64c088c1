"""Recorded histories of the agent workflows replay against today's code (a determinism regression check).

Re-record them with ``RECORD_AGENT_HISTORIES=1 make test`` (or the one module,
tests/e2e/agents/test_agent_replay.py) after a deliberate, versioned change; the
``*_before_<patch>`` ones stand for runs in flight when the patch shipped.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

from switchboard.workflows.agent_run import AgentRunWorkflow
from switchboard.workflows.agent_thread import AgentThreadWorkflow

HISTORIES = sorted((Path(__file__).parent / "histories").glob("agent_*.json"))


@pytest.mark.parametrize(
    "name,text", [(path.stem, path.read_text()) for path in HISTORIES], ids=[path.stem for path in HISTORIES]
)
async def test_recorded_history_replays(name: str, text: str) -> None:
    history = WorkflowHistory.from_json(name, text)
    replayer = Replayer(
        workflows=[AgentThreadWorkflow, AgentRunWorkflow], data_converter=pydantic_data_converter
    )
    # AgentRun fails on any exception (failure_exception_types), nondeterminism included, and the
    # Replayer then waits for ever instead of reporting it: a bound turns that wait into a failure.
    result = await asyncio.wait_for(replayer.replay_workflow(history, raise_on_replay_failure=True), 30)
    assert result.replay_failure is None


def test_histories_are_recorded() -> None:
    assert len(HISTORIES) >= 2, (
        "record them: RECORD_AGENT_HISTORIES=1 pytest tests/e2e/agents/test_agent_replay.py"
    )
