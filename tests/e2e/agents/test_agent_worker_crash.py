"""A worker killed in the middle of a model call: another worker finishes the run, and the reply is sent once."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import httpx
import pytest

from switchboard.settings import Settings
from tests.e2e.agents.support import deploy_agent, eventually, finished_runs, say, text_envelope
from tests.e2e.test_worker_crash import StartWorker, logs, start_worker, worker_env  # noqa: F401
from tests.fakes.scripting import FakeProvider, SlowReply, TextReply
from tests.fixtures.channel import USER_PHONE
from tests.support.fake_channel import FakeChannel
from tests.support.inbound import provision_fixture_number
from tests.support.tenants import TenantFixture

# The model-call activity's heartbeat timeout is 10 s; then the retry needs a live worker. The lost
# call is held 12 s at the fake (longer than the heartbeat timeout, short enough to end with the test).
RECOVERY_SECONDS = 60.0


def agent_worker_env(settings: Settings) -> dict[str, str]:
    """The worker environment, plus the fake provider and the short debounce of these tests."""
    env = worker_env(settings)
    env.update(
        {
            "ANTHROPIC_API_KEY": settings.anthropic_api_key or "",
            "ANTHROPIC_BASE_URL": settings.anthropic_base_url or "",
            "AGENT_DEBOUNCE_SECONDS": str(settings.agent_debounce_seconds),
        }
    )
    return env


@pytest.fixture
def agent_workers(start_worker: StartWorker, monkeypatch: pytest.MonkeyPatch) -> StartWorker:  # noqa: F811
    """Worker processes that also know the fake model provider."""
    monkeypatch.setattr("tests.e2e.test_worker_crash.worker_env", agent_worker_env)
    return start_worker


async def test_run_survives_a_worker_killed_mid_model_call(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
    agent_workers: StartWorker,
    tmp_path: Path,
) -> None:
    await provision_fixture_number(app_client, tenant)
    fake = fakes["anthropic"]
    fake.script(SlowReply(12, TextReply("la respuesta perdida")), TextReply("Hola, ¿en qué te ayudo?"))
    await deploy_agent(app_client, tenant, provider="anthropic", tool_base_url=tools_url)
    first = await agent_workers("worker-1")

    await say(app_client, text_envelope("hola"))

    async def model_called() -> bool:
        return len(fake.requests) >= 1

    try:
        await eventually(model_called, timeout=30)
    except AssertionError:
        pytest.fail("the first worker never called the model\n" + logs(tmp_path))
    first.send_signal(signal.SIGKILL)
    assert await first.wait() == -signal.SIGKILL
    await agent_workers("worker-2")

    async def replied() -> list[dict[str, Any]]:
        return channel.sends_to(USER_PHONE)

    sends = await eventually(replied, timeout=RECOVERY_SECONDS)
    [run] = await finished_runs(app_client, tenant)
    assert run["status"] == "completed", f"{run}\n{logs(tmp_path)}"
    assert [send["text"]["body"] for send in sends] == ["Hola, ¿en qué te ayudo?"]
    assert len(fake.requests) == 2
    detail = (await app_client.get(f"/v1/agent-runs/{run['id']}", headers=tenant.headers())).json()
    model_steps = [step for step in detail["steps"] if step["kind"] == "model_call"]
    assert len(model_steps) == 1, "the lost call is neither recorded nor charged"
    assert detail["costUsd"] == model_steps[0]["costUsd"]
    thread = (await app_client.get(f"/v1/agent-threads/{run['thread_id']}", headers=tenant.headers())).json()
    assert [entry["role"] for entry in thread["messages"]] == ["user", "assistant"]
