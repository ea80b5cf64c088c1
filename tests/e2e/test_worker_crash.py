"""A worker or an API killed in the middle of a send: a worker process finishes it, and the message ends sent.

And an API killed during a delivery's first attempt (made before the delivery's run starts): the outbox
sweeper starts the run, and the delivery settles.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from switchboard.activities.workflow_starts import delivery_workflow_id, send_workflow_id
from switchboard.api.delivery_worker import IDENTITY_SUFFIX
from switchboard.models.events import WebhookAttempt
from switchboard.settings import Settings
from switchboard.store.database import create_engine
from tests.support.api_process import started_by
from tests.support.delivery_runs import run_result
from tests.support.fake_channel import FakeChannel
from tests.support.http_server import free_port, serve_app
from tests.support.inbound import post_webhook, provision_fixture_number, text_payload
from tests.support.processes import service_env, spawn_api
from tests.support.tenants import TenantFixture
from tests.workflows.test_webhook_support import Receiver

REPO = Path(__file__).resolve().parents[2]
TO = "14155550100"
# The send activity's start-to-close timeout is 15 s; the retry then needs a live worker.
RECOVERY_SECONDS = 60

StartWorker = Callable[[str], Awaitable[asyncio.subprocess.Process]]


@pytest.fixture
async def fake_channel() -> AsyncIterator[tuple[FakeChannel, str]]:
    channel = FakeChannel()
    async with serve_app(channel.app()) as base_url:
        yield channel, base_url


@pytest.fixture
def channel(fake_channel: tuple[FakeChannel, str]) -> FakeChannel:
    return fake_channel[0]


@pytest.fixture
def api_slots() -> int:
    """The API's eager slots: none, so that a send runs in a worker process (the one a test kills)."""
    return 0


@pytest.fixture
def settings(settings: Settings, fake_channel: tuple[FakeChannel, str], api_slots: int) -> Settings:
    """The test's settings pointed at the fake; the API answers 202 quickly while the send hangs."""
    return settings.model_copy(
        update={
            "channel_api_base_url": fake_channel[1],
            "send_wait_seconds": 0.5,
            "api_delivery_slots": api_slots,
        }
    )


# The environment each worker process reads; a module attribute, so a test may swap it (the agent crash test).
worker_env = service_env


@pytest.fixture
async def start_worker(settings: Settings, tmp_path: Path) -> AsyncIterator[StartWorker]:
    """Start `python -m switchboard.worker` processes; any still running at the end are stopped."""
    processes: list[asyncio.subprocess.Process] = []

    async def start(name: str) -> asyncio.subprocess.Process:
        log = (tmp_path / f"{name}.log").open("wb")
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "switchboard.worker",
            cwd=REPO,
            env=worker_env(settings),
            stdout=log,
            stderr=log,
        )
        processes.append(process)
        return process

    yield start
    for process in processes:
        if process.returncode is None:
            process.terminate()
            try:
                await asyncio.wait_for(process.wait(), timeout=10)
            except TimeoutError:
                process.kill()
                await process.wait()


def logs(tmp_path: Path) -> str:
    return "\n".join(
        f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}" for p in sorted(tmp_path.glob("*.log"))
    )


def text_send(tenant: TenantFixture, body: str) -> dict[str, Any]:
    return {"phone_number_id": tenant.phone_number_id, "to": TO, "type": "text", "text": {"body": body}}


async def poll_message(client: httpx.AsyncClient, tenant: TenantFixture, message_id: str) -> dict[str, Any]:
    async with asyncio.timeout(RECOVERY_SECONDS):
        while True:
            message = (await client.get(f"/v1/messages/{message_id}", headers=tenant.headers())).json()
            if message["status"] != "queued":
                return dict(message)
            await asyncio.sleep(0.5)


