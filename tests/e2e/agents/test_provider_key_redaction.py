"""A model endpoint that echoes the request's credential headers in its errors leaks no provider key.

Each provider's fake answers errors quoting ``authorization`` / ``x-api-key`` /
``x-goog-api-key`` (each SDK sends its key its own way), as proxies and gateways
do. Through the signed channel webhook and the public API, with a real worker:
the key must appear in no API answer, no database row, neither the run's nor
the thread's Temporal history, and no log record (tracebacks included).
"""

from __future__ import annotations

import logging
from typing import Any

import httpx
import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from switchboard.settings import Settings
from tests.e2e.agents.support import (
    PROVIDERS,
    SETTINGS_KEYS,
    deploy_agent,
    eventually,
    finished_runs,
    run_detail,
    say,
    text_envelope,
)
from tests.fakes.scripting import EchoHeadersReply, FakeProvider
from tests.support.secret_leaks import assert_absent, database_text, history_text, logged_text
from tests.support.tenants import TenantFixture

# A distinct, realistic-looking key per provider, so a leak names its source.
KEYS = {
    "anthropic": "sk-ant-api03-R2d9XkLmP4qWvB7nT1yHsC6uJ0eFgA8zQ3xYwZ-AbCdEfAA",
    "openai": "sk-proj-N4bV8cX2zL6kJ9hG3fD7sA1qW5eR0tYuIoPaSdFgHjK",
    "google": "AIzaSyD3f8Kq2Lm9Xv7Bn4Cz6Wq1Er5Ty0UiOpQ",
    "mistral": "m7Qx2Lp9Vb4Nc8Zr1Ks6Dw3Fj5Gh0TyE",
}
RETRY_SOON = {"retry-after": "1"}


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """This module's settings: each provider with its own key."""
    return settings.model_copy(update={SETTINGS_KEYS[name][0]: key for name, key in KEYS.items()})


async def closed_history(client: Client, workflow_id: str) -> str:
    """The workflow's history once it has closed."""
    closed = {
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
    }

    async def check() -> bool:
        history = await client.get_workflow_handle(workflow_id).fetch_history()
        return history.events[-1].event_type in closed

    await eventually(check)
    return await history_text(client, workflow_id)


async def thread_history(client: Client, thread_id: str, run_workflow_id: str) -> str:
    """The thread workflow's history once the run's child workflow has ended in it (it runs on)."""
    ended = {
        EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED,
        EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED,
    }

    async def check() -> bool:
        history = await client.get_workflow_handle(f"agent-thread-{thread_id}").fetch_history()
        for event in history.events:
            if event.event_type == EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED:
                execution = event.child_workflow_execution_completed_event_attributes.workflow_execution
            elif event.event_type == EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED:
                execution = event.child_workflow_execution_failed_event_attributes.workflow_execution
            else:
                continue
            if event.event_type in ended and execution.workflow_id == run_workflow_id:
                return True
        return False

    await eventually(check)
    return await history_text(client, f"agent-thread-{thread_id}")


async def assert_key_nowhere(
    key: str,
    *,
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    run: dict[str, Any],
    settings: Settings,
    temporal: Client,
    caplog: pytest.LogCaptureFixture,
) -> None:
    headers = tenant.headers()
    answers = [
        await client.get("/v1/agent-runs", headers=headers),
        await client.get(f"/v1/agent-runs/{run['id']}", headers=headers),
        await client.get(f"/v1/agent-threads/{run['thread_id']}", headers=headers),
        await client.get("/v1/agent-events", params={"thread_id": run["thread_id"]}, headers=headers),
    ]
    for answer in answers:
        assert answer.status_code == 200, answer.text
        assert_absent(key, answer.text, where=str(answer.request.url))
    run_history = await closed_history(temporal, run["workflow_id"])
    assert_absent(key, run_history, where="the run's history")
    assert_absent(
        key,
        await thread_history(temporal, run["thread_id"], run["workflow_id"]),
        where="the thread's history",
    )
    assert_absent(key, await database_text(settings), where="the database")
    assert_absent(key, logged_text(caplog.records), where="the logs")
    # The echo did reach the failure, blanked: the test would see a leak.
    assert "[redacted]" in run_history


def assert_key_was_sent_and_echoed(fake: FakeProvider, key: str) -> None:
    """The SDK sent the key, so the fake's error quoted it (the assertions above are not vacuous)."""
    assert fake.requests
    assert all(any(key in value for value in request.headers.values()) for request in fake.requests)


@pytest.mark.parametrize("provider", list(PROVIDERS))
async def test_an_echoed_key_is_blanked_when_the_run_escalates(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    tools_url: str,
    settings: Settings,
    temporal_env: WorkflowEnvironment,
    caplog: pytest.LogCaptureFixture,
    provider: str,
) -> None:
    """A retryable echo (429), then a permanent one (401): the run escalates without the key anywhere."""
    caplog.set_level(logging.DEBUG)
    key = KEYS[provider]
    fakes[provider].script(EchoHeadersReply(429, headers=RETRY_SOON), EchoHeadersReply(401))
    await deploy_agent(app_client, bound_tenant, provider=provider, tool_base_url=tools_url)

    await say(app_client, text_envelope("hola"))

    [run] = await finished_runs(app_client, bound_tenant)
    assert run["status"] == "escalated", run
    assert "permanent provider error (ProviderAuthError)" in run["errorMessage"], run
    assert len(fakes[provider].requests) == 2
    assert_key_was_sent_and_echoed(fakes[provider], key)
    detail = await run_detail(app_client, bound_tenant, run["id"])
    assert detail["errorMessage"] == run["errorMessage"]
    await assert_key_nowhere(
        key,
        client=app_client,
        tenant=bound_tenant,
        run=run,
        settings=settings,
        temporal=temporal_env.client,
        caplog=caplog,
    )
    assert "[redacted]" in run["errorMessage"], run


async def test_an_echoed_key_is_blanked_when_the_run_fails_after_every_retry(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    tools_url: str,
    settings: Settings,
    temporal_env: WorkflowEnvironment,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Every attempt a retryable echo (503): the run ends failed, its last error quoting no key."""
    caplog.set_level(logging.DEBUG)
    key = KEYS["openai"]
    fakes["openai"].script(*[EchoHeadersReply(503, headers=RETRY_SOON)] * 4)
    await deploy_agent(app_client, bound_tenant, provider="openai", tool_base_url=tools_url)

    await say(app_client, text_envelope("hola"))

    [run] = await finished_runs(app_client, bound_tenant)
    assert run["status"] == "failed", run
    assert "kept failing after retries" in run["errorMessage"], run
    assert len(fakes["openai"].requests) == 4
    assert_key_was_sent_and_echoed(fakes["openai"], key)
    await assert_key_nowhere(
        key,
        client=app_client,
        tenant=bound_tenant,
        run=run,
        settings=settings,
        temporal=temporal_env.client,
        caplog=caplog,
    )
    assert "[redacted]" in run["errorMessage"], run
