"""An upstream that echoes the request's Authorization header in its errors leaks no WABA token.

POST /v1/messages with a real worker on the dev server, against a fake
upstream quoting ``Authorization: Bearer <token>`` in its error envelope's
message and details, or dumping it in an HTML page. A retryable echo, then a
permanent one: the token must appear in no API answer, no database row, not
in the SendMessage workflow's history, and in no log record.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.testing import WorkflowEnvironment

from switchboard.activities.workflow_starts import send_workflow_id
from switchboard.settings import Settings
from tests.conftest import ADMIN_KEY
from tests.fakes.echo_channel import EchoChannel, EchoedError
from tests.support.http_server import serve_app
from tests.support.secret_leaks import assert_absent, database_text, history_text, logged_text
from tests.support.tenants import TenantFixture

TO = "14155550100"
TOKEN = "EAAGm0PX4ZCpsBAHZBwq2ZCWmZA8sZDk3nV4lueQx7Rt"


@pytest.fixture
async def fake_channel() -> AsyncIterator[tuple[EchoChannel, str]]:
    """This module's upstream: errors that echo the Authorization header (the conftest's settings use it)."""
    echo = EchoChannel()
    async with serve_app(echo.app()) as base_url:
        yield echo, base_url


@pytest.fixture
def echo(fake_channel: tuple[EchoChannel, str]) -> EchoChannel:
    return fake_channel[0]


async def closed_history(env: WorkflowEnvironment, workflow_id: str) -> str:
    history = await env.client.get_workflow_handle(workflow_id).fetch_history()
    assert history.events[-1].event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED
    return await history_text(env.client, workflow_id)


@pytest.mark.parametrize(
    ("errors", "code"),
    [
        ([EchoedError(500, 131000), EchoedError(400, 131008)], "131008"),
        ([EchoedError(502), EchoedError(400)], "UPSTREAM_REJECTED"),
    ],
    ids=["cloud-api-envelope", "html-page"],
)
async def test_an_echoed_waba_token_is_blanked_everywhere(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    worker: Any,
    echo: EchoChannel,
    settings: Settings,
    temporal_env: WorkflowEnvironment,
    caplog: pytest.LogCaptureFixture,
    errors: list[EchoedError],
    code: str,
) -> None:
    caplog.set_level(logging.DEBUG)
    rotated = await app_client.patch(
        f"/v1/admin/tenants/{tenant.id}/wabas/{tenant.waba_id}",
        json={"access_token": TOKEN},
        headers={"X-Admin-Key": ADMIN_KEY},
    )
    assert rotated.status_code == 200, rotated.text
    echo.answer(*errors)

    payload = {"phone_number_id": tenant.phone_number_id, "to": TO, "type": "text", "text": {"body": "hi"}}
    answer = await app_client.post("/v1/messages", json=payload, headers=tenant.headers())

    assert answer.status_code == 400, answer.text
    message_id = answer.json()["message_id"]
    assert answer.json().get("code") == code
    # The token was sent twice (the first try, then Temporal's retry) and echoed back each time.
    assert echo.auth_headers == [f"Bearer {TOKEN}"] * 2
    stored = await app_client.get(f"/v1/messages/{message_id}", headers=tenant.headers())
    assert stored.status_code == 200, stored.text
    assert stored.json()["status"] == "failed"
    for text, where in [
        (answer.text, "the send's answer"),
        (stored.text, "GET /v1/messages/{id}"),
        (await closed_history(temporal_env, send_workflow_id(message_id)), "the send's history"),
        (await database_text(settings), "the database"),
        (logged_text(caplog.records), "the logs"),
    ]:
        assert_absent(TOKEN, text, where=where)
    assert "[redacted]" in stored.json()["error_message"]
