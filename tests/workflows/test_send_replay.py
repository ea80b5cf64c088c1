"""Recorded SendMessage histories replay against today's code (a determinism regression check).

Sends run for up to 24 h (the upstream retry window), so a deploy meets sends
in flight: a change to the workflow's command sequence or to the payloads it
decodes from its history must stay compatible with them. The histories under
``histories/send_message_*.json`` were recorded from real sends (the API, a
real worker, the dev server and a fake upstream on loopback). Re-record them
with ``RECORD_SEND_HISTORIES=1 pytest tests/workflows/test_send_replay.py``
only after a deliberate change that keeps the old ones replaying (a
``workflow.patched`` branch); keep the old files beside the new ones.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer

from switchboard.activities.workflow_starts import send_workflow_id
from switchboard.api.sending import send_answer
from switchboard.domain.throughput import slot_bucket
from switchboard.models.send import SendReport
from switchboard.store import rate_limits
from switchboard.store.database import create_engine
from switchboard.workflows.send_message import SendMessageWorkflow
from tests.support.fake_channel import FakeChannel, Scripted, cloud_error
from tests.support.http_server import serve_app
from tests.support.tenants import TenantFixture

HISTORY_DIR = Path(__file__).parent / "histories"
HISTORIES = sorted(HISTORY_DIR.glob("send_message_*.json"))
RECORD = os.environ.get("RECORD_SEND_HISTORIES") == "1"


def _replayer() -> Replayer:
    return Replayer(workflows=[SendMessageWorkflow], data_converter=pydantic_data_converter)


@pytest.mark.parametrize(
    "name,text", [(path.stem, path.read_text()) for path in HISTORIES], ids=[path.stem for path in HISTORIES]
)
async def test_recorded_send_history_replays(name: str, text: str) -> None:
    history = WorkflowHistory.from_json(name, text)
    result = await _replayer().replay_workflow(history, raise_on_replay_failure=True)
    assert result.replay_failure is None


# Message fields added after these results were recorded (null on every send: received messages only,
# or changes a message's sender made after it arrived).
ADDED_SINCE = ("context", "referral", "errors", "group_id", "edited_at", "revoked_at", "edits")


@pytest.mark.parametrize(
    "name,text", [(path.stem, path.read_text()) for path in HISTORIES], ids=[path.stem for path in HISTORIES]
)
def test_a_recorded_result_is_answered_as_it_was(name: str, text: str) -> None:
    """A result of the previous release (a rendered answer) reads as a SendReport and renders the same."""
    history = WorkflowHistory.from_json(name, text)
    completed = [
        event.workflow_execution_completed_event_attributes
        for event in history.events
        if event.HasField("workflow_execution_completed_event_attributes")
    ]
    if not completed:
        # A run recorded before "send-media-give-up-recorded" failed when its media kept failing: no result.
        assert name.endswith("_before_media_give_up_recorded")
        assert history.events[-1].event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED
        return
    [completed] = completed
    [payload] = completed.result.payloads
    report = pydantic_data_converter.payload_converter.from_payload(payload, SendReport)
    answer = send_answer(report)
    recorded = json.loads(payload.data)
    if "status_code" in recorded:
        assert answer.status_code == recorded["status_code"]
        rendered = json.loads(answer.body)
        # The Message gained the channel's received-message fields since; a send's are always null.
        added = {f: rendered.pop(f) for f in ADDED_SINCE if f in rendered and f not in recorded["body"]}
        assert set(added.values()) <= {None}, added
        assert rendered == recorded["body"]
    else:
        assert report == SendReport.model_validate(recorded)


def test_send_histories_are_recorded() -> None:
    names = {path.stem for path in HISTORIES}
    assert {
        "send_message_sent",
        "send_message_upstream_refused",
        "send_message_media_gave_up",
        "send_message_media_gave_up_before_media_give_up_recorded",
    } <= names, "record them: RECORD_SEND_HISTORIES=1 pytest tests/workflows/test_send_replay.py"


@pytest.fixture
async def channel() -> AsyncIterator[tuple[FakeChannel, str]]:
    fake = FakeChannel()
    async with serve_app(fake.app()) as base_url:
        yield fake, base_url


@pytest.fixture
def settings(settings, channel):  # type: ignore[no-untyped-def]
    """The session settings, pointed at this test's fake upstream."""
    return settings.model_copy(update={"channel_api_base_url": channel[1], "send_wait_seconds": 10.0})


