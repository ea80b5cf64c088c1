"""Every log line names what it belongs to: the request (and tenant) in the API, the workflow in the worker.

The records are those the real code logs, captured by pytest with the same
``ContextFilter`` that ``configure_logging`` puts on the process's handler.
"""

from __future__ import annotations

import io
import json
import logging
import time
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from fastapi import FastAPI
from temporalio.testing import WorkflowEnvironment

from switchboard.activities.workflow_starts import inbound_workflow_id, start_inbound
from switchboard.api.app import create_app
from switchboard.api.deps import Caller
from switchboard.domain.inbound import payload_id
from switchboard.logs import ContextFilter, bound_log_fields, json_handler
from switchboard.models.base import utcnow
from switchboard.models.inbound import InboundPayload, inbound_payload
from switchboard.settings import Settings
from switchboard.store.database import create_engine
from switchboard.workflows.inbound import ProcessInboundWorkflow
from tests.conftest import ADMIN_KEY
from tests.support.inbound import provision_fixture_number, status_payload
from tests.support.tenants import TenantFixture, provision_tenant

probe_log = logging.getLogger("switchboard.tests.probe")


@pytest.fixture
def records(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """caplog with the production context filter on its handler."""
    context = ContextFilter()
    caplog.handler.addFilter(context)
    # DEBUG: the per-request and per-payload lines are there (LOG_LEVEL=DEBUG, `switchboard dev -v`).
    caplog.set_level(logging.DEBUG)
    # Our loggers' own level too: a CLI command run earlier in this process may have set it (LOG_LEVEL).
    caplog.set_level(logging.DEBUG, logger="switchboard")
    yield caplog
    caplog.handler.removeFilter(context)


def app_with_probe(settings: Settings) -> FastAPI:
    """The real app plus one authenticated route that logs a line, as any handler would."""
    app = create_app(settings)

    @app.get("/v1/_log-probe")
    async def log_probe(who: Caller) -> dict[str, str]:
        probe_log.info("probe handled", extra={"key_id": who.key_id})
        return {}

    return app


@pytest.fixture
async def probe_client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    app = app_with_probe(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://switchboard.test") as client:
            yield client


def probe_records(caplog: pytest.LogCaptureFixture, message: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.getMessage() == message]


async def test_a_requests_log_line_carries_its_request_id_and_tenant(
    probe_client: httpx.AsyncClient, records: pytest.LogCaptureFixture
) -> None:
    tenant: TenantFixture = await provision_tenant(probe_client, ADMIN_KEY)
    records.clear()
    response = await probe_client.get(
        "/v1/_log-probe", headers={**tenant.headers(), "X-Request-Id": "req-log-probe-1"}
    )
    assert response.status_code == 200
    assert response.headers["x-request-id"] == "req-log-probe-1"
    (line,) = probe_records(records, "probe handled")
    assert (vars(line)["request_id"], vars(line)["tenant_id"]) == ("req-log-probe-1", tenant.id)


async def test_at_debug_each_answered_request_is_one_line_with_its_route_template_and_status(
    probe_client: httpx.AsyncClient, records: pytest.LogCaptureFixture
) -> None:
    tenant = await provision_tenant(probe_client, ADMIN_KEY)
    records.clear()
    response = await probe_client.get(
        "/v1/messages/msg_missing", headers={**tenant.headers(), "X-Request-Id": "req-debug-line"}
    )
    assert response.status_code == 404
    (line,) = probe_records(records, "request answered")
    assert line.levelno == logging.DEBUG
    fields = vars(line)
    assert (fields["method"], fields["route"], fields["status"]) == ("GET", "/v1/messages/{message_id}", 404)
    assert (fields["request_id"], fields["tenant_id"]) == ("req-debug-line", tenant.id)
    assert fields["ms"] >= 0


async def test_a_generated_request_id_is_the_one_logged_and_answered(
    probe_client: httpx.AsyncClient, records: pytest.LogCaptureFixture
) -> None:
    tenant = await provision_tenant(probe_client, ADMIN_KEY)
    records.clear()
    response = await probe_client.get("/v1/_log-probe", headers=tenant.headers())
    (line,) = probe_records(records, "probe handled")
    assert vars(line)["request_id"] == response.headers["x-request-id"]
    assert len(vars(line)["request_id"]) == 16


async def test_lines_outside_a_request_carry_only_what_is_bound_there(
    probe_client: httpx.AsyncClient, records: pytest.LogCaptureFixture
) -> None:
    with bound_log_fields({"request_id": "outer"}):
        probe_log.info("before")
    response = await probe_client.get("/v1/_log-probe", headers={"X-Request-Id": "req-anon"})
    assert response.status_code == 401
    probe_log.info("after the request")
    (after,) = probe_records(records, "after the request")
    assert "request_id" not in vars(after) and "tenant_id" not in vars(after)
    (before,) = probe_records(records, "before")
    assert vars(before)["request_id"] == "outer"


async def test_an_activitys_log_line_carries_its_workflow_id(
    worker: object,
    settings: Settings,
    temporal_env: WorkflowEnvironment,
    records: pytest.LogCaptureFixture,
) -> None:
    body = json.dumps({"object": "whatsapp_business_account", "entry": []})
    payload = inbound_payload(payload_id=payload_id(body.encode()), body=body, received_at=utcnow())
    workflow_id = inbound_workflow_id(payload.payload_id, task_queue=settings.temporal_task_queue)
    assert await start_inbound(temporal_env.client, payload, task_queue=settings.temporal_task_queue)
    handle = temporal_env.client.get_workflow_handle(workflow_id)
    await handle.result()
    (line,) = probe_records(records, "inbound payload applied")
    assert vars(line)["payload_id"] == payload.payload_id
    assert vars(line)["workflow_id"] == workflow_id
    assert vars(line)["workflow_type"] == "ProcessInbound"
    assert vars(line)["activity_type"] == "process_inbound_payload"
    assert vars(line)["workflow_run_id"] == (await handle.describe()).run_id


async def test_a_workflows_log_line_carries_its_workflow_id(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    settings: Settings,
    time_skipping_env: WorkflowEnvironment,
    records: pytest.LogCaptureFixture,
) -> None:
    from switchboard.worker import build_deps, build_worker, close_deps

    await provision_fixture_number(app_client, tenant)
    engine = create_engine(settings.database_url)
    deps = build_deps(time_skipping_env.client, settings, engine)
    body = status_payload("wamid.never-stored-log", "delivered")
    payload = InboundPayload(payload_id=payload_id(body), body=body.decode(), received_at=utcnow())
    workflow_id = f"log-context-{time.time_ns()}"
    try:
        async with build_worker(time_skipping_env.client, deps):
            await time_skipping_env.client.execute_workflow(
                ProcessInboundWorkflow.run, payload, id=workflow_id, task_queue=settings.temporal_task_queue
            )
    finally:
        await close_deps(deps)
        await engine.dispose()
    (line,) = [r for r in records.records if "items for unknown messages dropped" in r.getMessage()]
    assert (vars(line)["workflow_id"], vars(line)["workflow_type"]) == (workflow_id, "ProcessInbound")
    assert vars(line)["payload_id"] == payload.payload_id


def test_bound_ids_reach_the_json_line_and_secrets_do_not() -> None:
    stream = io.StringIO()
    handler = json_handler(stream)
    probe_log.addHandler(handler)
    probe_log.setLevel(logging.INFO)
    api_key = "gsk_live_abcdef" + "x" * 30
    try:
        with bound_log_fields({"request_id": "req-json", "tenant_id": "ten_1"}):
            with bound_log_fields({"request_id": "req-inner", "authorization": "Bearer sk-verysecret"}):
                probe_log.info(
                    "called with %s", api_key, extra={"message_id": "msg_1", "secret": "whsec_topsecret"}
                )
    finally:
        probe_log.removeHandler(handler)
        probe_log.setLevel(logging.NOTSET)
    text = stream.getvalue()
    line = json.loads(text)
    assert (line["request_id"], line["tenant_id"], line["message_id"]) == ("req-inner", "ten_1", "msg_1")
    for secret in ("abcdef" + "x" * 30, "sk-verysecret", "topsecret"):
        assert secret not in text
    assert "workflow_id" not in line


def test_provider_keys_and_credential_headers_do_not_reach_the_json_line() -> None:
    stream = io.StringIO()
    handler = json_handler(stream)
    probe_log.addHandler(handler)
    probe_log.setLevel(logging.INFO)
    keys = [
        "sk-ant-api03-R2d9XkLmP4qWvB7nT1yHsC6u",
        "sk-proj-N4bV8cX2zL6kJ9hG3fD7sA1q",
        "AIzaSyD3f8Kq2Lm9Xv7Bn4Cz6Wq1Er5Ty0UiOpQ",
        "m7Qx2Lp9Vb4Nc8Zr1Ks6Dw3Fj5Gh0TyE",
    ]
    try:
        try:
            raise RuntimeError(f"gateway echo: x-api-key: {keys[0]}; {{'x-goog-api-key': '{keys[2]}'}}")
        except RuntimeError:
            probe_log.exception("echoed %s and %s", keys[1], f"Api-Key={keys[3]}")
    finally:
        probe_log.removeHandler(handler)
        probe_log.setLevel(logging.NOTSET)
    text = stream.getvalue()
    for key in keys:
        assert key[-12:] not in text
