"""The worker's sandbox (switchboard.workflow_sandbox) answers what Temporal's own does, and still restricts.

It reads each payload's serialization context from the run directly instead of through the sandbox's
``exec``; these tests replay every recorded history and compare, for every payload the worker encodes or
decodes, its answer with the SDK's, and run a workflow that reads the wall clock to show the sandbox
still refuses it.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import WorkflowFailureError, WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import (
    Replayer,
    UnsandboxedWorkflowRunner,
    Worker,
    WorkflowInstance,
    WorkflowInstanceDetails,
)
from temporalio.worker.workflow_sandbox._in_sandbox import InSandbox
from temporalio.worker.workflow_sandbox._runner import _Instance
from temporalio.workflow import _Definition

from switchboard.worker import SANDBOX
from switchboard.workflow_sandbox import DirectContextSandbox, _DirectContextInstance, compiled
from switchboard.workflows.all_workflows import WORKFLOWS
from tests.workflows import record_support as rec
from tests.workflows.sandbox_bad_module import BadModuleWorkflow
from tests.workflows.sandbox_probe import SandboxProbeWorkflow
from tests.workflows.sandboxed_twins import TWINS

HISTORIES = sorted(rec.HISTORIES.glob("*.json"))
ANSWERS: list[tuple[str, Any, Any]] = []


class _ComparingInstance(_DirectContextInstance):
    """Answers as the worker does, and records the SDK's own answer beside it."""

    def get_serialization_context(self, command_info):  # type: ignore[no-untyped-def]
        ours = super().get_serialization_context(command_info)
        sdks = _Instance.get_serialization_context(self, command_info)
        ANSWERS.append(("serialization", ours, sdks))
        return ours

    def get_external_store_context(self, command_info):  # type: ignore[no-untyped-def]
        ours = super().get_external_store_context(command_info)
        sdks = _Instance.get_external_store_context(self, command_info)
        ANSWERS.append(("external store", ours, sdks))
        return ours


SANDBOXED_RUNS: list[str] = []


@dataclass(frozen=True)
class _ComparingSandbox(DirectContextSandbox):
    def create_instance(self, det: WorkflowInstanceDetails) -> WorkflowInstance:
        SANDBOXED_RUNS.append(det.defn.name or "")
        return _ComparingInstance(det, self.runner_class, self.restrictions)


def _all_in_the_sandbox() -> list[type]:
    """Every workflow, its sandboxed twin standing in where it runs outside the sandbox."""
    return [TWINS.get(workflow_defn(cls).name or "", cls) for cls in WORKFLOWS]


def workflow_defn(cls: type) -> _Definition:
    return _Definition.must_from_class(cls)


async def test_every_recorded_payload_gets_the_sdks_context():
    ANSWERS.clear()
    SANDBOXED_RUNS.clear()
    replayer = Replayer(
        workflows=_all_in_the_sandbox(),
        data_converter=pydantic_data_converter,
        workflow_runner=_ComparingSandbox(restrictions=SANDBOX.restrictions),
    )

    async def histories():  # type: ignore[no-untyped-def]
        for path in HISTORIES:
            yield WorkflowHistory.from_json(path.stem, path.read_text())

    results = await replayer.replay_workflows(histories(), raise_on_replay_failure=True)
    assert len(results.replay_failures) == 0
    kinds = {kind for kind, _, _ in ANSWERS}
    assert kinds == {"serialization", "external store"}, kinds
    contexts = {type(ours).__name__ for kind, ours, _ in ANSWERS if kind == "serialization"}
    assert {"WorkflowSerializationContext", "ActivitySerializationContext"} <= contexts, contexts
    mismatched = [(kind, ours, sdks) for kind, ours, sdks in ANSWERS if ours != sdks]
    assert mismatched == [], mismatched[:3]
    assert len(ANSWERS) > 5 * len(HISTORIES), "the replays encoded and decoded the histories' payloads"
    # Every recorded run replayed inside the sandbox, those of the workflows that run outside it too.
    assert len(SANDBOXED_RUNS) >= len(HISTORIES), SANDBOXED_RUNS
    assert set(TWINS) <= set(SANDBOXED_RUNS), SANDBOXED_RUNS


def test_every_workflow_outside_the_sandbox_has_a_sandboxed_twin():
    """A workflow that opts out of the sandbox keeps its code checked by the sandbox through a twin."""
    outside = {workflow_defn(cls).name: cls for cls in WORKFLOWS if not workflow_defn(cls).sandboxed}
    assert set(outside) == set(TWINS), (set(outside), set(TWINS))
    for name, cls in outside.items():
        twin = TWINS[name]
        assert issubclass(twin, cls) and workflow_defn(twin).sandboxed, name
        recorded = [path for path in HISTORIES if _workflow_type(path) == name]
        assert len(recorded) >= 3, f"{name}: too few recorded histories for its twin to replay"


def _workflow_type(path: Path) -> str:
    started = json.loads(path.read_text())["events"][0]
    return started["workflowExecutionStartedEventAttributes"]["workflowType"]["name"]