# (history name, recipient, the fake upstream's answers to it, the API's answer, the run's local
# activities: an accepted try records the send itself, so only a refusal adds record_send_outcome)
SENDS = [
    ("send_message_sent", "14155550100", [], 201, ["channel_send"]),
    (
        "send_message_upstream_refused",
        "14155550101",
        [Scripted(400, cloud_error(131026, "Message undeliverable", details="not on WhatsApp"))],
        400,
        ["channel_send", "record_send_outcome"],
    ),
    (
        "send_message_alternate_form",
        "5491123456789",
        [Scripted(400, cloud_error(131030, "Recipient phone number not in allowed list"))],
        201,
        ["channel_send", "channel_send"],
    ),
    # The local first try fails retryably: its delay on a timer, then the regular activity sends (and
    # records the send).
    (
        "send_message_retried",
        "14155550102",
        [Scripted(503, cloud_error(131016, "Service unavailable"))],
        201,
        ["channel_send"],
    ),
]


def local_activities(history: WorkflowHistory) -> list[str]:
    """The activity types of the run's local-activity markers, in order."""
    names = []
    for event in history.events:
        marker = event.marker_recorded_event_attributes
        if event.HasField("marker_recorded_event_attributes") and marker.marker_name == "core_local_activity":
            [data] = marker.details["data"].payloads
            names.append(json.loads(data.data)["activity_type"])
    return names


@pytest.mark.parametrize(("name", "to", "answers", "status", "local"), SENDS, ids=[s[0] for s in SENDS])
async def test_a_live_send_history_replays(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    worker,  # type: ignore[no-untyped-def]
    channel: tuple[FakeChannel, str],
    temporal_env: WorkflowEnvironment,
    name: str,
    to: str,
    answers: list[Scripted],
    status: int,
    local: list[str],
) -> None:
    fake, _ = channel
    if answers:
        # The 131030 answer is for the canonical form (no 9 after 54); the alternate then succeeds.
        fake.script("541123456789" if to.startswith("549") else to, *answers)
    response = await app_client.post(
        "/v1/messages",
        json={"phone_number_id": tenant.phone_number_id, "to": to, "type": "text", "text": {"body": "hi"}},
        headers=tenant.headers(),
    )
    assert response.status_code == status, response.text
    message_id = response.json()["id" if status == 201 else "message_id"]
    history = await temporal_env.client.get_workflow_handle(send_workflow_id(message_id)).fetch_history()
    assert local_activities(history) == local
    result = await _replayer().replay_workflow(history, raise_on_replay_failure=True)
    assert result.replay_failure is None
    if RECORD:
        HISTORY_DIR.mkdir(exist_ok=True)
        (HISTORY_DIR / f"{name}.json").write_text(history.to_json())


async def test_a_send_that_waits_for_its_slot_replays(
    app_client: httpx.AsyncClient,
    tenant: TenantFixture,
    worker,  # type: ignore[no-untyped-def]
    settings,  # type: ignore[no-untyped-def]
    temporal_env: WorkflowEnvironment,
) -> None:
    """The phone's slots of this second and the next two are taken: the first try waits on a timer, then sends.

    Three seconds, not two: on a loaded machine (CI runs both databases' suites at once) the first try
    once began more than a second after the slots were taken, found a free second and never waited.
    """
    per_second = settings.throughput_standard_per_second
    engine = create_engine(settings.database_url)
    try:
        second = int(time.time())
        async with engine.begin() as conn:
            for window in (second, second + 1, second + 2):
                await rate_limits.lease(
                    conn,
                    slot_bucket(tenant.phone_number_id, window),
                    want=per_second,
                    limit=per_second,
                    expires_at=datetime.fromtimestamp(window + 5, UTC),
                )
    finally:
        await engine.dispose()
    response = await app_client.post(
        "/v1/messages",
        json={
            "phone_number_id": tenant.phone_number_id,
            "to": "14155550103",
            "type": "text",
            "text": {"body": "hi"},
        },
        headers=tenant.headers(),
    )
    assert response.status_code == 201, response.text
    history = await temporal_env.client.get_workflow_handle(
        send_workflow_id(response.json()["id"])
    ).fetch_history()
    timers = [event for event in history.events if event.event_type == EventType.EVENT_TYPE_TIMER_STARTED]
    assert timers, "the send should have waited for a slot"
    result = await _replayer().replay_workflow(history, raise_on_replay_failure=True)
    assert result.replay_failure is None
    if RECORD:
        (HISTORY_DIR / "send_message_slot_wait.json").write_text(history.to_json())
