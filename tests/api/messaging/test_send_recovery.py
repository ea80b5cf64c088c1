"""Sends that outlive their request: failed_transient after the retry window, and the queued-send sweeper."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import text, update

from switchboard.api.app import create_app
from switchboard.models.base import utcnow
from switchboard.models.messaging import Message
from switchboard.settings import Settings
from switchboard.store.database import create_engine
from switchboard.workflows.maintenance import SweepQueuedSendsWorkflow
from tests.support.fake_channel import FakeChannel, Scripted, cloud_error
from tests.support.http_server import free_port
from tests.support.inbound import db, events, rows
from tests.support.tenants import TenantFixture

TO = "14155550100"


async def _poll(
    client: httpx.AsyncClient,
    tenant: TenantFixture,
    message_id: str,
    *,
    until: set[str],
    deadline: float = 60.0,
) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    stop = loop.time() + deadline
    while True:
        body = (await client.get(f"/v1/messages/{message_id}", headers=tenant.headers())).json()
        if body["status"] in until or loop.time() > stop:
            return body
        await asyncio.sleep(0.25)


async def queued_without_a_workflow(
    settings: Settings, tenant: TenantFixture, sends: dict[str, dict[str, str]]
) -> list[str]:
    """Texts sent through an API process that cannot reach Temporal: stored queued, answered 202.

    ``sends`` maps each text's body to its request headers; the message ids come back in that order.
    """
    cut_off = create_app(settings.model_copy(update={"temporal_address": f"127.0.0.1:{free_port()}"}))
    ids = []
    async with cut_off.router.lifespan_context(cut_off):
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=cut_off), base_url="http://t"
        ) as client:
            for body, headers in sends.items():
                response = await client.post(
                    "/v1/messages",
                    json={
                        "phone_number_id": tenant.phone_number_id,
                        "to": TO,
                        "type": "text",
                        "text": {"body": body},
                    },
                    headers=headers,
                )
                assert response.status_code == 202, response.text
                ids.append(response.json()["id"])
    return ids


@pytest.mark.parametrize(
    "overrides", [{"send_wait_seconds": 0.5, "send_retry_window_seconds": 10}], ids=["window-10s"]
)
async def test_upstream_down_for_the_whole_window_ends_failed_transient(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel, worker
):
    channel.script(TO, *[Scripted(503, cloud_error(131016, "Service unavailable")) for _ in range(200)])
    response = await app_client.post(
        "/v1/messages",
        json={"phone_number_id": tenant.phone_number_id, "to": TO, "type": "text", "text": {"body": "hello"}},
        headers=tenant.headers(),
    )
    assert response.status_code == 202, response.text
    final = await _poll(
        app_client, tenant, response.json()["id"], until={"failed_transient", "sent", "failed"}
    )
    assert final["status"] == "failed_transient"
    assert final["error_code"] == "UPSTREAM_UNAVAILABLE"
    assert len(channel.sends_to(TO)) >= 3  # retried with backoff until the window closed
    retried = await app_client.post(f"/v1/messages/{final['id']}/retry", headers=tenant.headers())
    channel.scripts[TO].clear()
    assert retried.status_code in (201, 202), retried.text
    assert retried.json()["retry_of_message_id"] == final["id"]


@pytest.mark.parametrize("overrides", [{"send_wait_seconds": 0.5}], ids=["wait-0.5s"])
async def test_sweeper_starts_a_queued_send_whose_workflow_never_started(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel, worker, temporal_env, settings
):
    [message_id] = await queued_without_a_workflow(settings, tenant, {"resume me": tenant.headers()})
    assert channel.sends == []
    engine = create_engine(settings.database_url)
    async with engine.begin() as conn:  # age it past the API's longest wait
        await conn.execute(
            update(Message.__table__)
            .where(Message.__table__.c.id == message_id)  # type: ignore[attr-defined]
            .values(created_at=utcnow() - timedelta(minutes=5))
        )
    await engine.dispose()
    result = await temporal_env.client.execute_workflow(
        SweepQueuedSendsWorkflow.run, id=f"sweep-{message_id}", task_queue=settings.temporal_task_queue
    )
    assert result.resumed == 1
    final = await _poll(app_client, tenant, message_id, until={"sent", "failed"})
    assert final["status"] == "sent"
    assert channel.sends_to(TO)[0]["text"] == {"body": "resume me"}
    again = await temporal_env.client.execute_workflow(
        SweepQueuedSendsWorkflow.run, id=f"sweep-again-{message_id}", task_queue=settings.temporal_task_queue
    )
    assert again.resumed == 0


async def test_sweeper_leaves_a_completed_send_alone_even_if_it_reads_queued(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel, worker, temporal_env, settings
):
    # A send whose run completed, read by the sweeper as queued and un-noted (its outcome recorded
    # just after the sweeper's read): the start finds the completed run and sends nothing again.
    sent = await app_client.post(
        "/v1/messages",
        json={"phone_number_id": tenant.phone_number_id, "to": TO, "type": "text", "text": {"body": "once"}},
        headers=tenant.headers(),
    )
    assert sent.status_code == 201, sent.text
    message_id = sent.json()["id"]
    engine = create_engine(settings.database_url)
    async with engine.begin() as conn:  # as the sweeper's read saw it: queued, un-noted, old
        await conn.execute(
            update(Message.__table__)
            .where(Message.__table__.c.id == message_id)  # type: ignore[attr-defined]
            .values(status="queued", workflow_started_at=None, created_at=utcnow() - timedelta(minutes=5))
        )
    await engine.dispose()
    result = await temporal_env.client.execute_workflow(
        SweepQueuedSendsWorkflow.run, id=f"sweep-done-{message_id}", task_queue=settings.temporal_task_queue
    )
    assert result.resumed == 0
    assert len(channel.sends_to(TO)) == 1
    again = await temporal_env.client.execute_workflow(
        SweepQueuedSendsWorkflow.run,
        id=f"sweep-done-again-{message_id}",
        task_queue=settings.temporal_task_queue,
    )
    assert again.resumed == 0  # noted: never looked at again


async def test_sweeper_settles_a_queued_send_whose_run_ended_without_an_outcome(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel, worker, temporal_env, settings
):
    """A noted send still queued longer than any run lasts (terminated by an operator, say) ends failed_transient.

    Before, nothing moved it: it counted against its phone's queue for good, and a retry of it answered
    with it. A noted send still inside that time is left to its run.
    """
    ended, running = await queued_without_a_workflow(
        settings,
        tenant,
        {body: {**tenant.headers(), "Idempotency-Key": f"key-{body}"} for body in ("ended", "still running")},
    )
    window = timedelta(seconds=settings.send_retry_window_seconds)
    engine = create_engine(settings.database_url)
    async with engine.begin() as conn:  # both noted as started: one longer ago than any run lasts
        table = Message.__table__
        for message_id, started in ((ended, window + timedelta(hours=3)), (running, window)):
            await conn.execute(
                update(table)
                .where(table.c.id == message_id)  # type: ignore[attr-defined]
                .values(workflow_started_at=utcnow() - started, created_at=utcnow() - started)
            )
    await engine.dispose()
    result = await temporal_env.client.execute_workflow(
        SweepQueuedSendsWorkflow.run, id=f"sweep-ended-{ended}", task_queue=settings.temporal_task_queue
    )
    assert (result.abandoned, result.resumed) == (1, 0)
    settled = (await app_client.get(f"/v1/messages/{ended}", headers=tenant.headers())).json()
    assert (settled["status"], settled["error_code"]) == ("failed_transient", "SEND_NOT_FINISHED")
    left = (await app_client.get(f"/v1/messages/{running}", headers=tenant.headers())).json()
    assert left["status"] == "queued"
    assert channel.sends == []
    failed = [e for e in await events(settings, tenant.id) if e.kind == "channel.message.failed"]
    assert [e.payload["message"]["service"]["message_id"] for e in failed] == [ended]
    assert failed[0].payload["message"]["service"]["error_code"] == "SEND_NOT_FINISHED"
    # The Idempotency-Key is free again, and the message can be retried: the retry is sent.
    retried = await app_client.post(f"/v1/messages/{ended}/retry", headers=tenant.headers())
    assert retried.status_code == 201, retried.text
    assert retried.json()["retry_of_message_id"] == ended
    assert [s["text"] for s in channel.sends_to(TO)] == [{"body": "ended"}]
    again = await temporal_env.client.execute_workflow(
        SweepQueuedSendsWorkflow.run, id=f"sweep-ended-again-{ended}", task_queue=settings.temporal_task_queue
    )
    assert (again.abandoned, again.resumed) == (0, 0)


# A database fault at the one write the test aims at: the record of a send as not finished.
_REFUSE_NOT_FINISHED = {
    "sqlite": [
        "CREATE TRIGGER refuse_not_finished BEFORE UPDATE OF status ON messages "
        "WHEN NEW.error_code = 'SEND_NOT_FINISHED' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"
    ],
    "postgresql": [
        "CREATE FUNCTION refuse_not_finished() RETURNS trigger AS $$ "
        "BEGIN RAISE EXCEPTION 'refused by the test'; END $$ LANGUAGE plpgsql",
        "CREATE TRIGGER refuse_not_finished BEFORE UPDATE ON messages FOR EACH ROW "
        "WHEN (NEW.error_code = 'SEND_NOT_FINISHED') EXECUTE FUNCTION refuse_not_finished()",
    ],
}


async def test_a_dead_run_the_api_cannot_record_is_noted_for_the_sweep(
    app_client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel, worker, temporal_env, settings
):
    """The API records a run that died while it waited as not finished; if that write fails, it notes the send.

    The note is what keeps the sweep from starting the send again (the client was told to retry); the sweep
    settles a noted send once no run can still be going.
    """
    body = {"phone_number_id": tenant.phone_number_id, "to": TO, "type": "text", "text": {"body": "x"}}
    gate = channel.hold()
    try:
        request = asyncio.create_task(app_client.post("/v1/messages", json=body, headers=tenant.headers()))
        await asyncio.wait_for(channel.gate_entered.wait(), timeout=10)
        [queued] = (await app_client.get("/v1/messages", headers=tenant.headers())).json()["data"]
        async with db(settings) as session:
            for statement in _REFUSE_NOT_FINISHED[session.get_bind().dialect.name]:
                await session.execute(text(statement))
        await temporal_env.client.get_workflow_handle(f"send-{queued['id']}").terminate("operator stop")
        died = await asyncio.wait_for(request, timeout=10)
        assert died.status_code == 500, died.text
        assert died.json()["details"]["message_id"] == queued["id"]
        [stored] = await rows(settings, Message, Message.id == queued["id"])
        assert stored.status == "queued"
        assert stored.workflow_started_at is not None
    finally:
        gate.set()
