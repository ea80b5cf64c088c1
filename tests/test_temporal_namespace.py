"""A worker's start-up check of its namespace's search attributes, on dev servers started without them.

On a development server the missing attributes are registered; a namespace that has one with another
type makes `switchboard worker` exit 2 with the commands that fix it (the refusal path every non-dev
server takes); ``TEMPORAL_SEARCH_ATTRIBUTES=false`` skips the check.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest, ListSearchAttributesRequest
from temporalio.testing import WorkflowEnvironment

from switchboard.domain import search_attributes
from switchboard.settings import Settings
from switchboard.temporal_namespace import NamespaceNotReady, ensure_search_attributes, is_development_server
from tests.conftest import make_settings
from tests.support.processes import service_env


@pytest.fixture
async def bare_server() -> AsyncIterator[WorkflowEnvironment]:
    """A dev server of its own, started without the service's search attributes."""
    env = await WorkflowEnvironment.start_local(
        dev_server_existing_path=shutil.which("temporal") or str(Path(sys.executable).parent / "temporal"),
        dev_server_log_level="error",
    )
    yield env
    await env.shutdown()


def settings_for(env: WorkflowEnvironment, database_url: str, **overrides: object) -> Settings:
    return make_settings(database_url, env.client.service_client.config.target_host, **overrides)


async def custom(env: WorkflowEnvironment) -> dict[str, int]:
    listed = await env.client.operator_service.list_search_attributes(
        ListSearchAttributesRequest(namespace="default")
    )
    return dict(listed.custom_attributes)


async def test_a_development_server_gets_the_attributes_registered(bare_server, database_url):
    assert await is_development_server(bare_server.client)
    assert search_attributes.missing(dict.fromkeys(await custom(bare_server), "Keyword")) == list(
        search_attributes.REQUIRED
    )
    registered = await ensure_search_attributes(bare_server.client, settings_for(bare_server, database_url))
    assert registered == list(search_attributes.REQUIRED)
    keyword = IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD
    assert {name: (await custom(bare_server))[name] for name in registered} == dict.fromkeys(
        registered, keyword
    )
    # A second start finds them and changes nothing.
    assert await ensure_search_attributes(bare_server.client, settings_for(bare_server, database_url)) == []


async def test_a_namespace_that_refuses_stops_the_worker_with_the_commands(bare_server, database_url):
    await bare_server.client.operator_service.add_search_attributes(
        AddSearchAttributesRequest(
            namespace="default",
            search_attributes={
                search_attributes.SEARCH_ATTRIBUTE_TENANT: IndexedValueType.INDEXED_VALUE_TYPE_TEXT
            },
        )
    )
    settings = settings_for(bare_server, database_url)
    with pytest.raises(NamespaceNotReady) as refused:
        await ensure_search_attributes(bare_server.client, settings)
    assert "SwitchboardTenantId is Text, not Keyword" in str(refused.value)

    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "switchboard.cli",
        "worker",
        env=service_env(settings),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, stderr = await asyncio.wait_for(process.communicate(), timeout=60)
    message = stderr.decode()
    assert process.returncode == 2, message
    address = settings.temporal_address
    for name in search_attributes.REQUIRED:
        command = (
            f"temporal operator search-attribute create --address {address} --namespace default "
            f"--name {name} --type Keyword"
        )
        assert command in message, message
    assert "TEMPORAL_SEARCH_ATTRIBUTES=false" in message and "Traceback" not in message

    # Told to run without them, the same worker starts: past the check, it creates its schedules.
    env = {**service_env(settings), "TEMPORAL_SEARCH_ATTRIBUTES": "false"}
    running = await asyncio.create_subprocess_exec(sys.executable, "-m", "switchboard.cli", "worker", env=env)
    try:
        await schedules_of(bare_server, settings.temporal_task_queue)
        assert running.returncode is None
    finally:
        running.terminate()
        await running.wait()


async def schedules_of(env: WorkflowEnvironment, task_queue: str) -> list[str]:
    """The ids of the schedules a worker of this task queue created, once there are some (60 s at most)."""
    for _ in range(600):
        ids = [s.id async for s in await env.client.list_schedules() if s.id.startswith(task_queue)]
        if ids:
            return ids
        await asyncio.sleep(0.1)
    raise AssertionError("the worker created no schedule")


def test_the_refusal_names_each_missing_attribute_and_its_command():
    text = search_attributes.refusal(
        ["SwitchboardThreadId"], namespace="prod", address="temporal:7233", existing={}
    )
    assert "namespace 'prod' at temporal:7233 lacks" in text
    assert (
        "temporal operator search-attribute create --address temporal:7233 --namespace prod "
        "--name SwitchboardThreadId --type Keyword"
    ) in text
    assert (
        search_attributes.missing({"SwitchboardTenantId": "Keyword", "SwitchboardThreadId": "keyword"}) == []
    )
    assert search_attributes.missing({"SwitchboardTenantId": "Text"}) == list(search_attributes.REQUIRED)
