"""A workflow that reads the wall clock, which the sandbox forbids: the sandbox test's probe.

Kept in its own small module because the sandbox re-imports a workflow's module per run.
"""

from __future__ import annotations

import datetime

from temporalio import workflow
from temporalio.worker.workflow_sandbox import RestrictedWorkflowAccessError


@workflow.defn(name="SandboxProbe", failure_exception_types=[RestrictedWorkflowAccessError])
class SandboxProbeWorkflow:
    """Returns the wall clock's time, if the sandbox lets it."""

    @workflow.run
    async def run(self) -> str:
        return datetime.datetime.now().isoformat()