async def test_send_survives_a_worker_killed_mid_request(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    channel: FakeChannel,
    start_worker: StartWorker,
    tmp_path: Path,
):
    first = await start_worker("worker-1")
    gate = channel.hold()
    payload = text_send(tenant, "survive")
    headers = {**tenant.headers(), "Idempotency-Key": "crash-1"}
    try:
        accepted = await app_client.post("/v1/messages", json=payload, headers=headers)
        assert accepted.status_code == 202, accepted.text
        assert accepted.json()["status"] == "queued"
        try:
            await asyncio.wait_for(channel.gate_entered.wait(), timeout=30)
        except TimeoutError:
            pytest.fail("the first worker never sent upstream\n" + logs(tmp_path))
        first.send_signal(signal.SIGKILL)
        assert await first.wait() == -signal.SIGKILL
        await start_worker("worker-2")
    finally:
        gate.set()
    message = await poll_message(app_client, tenant, accepted.json()["id"])
    assert message["status"] == "sent", f"{message}\n{logs(tmp_path)}"
    assert message["wa_message_id"].startswith("wamid.FAKE")
    assert message["to_phone"] == TO
    assert 1 <= len(channel.sends) <= 2
    assert all(s["text"] == {"body": "survive"} and s["to"] == "+" + TO for s in channel.sends)
    replay = await app_client.post("/v1/messages", json=payload, headers=headers)
    assert replay.status_code == 201, replay.text
    assert replay.headers["X-Idempotent-Replay"] == "true"
    assert (replay.json()["id"], replay.json()["status"]) == (message["id"], "sent")
    listed = (await app_client.get("/v1/messages", headers=tenant.headers())).json()
    assert listed["total"] == 1


async def _healthy(client: httpx.AsyncClient) -> None:
    async with asyncio.timeout(30):
        while True:
            try:
                if (await client.get("/healthz")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)


async def _sent_here(client: httpx.AsyncClient, tenant: TenantFixture, temporal: Client) -> set[str]:
    """Send until one send's first workflow task ran in the API process; the ids of the messages sent.

    The API's worker registers a moment after /healthz answers; until then its sends queue for the
    worker process.
    """
    payload = text_send(tenant, "probe")
    sent: set[str] = set()
    async with asyncio.timeout(30):
        while True:
            probe = await client.post("/v1/messages", json=payload, headers=tenant.headers())
            assert probe.status_code in (201, 202), probe.text  # 202: queued for the worker past the wait
            message_id = str(probe.json()["id"])
            sent.add(message_id)
            started = await started_by(temporal, send_workflow_id(message_id))
            if started and started[0].endswith(IDENTITY_SUFFIX):
                return sent
            await asyncio.sleep(0.2)


@pytest.mark.parametrize("api_slots", [Settings.model_fields["api_delivery_slots"].default], ids=["default"])
async def test_send_survives_the_api_killed_mid_request(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    channel: FakeChannel,
    start_worker: StartWorker,
    settings: Settings,
    temporal_env: WorkflowEnvironment,
    tmp_path: Path,
):
    """The API runs a send's first try itself (an eager start); killed during it, a worker process sends it.

    The workflow task the API held times out on the server (10 s) and goes to the worker process, whose
    try sends the message (again, if the upstream took the first) and records it.
    """
    await start_worker("worker-1")
    port = free_port()
    api = spawn_api(settings, port)
    gate: asyncio.Event | None = None
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            await _healthy(client)
            probes = await _sent_here(client, tenant, temporal_env.client)
            gate = channel.hold()
            payload = text_send(tenant, "survive the api")
            held = asyncio.create_task(client.post("/v1/messages", json=payload, headers=tenant.headers()))
            try:
                await asyncio.wait_for(channel.gate_entered.wait(), timeout=30)
            except TimeoutError:
                pytest.fail("the API never sent upstream\n" + logs(tmp_path))
            api.kill()
            api.wait(timeout=10)
            with pytest.raises(httpx.TransportError):
                await held
    finally:
        if gate is not None:
            gate.set()
        if api.poll() is None:
            api.kill()
            api.wait(timeout=10)
    listed = (await app_client.get("/v1/messages", headers=tenant.headers())).json()["data"]
    (message_id,) = [m["id"] for m in listed if m["id"] not in probes]
    message = await poll_message(app_client, tenant, message_id)
    assert message["status"] == "sent", f"{message}\n{logs(tmp_path)}"
    survived = [s for s in channel.sends if s.get("text") == {"body": "survive the api"}]
    assert 1 <= len(survived) <= 2, survived
    identities = await started_by(temporal_env.client, send_workflow_id(message_id))
    assert identities[0].endswith(IDENTITY_SUFFIX), identities
    assert not identities[-1].endswith(IDENTITY_SUFFIX), identities


