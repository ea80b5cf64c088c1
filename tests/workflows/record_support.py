"""Recording support for tests/workflows/test_workflow_histories.py (no tests here).

Histories are recorded by running the real workflows with the real activities
on Temporal's time-skipping server, then written to ``tests/workflows/histories``
(only with ``SWITCHBOARD_RECORD_HISTORIES=1``). A stack can run the pre-patch
workflows of tests/workflows/legacy_workflows.py in place of the current ones.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from temporalio import workflow
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle, WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer, Worker

from switchboard.activities.all_activities import build_activities
from switchboard.activities.deps import ActivityDeps
from switchboard.settings import Settings
from switchboard.store.agents.guardrails import apply_mute_trigger
from switchboard.store.database import create_engine, unit_of_work
from switchboard.worker import build_deps, close_deps
from switchboard.workflows.all_workflows import WORKFLOWS
from tests.support.agent_threads import new_thread
from tests.support.tenants import TenantFixture

HISTORIES = Path(__file__).parent / "histories"
RECORD_ENV = "SWITCHBOARD_RECORD_HISTORIES"
PATCH_MARKER = "core_patch"


def recording() -> bool:
    """Whether this run re-records the histories (otherwise they are only replayed)."""
    return os.environ.get(RECORD_ENV) == "1"


def replayer() -> Replayer:
    """A replayer with every registered workflow and the worker's data converter."""
    return Replayer(workflows=list(WORKFLOWS), data_converter=pydantic_data_converter)


def workflow_type(history: WorkflowHistory) -> str:
    """The workflow type a history was recorded for."""
    return str(history.events[0].workflow_execution_started_event_attributes.workflow_type.name)


def patch_ids(history: WorkflowHistory) -> set[str]:
    """The ``workflow.patched`` ids whose markers the history holds."""
    found = set()
    for event in history.events:
        if event.event_type != EventType.EVENT_TYPE_MARKER_RECORDED:
            continue
        attributes = event.marker_recorded_event_attributes
        if attributes.marker_name != PATCH_MARKER:
            continue
        data = json.loads(attributes.details["patch-data"].payloads[0].data)
        found.add(str(data["id"]))
    return found


async def save(handle: WorkflowHandle[Any, Any], name: str) -> WorkflowHistory:
    """Fetch the handle's history, check it replays on today's code and write it as ``name``.json."""
    await handle.result()
    history = await handle.fetch_history()
    await replayer().replay_workflow(history)
    HISTORIES.mkdir(parents=True, exist_ok=True)
    (HISTORIES / f"{name}.json").write_text(history.to_json() + "\n")
    return history


@dataclass
class Stack:
    """A worker with every workflow and activity on the time-skipping server."""

    env: WorkflowEnvironment
    client: Client
    settings: Settings
    deps: ActivityDeps

    @property
    def task_queue(self) -> str:
        return self.settings.temporal_task_queue

    async def start(self, run: Any, *args: Any, prefix: str) -> WorkflowHandle[Any, Any]:
        """Start a workflow on the stack's task queue under a fresh id."""
        return await self.client.start_workflow(
            run, *args, id=f"{prefix}-{uuid.uuid4().hex[:10]}", task_queue=self.task_queue
        )


@asynccontextmanager
async def stack(
    env: WorkflowEnvironment, settings: Settings, *, legacy: list[type] | None = None, **overrides: Any
) -> AsyncIterator[Stack]:
    """Run the registered workflows, or ``legacy`` ones in their place, with the real activities."""
    settings = settings.model_copy(
        update={"temporal_search_attributes": False, **overrides}
        | ({"temporal_task_queue": f"legacy-{uuid.uuid4().hex[:10]}"} if legacy else {})
    )
    engine = create_engine(settings.database_url)
    deps = build_deps(env.client, settings, engine)
    names = {workflow_name(cls) for cls in legacy or []}
    workflows = [*(legacy or []), *(cls for cls in WORKFLOWS if workflow_name(cls) not in names)]
    try:
        async with Worker(
            env.client,
            task_queue=settings.temporal_task_queue,
            workflows=workflows,
            activities=build_activities(deps),
        ):
            yield Stack(env, env.client, settings, deps)
    finally:
        await close_deps(deps)
        await engine.dispose()


def workflow_name(cls: type) -> str:
    """The registered name of a workflow class."""
    return str(workflow._Definition.must_from_class(cls).name)


async def muted_thread(stack: Stack, tenant: TenantFixture, *, at: datetime) -> str:
    """A new agent thread of the tenant, muted by a human message at ``at`` (unmutes 24 h later)."""
    async with unit_of_work(stack.deps.sessions) as session:
        thread = await new_thread(
            session,
            tenant_id=tenant.id,
            customer_id=tenant.customer_id,
            phone_number_id=tenant.phone_number_id,
        )
        await apply_mute_trigger(session, thread, "human_message", now=at)
        return thread.id
