"""TEMPORAL_WORKFLOW_SANDBOX=false and the WORKER_* slots: how `switchboard worker` builds its Temporal worker."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import UnsandboxedWorkflowRunner
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner

from switchboard.settings import Settings
from switchboard.store.database import create_engine
from switchboard.worker import SANDBOX, build_deps, build_worker, close_deps, workflow_runner
from tests.support.fake_channel import FakeChannel
from tests.support.tenants import TenantFixture


def test_the_sandbox_is_on_unless_turned_off(settings: Settings) -> None:
    assert workflow_runner(settings) is SANDBOX
    assert isinstance(SANDBOX, SandboxedWorkflowRunner)
    unsandboxed = settings.model_copy(update={"temporal_workflow_sandbox": False})
    assert isinstance(workflow_runner(unsandboxed), UnsandboxedWorkflowRunner)


@pytest.fixture
async def unsandboxed_worker(settings: Settings, temporal_env: WorkflowEnvironment) -> AsyncIterator[None]:
    engine = create_engine(settings.database_url)
    deps = build_deps(
        temporal_env.client, settings.model_copy(update={"temporal_workflow_sandbox": False}), engine
    )
    async with build_worker(temporal_env.client, deps, max_concurrent=20):
        yield
    await close_deps(deps)
    await engine.dispose()


async def test_a_send_runs_unsandboxed(
    app_client: httpx.AsyncClient, tenant: TenantFixture, unsandboxed_worker: None, channel: FakeChannel
) -> None:
    response = await app_client.post(
        "/v1/messages",
        json={
            "phone_number_id": tenant.phone_number_id,
            "to": "14155550100",
            "type": "text",
            "text": {"body": "hi"},
        },
        headers=tenant.headers(),
    )
    assert response.status_code == 201, response.text
    assert response.json()["status"] == "sent"
    assert channel.sends[-1]["text"] == {"body": "hi"}


async def test_worker_slots_come_from_settings(settings: Settings, temporal_env: WorkflowEnvironment) -> None:
    tuned = settings.model_copy(
        update={
            "worker_max_concurrent_activities": 7,
            "worker_max_concurrent_local_activities": 5,
            "worker_max_concurrent_workflow_tasks": 3,
            "worker_max_cached_workflows": 11,
        }
    )
    engine = create_engine(settings.database_url)
    deps = build_deps(temporal_env.client, tuned, engine)
    try:
        config = build_worker(temporal_env.client, deps).config()
        assert config.get("max_concurrent_activities") == 7
        assert config.get("max_concurrent_local_activities") == 5
        assert config.get("max_concurrent_workflow_tasks") == 3
        assert config.get("max_cached_workflows") == 11
        # A caller's explicit activity slots (tests, benches) win over the setting (another queue: one
        # worker per task queue and process).
        other = build_deps(
            temporal_env.client,
            tuned.model_copy(update={"temporal_task_queue": f"{tuned.temporal_task_queue}-other"}),
            engine,
        )
        assert (
            build_worker(temporal_env.client, other, max_concurrent=2)
            .config()
            .get("max_concurrent_activities")
            == 2
        )
        await close_deps(other)
    finally:
        await close_deps(deps)
        await engine.dispose()
