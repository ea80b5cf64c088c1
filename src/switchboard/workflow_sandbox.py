"""The worker's workflow sandbox: Temporal's, minus two per-payload costs that buy it nothing.

Temporal's sandbox runs each workflow run in its own module namespace and enters it by
``exec`` of a small code string under its import hooks. It does so not only for each
activation but also each time the worker encodes or decodes one payload of that run: the
SDK asks the run for the payload's serialization context (which activity or child the
payload belongs to), and the sandbox forwards that question through ``exec`` too. A
profile of the worker under live sends put that forwarding at about a tenth of its event
loop (docs/decisions/0002-workflow-sandbox-cost.md), for a lookup in the run's own dictionaries that
imports nothing and calls nothing the sandbox restricts.

So this runner keeps every guarantee the sandbox gives workflow code (fresh module state
per run, restricted imports and calls, the same activation path) and changes three things:

- the serialization and external-store contexts are asked of the run's object directly,
  which is the very call the ``exec`` makes, without the import hooks around it;
- each code string the sandbox runs is compiled once per process, not on every ``exec``
  (the strings are the SDK's constants and the workflows' module names);
- a workflow class is validated once per runner, not at every worker's construction.

It subclasses a private class of the SDK (``_runner._Instance``), so
tests/workflows/test_workflow_sandbox.py checks that it answers exactly what the SDK's own
path answers, that a restricted call inside a workflow is still refused, and that the SDK
methods it copies or bypasses still have the source they had when this was written: an SDK
upgrade that changes them fails the suite rather than production.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, cast

import temporalio.workflow
from temporalio.converter import SerializationContext
from temporalio.converter._extstore import StorageDriverStoreContext
from temporalio.worker import UnsandboxedWorkflowRunner, WorkflowInstance, WorkflowInstanceDetails
from temporalio.worker._command_aware_visitor import CommandInfo
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner
from temporalio.worker.workflow_sandbox._runner import _Instance

# The sandbox's entry code strings, compiled once. A bounded set: a few SDK constants
# plus one import string per registered workflow class.
_COMPILED: dict[str, Any] = {}
_COMPILED_LOCK = threading.Lock()

IN_SANDBOX = "__temporal_in_sandbox"


def compiled(code: str) -> Any:
    """``code`` compiled for ``exec``, once per process."""
    found = _COMPILED.get(code)
    if found is None:
        with _COMPILED_LOCK:
            found = _COMPILED.setdefault(code, compile(code, "<temporal-sandbox>", "exec"))
    return found


class _DirectContextInstance(_Instance):
    """A sandboxed run whose payload contexts are read without re-entering the sandbox."""

    def _run_code(self, code: str, **extra_globals: Any) -> None:
        # The SDK's _run_code, with the compiled code object in place of the string.
        for key, value in extra_globals.items():
            self.globals_and_locals[key] = value
        try:
            temporalio.workflow.unsafe._set_in_sandbox(True)
            self._current_thread_id = threading.get_ident()
            exec(compiled(code), self.globals_and_locals, self.globals_and_locals)
        finally:
            temporalio.workflow.unsafe._set_in_sandbox(False)
            self._current_thread_id = None
            for key in extra_globals:
                self.globals_and_locals.pop(key, None)

    def _in_sandbox(self) -> Any:
        """The SDK's in-sandbox object, which the ``exec`` path forwards these questions to."""
        return cast(Any, self.globals_and_locals)[IN_SANDBOX]

    def get_serialization_context(self, command_info: CommandInfo | None) -> SerializationContext | None:
        return cast(SerializationContext | None, self._in_sandbox().get_serialization_context(command_info))

    def get_external_store_context(self, command_info: CommandInfo | None) -> StorageDriverStoreContext:
        return cast(StorageDriverStoreContext, self._in_sandbox().get_external_store_context(command_info))


@dataclass(frozen=True)
class DirectContextSandbox(SandboxedWorkflowRunner):
    """Temporal's sandboxed runner, creating runs that read payload contexts directly.

    Only with the SDK's own inner runner: its context lookups are plain reads of the run's state,
    which is what makes calling them outside the import hooks safe.
    """

    # The workflow classes (with the worker-level failure types) this runner has validated.
    _prepared: set[tuple[type, tuple[type[BaseException], ...]]] = field(
        default_factory=set, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        if self.runner_class is not UnsandboxedWorkflowRunner:
            raise ValueError(
                "DirectContextSandbox needs the SDK's UnsandboxedWorkflowRunner inside the sandbox"
            )

    def prepare_workflow(self, defn: temporalio.workflow._Definition) -> None:
        """Validate a workflow in the sandbox once per runner, not at every worker's construction.

        The SDK validates by importing the workflow's module into a fresh sandbox, tens of
        milliseconds of CPU per workflow class, and the answer depends only on the class, the
        restrictions and the failure types. A worker process builds one worker, so nothing
        changes there; a process that builds many (the test suite builds one per test) pays it once.
        """
        key = (defn.cls, tuple(self._worker_level_failure_exception_types))
        if key in self._prepared:
            return
        super().prepare_workflow(defn)
        # Two threads building workers at once may both validate: harmless, and the set stays right.
        self._prepared.add(key)

    def create_instance(self, det: WorkflowInstanceDetails) -> WorkflowInstance:
        return _DirectContextInstance(det, self.runner_class, self.restrictions)