async def _delivered_by_the_api(client: httpx.AsyncClient, receiver: Receiver, temporal: Client) -> int:
    """Post inbound messages until one's delivery run ran in the API (its delivery worker registers a
    moment after /healthz answers); how many the receiver got meanwhile."""
    async with asyncio.timeout(30):
        for n in itertools.count():
            answer = await post_webhook(client, text_payload(f"wamid.probe{n}"))
            assert answer.status_code == 200, answer.text
            envelope = json.loads((await receiver.wait_for(n + 1, within=30))[n].body)
            workflow_id = delivery_workflow_id(envelope["delivery_id"])
            await run_result(temporal, workflow_id)
            identities = await started_by(temporal, workflow_id)
            if identities and identities[0].endswith(IDENTITY_SUFFIX):
                return n + 1
            await asyncio.sleep(0.2)
    raise AssertionError("unreachable")


async def test_a_delivery_survives_the_api_killed_during_its_first_attempt(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    start_worker: StartWorker,
    settings: Settings,
    temporal_env: WorkflowEnvironment,
    tmp_path: Path,
):
    """The API runs a delivery's run it started eagerly, whose first attempt is a local activity; killed
    during that POST, it leaves the run's workflow task unfinished. The task times out and a worker
    process runs it again, posting the attempt again and settling the delivery."""
    await provision_fixture_number(app_client, tenant)
    receiver = Receiver()
    async with serve_app(receiver.app()) as base_url:
        created = await app_client.post(
            "/v1/webhooks",
            json={"url": f"{base_url}/hook", "events": ["channel.message.received"]},
            headers=tenant.headers(),
        )
        assert created.status_code == 201, created.text
        await start_worker("worker-1")
        port = free_port()
        api = spawn_api(settings, port)
        try:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
                await _healthy(client)
                probes = await _delivered_by_the_api(client, receiver, temporal_env.client)
                receiver.gate = asyncio.Event()
                answer = await post_webhook(client, text_payload("wamid.killed", from_phone="16505550999"))
                assert answer.status_code == 200, answer.text  # the POST to the tenant waits at the gate
                held = json.loads((await receiver.wait_for(probes + 1))[probes].body)
            api.kill()
            api.wait(timeout=10)
        finally:
            if receiver.gate is not None:
                receiver.gate.set()
            if api.poll() is None:
                api.kill()
                api.wait(timeout=10)
        delivery_id = held["delivery_id"]
        workflow_id = delivery_workflow_id(delivery_id)
        report = await run_result(temporal_env.client, workflow_id, within=RECOVERY_SECONDS)
        assert (report["outcome"], report["attempts"]) == ("succeeded", 1), f"{report}\n{logs(tmp_path)}"
        posts = [r for r in receiver.at("/hook") if json.loads(r.body)["delivery_id"] == delivery_id]
        assert len(posts) == 2  # the one the killed API made, and the worker process's
        identities = await started_by(temporal_env.client, workflow_id)
        assert identities[0].endswith(IDENTITY_SUFFIX), identities
        assert not identities[-1].endswith(IDENTITY_SUFFIX), identities
        engine = create_engine(settings.database_url)
        try:
            async with engine.connect() as conn:
                recorded = select(WebhookAttempt.attempt, WebhookAttempt.success).where(
                    WebhookAttempt.delivery_id == delivery_id
                )
                attempts = [tuple(row) for row in (await conn.execute(recorded)).all()]
        finally:
            await engine.dispose()
        assert attempts == [(1, True)]