# The SDK methods switchboard.workflow_sandbox copies or bypasses, by the hash of their source as of
# temporalio 1.35. When an upgrade changes one, this fails: read the SDK's new version, carry what it
# added into workflow_sandbox.py (or drop the override), then record the new hash here.
COPIED_SDK_SOURCES = {
    "_Instance._run_code": (_Instance._run_code, "78055698bee1c0d3"),
    "_Instance.get_serialization_context": (_Instance.get_serialization_context, "b4331d145cc44758"),
    "_Instance.get_external_store_context": (_Instance.get_external_store_context, "66d3ceaa5a824e05"),
    "InSandbox.get_serialization_context": (InSandbox.get_serialization_context, "80a6c3c66d58539f"),
    "InSandbox.get_external_store_context": (InSandbox.get_external_store_context, "d204b2f479964c1d"),
}


@pytest.mark.parametrize("name", sorted(COPIED_SDK_SOURCES))
def test_the_sdk_code_the_runner_stands_in_for_has_not_changed(name):
    method, recorded = COPIED_SDK_SOURCES[name]
    assert hashlib.sha256(inspect.getsource(method).encode()).hexdigest()[:16] == recorded, (
        f"temporalio changed {name}: re-check switchboard/workflow_sandbox.py against it"
    )


def test_the_runner_refuses_another_inner_runner():
    with pytest.raises(ValueError, match="UnsandboxedWorkflowRunner"):
        DirectContextSandbox(runner_class=_ComparingSandbox)  # type: ignore[arg-type]


def test_a_code_string_is_compiled_once():
    code = "with __temporal_importer.applied():\n  __temporal_probe = 1\n"
    assert compiled(code) is compiled(code)
    assert compiled(code) is not compiled(code + "\n")
    assert compiled(code).co_filename == "<temporal-sandbox>"


@dataclass(frozen=True)
class _CountingSandbox(DirectContextSandbox):
    """The worker's runner, counting the sandboxed instances it creates (validation creates one)."""

    created: list[str] = field(default_factory=list, compare=False)

    def create_instance(self, det: WorkflowInstanceDetails) -> WorkflowInstance:
        self.created.append(det.defn.name or "")
        return super().create_instance(det)


def _worker(client, workflow: type, runner: DirectContextSandbox, **options: Any) -> Worker:  # type: ignore[no-untyped-def]
    """A worker built (not run) on a queue of its own: building it validates its workflows."""
    queue = f"validate-{uuid.uuid4().hex[:8]}"
    return Worker(client, task_queue=queue, workflows=[workflow], workflow_runner=runner, **options)


async def test_a_workflow_is_validated_once_per_runner(temporal_env):  # type: ignore[no-untyped-def]
    """A second worker on the same runner skips the validation; new failure types or a new runner do not."""
    runner = _CountingSandbox(restrictions=SANDBOX.restrictions)
    for _ in range(3):
        _worker(temporal_env.client, SandboxProbeWorkflow, runner)
    assert runner.created == ["SandboxProbe"]
    _worker(temporal_env.client, SandboxProbeWorkflow, runner, workflow_failure_exception_types=[ValueError])
    assert runner.created == ["SandboxProbe", "SandboxProbe"]
    fresh = _CountingSandbox(restrictions=SANDBOX.restrictions)
    _worker(temporal_env.client, SandboxProbeWorkflow, fresh)
    assert fresh.created == ["SandboxProbe"]


async def test_a_workflow_that_fails_validation_fails_every_worker(temporal_env):  # type: ignore[no-untyped-def]
    """Only a validation that passed is remembered: a refused module is refused again."""
    for _ in range(2):
        with pytest.raises(RuntimeError, match="SandboxBadModule") as refused:
            _worker(temporal_env.client, BadModuleWorkflow, SANDBOX)
        assert "datetime.datetime.now" in repr(refused.value.__cause__), refused.value.__cause__


@pytest.mark.parametrize("runner", [SANDBOX], ids=["worker-sandbox"])
async def test_the_sandbox_still_refuses_the_wall_clock(temporal_env, runner):  # type: ignore[no-untyped-def]
    queue = f"sandbox-probe-{uuid.uuid4().hex[:8]}"
    async with Worker(
        temporal_env.client, task_queue=queue, workflows=[SandboxProbeWorkflow], workflow_runner=runner
    ):
        with pytest.raises(WorkflowFailureError) as failure:
            await temporal_env.client.execute_workflow(
                SandboxProbeWorkflow.run, id=f"probe-{queue}", task_queue=queue
            )
    assert "datetime.datetime.now" in str(failure.value.cause), failure.value.cause


async def test_without_the_sandbox_the_probe_runs(temporal_env):  # type: ignore[no-untyped-def]
    """The probe's failure above is the sandbox's doing, not the probe's."""
    queue = f"sandbox-probe-{uuid.uuid4().hex[:8]}"
    async with Worker(
        temporal_env.client,
        task_queue=queue,
        workflows=[SandboxProbeWorkflow],
        workflow_runner=UnsandboxedWorkflowRunner(),
    ):
        stamp = await temporal_env.client.execute_workflow(
            SandboxProbeWorkflow.run, id=f"probe-{queue}", task_queue=queue
        )
    assert stamp[:4].isdigit()
