"""activities/workflow_starts.py: every name (domain/workflow_names.py) is a registered workflow, every id keeps its format, every
start sends its workflow's own input type under its name, id and policies (a recording client, no server)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, cast

import pytest
from temporalio import workflow
from temporalio.client import Client
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError

from switchboard.activities import workflow_starts as starts
from switchboard.activities.agents.payloads import ClaimInput
from switchboard.activities.webhooks.types import DeliveryInput, DeliveryRef, ScheduleTerms
from switchboard.domain import workflow_names
from switchboard.models.inbound import InboundPayload
from switchboard.models.send import SendInput
from switchboard.workflows.all_workflows import WORKFLOWS

NAMES = {name: value for name, value in vars(workflow_names).items() if name.endswith("_WORKFLOW")}
REGISTERED = {workflow._Definition.must_from_class(cls).name: cls for cls in WORKFLOWS}

QUEUE = "q-1"
SEND = SendInput(message_id="msg_1", tenant_id="ten_1", phone_number_id="pn_1", waba_id="waba_1", body={})
DELIVERY = DeliveryInput(
    delivery=DeliveryRef(delivery_id="dlv_1", webhook_id="wh_1", event_id="evt_1", event_kind="k"),
    schedule=ScheduleTerms(
        retry_schedule_seconds=[1.0],
        jitter_ratio=0.0,
        overload_floor_seconds=1.0,
        retry_after_max_seconds=1.0,
    ),
)
PAYLOAD = InboundPayload(payload_id="abc123", body="{}", received_at=datetime(2025, 1, 1, tzinfo=UTC))


def test_the_module_names_every_workflow_the_service_starts() -> None:
    assert sorted(NAMES.values()) == sorted(
        [
            "SendMessage",
            "DispatchEvent",
            "SendOwnerNotification",
            "DeliverWebhook",
            "RecoverDeliveries",
            "ProcessInbound",
            "AgentThread",
            "AgentRun",
            "AgentThreadTimers",
        ]
    )


@pytest.mark.parametrize("constant", sorted(NAMES))
def test_every_name_is_registered_by_a_workflow_class(constant: str) -> None:
    assert NAMES[constant] in REGISTERED


# Frozen: runs in flight and recorded histories carry these ids.
IDS: list[tuple[Callable[..., str], tuple[Any, ...], dict[str, Any], str]] = [
    (starts.send_workflow_id, ("msg_1",), {}, "send-msg_1"),
    (starts.dispatch_workflow_id, ("evt_1",), {}, "event-evt_1"),
    (starts.notification_workflow_id, ("ntf_1",), {}, "owner-notification-ntf_1"),
    (starts.delivery_workflow_id, ("dlv_1",), {}, "delivery-dlv_1"),
    (starts.recovery_workflow_id, ("rcv_1",), {}, "webhook-recovery-rcv_1"),
    (starts.inbound_workflow_id, ("abc123",), {"task_queue": QUEUE}, f"inbound-{QUEUE}-abc123"),
    (starts.thread_workflow_id, ("thr_1",), {}, "agent-thread-thr_1"),
    (starts.run_workflow_id, ("run_1",), {}, "agent-run-run_1"),
    (starts.timers_workflow_id, ("thr_1",), {}, "agent-timers-thr_1"),
]


@pytest.mark.parametrize(("make", "args", "kwargs", "expected"), IDS, ids=[row[0].__name__ for row in IDS])
def test_each_id_keeps_its_format(
    make: Callable[..., str], args: tuple[Any, ...], kwargs: dict[str, Any], expected: str
) -> None:
    assert make(*args, **kwargs) == expected


def test_a_runs_stored_workflow_id_is_the_id_it_runs_under() -> None:
    """claim_agent_turns stores ``workflow_id_prefix + run_id`` on the run (the store cannot import ids)."""
    claim = ClaimInput(thread_id="thr_1", message_ids=[])
    assert claim.workflow_id_prefix + "run_1" == starts.run_workflow_id("run_1")


class Recorder:
    """Stands in for the Temporal client: records each start, or refuses it as already started."""

    def __init__(self, *, refuse: bool = False) -> None:
        self.calls: list[tuple[str, Any, dict[str, Any]]] = []
        self.refuse = refuse

    async def start_workflow(self, workflow: str, arg: Any, **options: Any) -> None:
        self.calls.append((workflow, arg, options))
        if self.refuse:
            raise WorkflowAlreadyStartedError(options["id"], workflow)


Start = Callable[[Client], Awaitable[Any]]
ONCE = {
    "id_reuse_policy": WorkflowIDReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
    "id_conflict_policy": WorkflowIDConflictPolicy.USE_EXISTING,
}
# (start, workflow name, workflow id, options it must pass as they are today)
STARTS: list[tuple[str, Start, str, str, dict[str, Any]]] = [
    ("send", lambda c: starts.start_send(c, SEND, task_queue=QUEUE), "SendMessage", "send-msg_1", ONCE),
    (
        "dispatch",
        lambda c: starts.dispatch_events(c, task_queue=QUEUE, event_ids=["evt_1"]),
        "DispatchEvent",
        "event-evt_1",
        ONCE,
    ),
    (
        "notification",
        lambda c: starts.start_owner_notification(c, task_queue=QUEUE, notification_id="ntf_1"),
        "SendOwnerNotification",
        "owner-notification-ntf_1",
        ONCE,
    ),
    (
        "delivery",
        lambda c: starts.start_delivery(c, DELIVERY, task_queue=QUEUE),
        "DeliverWebhook",
        "delivery-dlv_1",
        # Started by worker activities: the first task is asked for back, for this worker to run at once.
        {"id_reuse_policy": WorkflowIDReusePolicy.REJECT_DUPLICATE, "request_eager_start": True},
    ),
    (
        "inbound",
        lambda c: starts.start_inbound(c, PAYLOAD, task_queue=QUEUE),
        "ProcessInbound",
        f"inbound-{QUEUE}-abc123",
        {**ONCE, "rpc_timeout": starts.INBOUND_START_TIMEOUT},
    ),
    (
        "thread",
        lambda c: starts.signal_turn(
            c,
            tenant_id="ten_1",
            thread_id="thr_1",
            message_id="msg_1",
            task_queue=QUEUE,
            with_search_attributes=True,
            debounce_seconds=2.0,
            idle_seconds=60.0,
        ),
        "AgentThread",
        "agent-thread-thr_1",
        {
            "start_signal": "turn",
            "start_signal_args": ["msg_1"],
            "search_attributes": starts.search_attributes("ten_1", "thr_1"),
            "rpc_timeout": starts.THREAD_START_TIMEOUT,
        },
    ),
    (
        "timers",
        lambda c: starts.wake_thread_timers(c, tenant_id="ten_1", thread_id="thr_1", task_queue=QUEUE),
        "AgentThreadTimers",
        "agent-timers-thr_1",
        {"start_signal": "wake"},
    ),
]


@pytest.mark.parametrize(
    ("start", "name", "workflow_id", "options"), [s[1:] for s in STARTS], ids=[s[0] for s in STARTS]
)
async def test_each_start_sends_its_workflows_input_under_its_name_id_and_policies(
    start: Start, name: str, workflow_id: str, options: dict[str, Any]
) -> None:
    client = Recorder()
    await start(cast(Client, client))
    [(started, arg, sent)] = client.calls
    assert (started, sent["id"], sent["task_queue"]) == (name, workflow_id, QUEUE)
    assert {key: sent.get(key) for key in options} == options
    definition = workflow._Definition.must_from_class(REGISTERED[name])
    assert definition.arg_types is not None
    assert type(arg) is definition.arg_types[0], "the start's input is the workflow's run() parameter type"
    if "start_signal" in sent:
        assert sent["start_signal"] in definition.signals


@pytest.mark.parametrize(
    "start",
    [s[1] for s in STARTS if s[0] in ("delivery", "inbound")],
    ids=[s[0] for s in STARTS if s[0] in ("delivery", "inbound")],
)
async def test_a_start_of_an_existing_id_answers_false(start: Start) -> None:
    assert await start(cast(Client, Recorder(refuse=True))) is False


@pytest.mark.parametrize(
    "start",
    [s[1] for s in STARTS if s[0] in ("dispatch", "notification")],
    ids=[s[0] for s in STARTS if s[0] in ("dispatch", "notification")],
)
async def test_an_outbox_start_of_an_existing_id_is_a_no_op(start: Start) -> None:
    assert await start(cast(Client, Recorder(refuse=True))) is None
