"""A large channel webhook (a 5 MB batch) is handed to ProcessInbound and applied: its body travels by id."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from switchboard.activities.workflow_starts import inbound_workflow_id
from switchboard.domain.inbound import payload_id
from switchboard.models.inbound import INLINE_BODY_LIMIT
from switchboard.settings import Settings
from tests.support.inbound import (
    applied,
    envelope,
    messages,
    metadata,
    post_webhook,
    provision_fixture_number,
)
from tests.support.tenants import TenantFixture

MESSAGES = 1_300
BODY = "x" * 3_900  # near the channel's 4,096-character text limit


def _batch() -> bytes:
    now = str(int(time.time()))
    value: dict[str, Any] = {
        "messaging_product": "whatsapp",
        "metadata": metadata(),
        "contacts": [{"profile": {"name": "Big"}, "wa_id": "16505551234"}],
        "messages": [
            {
                "from": "16505551234",
                "id": f"wamid.big{n:05d}",
                "timestamp": now,
                "type": "text",
                "text": {"body": BODY},
            }
            for n in range(MESSAGES)
        ],
    }
    return envelope(value)


async def test_a_five_megabyte_payload_is_applied_and_stays_out_of_workflow_history(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    settings: Settings,
    temporal_env: WorkflowEnvironment,
    worker: Worker,
) -> None:
    await provision_fixture_number(app_client, tenant)
    body = _batch()
    assert len(body) > 5_000_000

    response = await post_webhook(app_client, body)

    # Applying 1,300 items in the request could outlast the channel's patience: a run applies them.
    assert response.status_code == 200 and response.json()["summary"] is None
    summary = await applied(temporal_env.client, response, body, task_queue=settings.temporal_task_queue)

    assert (summary.items, summary.applied) == (MESSAGES, MESSAGES)
    stored = await messages(settings, tenant.id)
    assert len(stored) == MESSAGES and {m.content for m in stored} == {BODY}
    handle = temporal_env.client.get_workflow_handle(
        inbound_workflow_id(payload_id(body), task_queue=settings.temporal_task_queue)
    )
    history = await handle.fetch_history()
    started = history.events[0].workflow_execution_started_event_attributes
    input_size = sum(len(p.data) for p in started.input.payloads)
    assert input_size < 1_000, "the body itself must not be in the workflow input"
    assert INLINE_BODY_LIMIT < len(body)
    # The same bytes again change nothing.
    again = await app_client.post(
        "/channel/webhook",
        content=body,
        headers={"Content-Type": "application/json", "X-Hub-Signature-256": _sign(body, settings)},
    )
    assert again.status_code == 200 and json.loads(again.text)["duplicate"] is True


def _sign(body: bytes, settings: Settings) -> str:
    from switchboard.domain.signatures import hub_signature

    return hub_signature(body, settings.channel_app_secret)
