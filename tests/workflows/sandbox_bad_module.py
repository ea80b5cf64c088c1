"""A workflow whose module reads the wall clock as it is imported: the sandbox's validation refuses it.

Kept in its own small module because validation imports the workflow's whole module into the sandbox.
"""

from __future__ import annotations

import datetime

from temporalio import workflow

IMPORTED_AT = datetime.datetime.now()


@workflow.defn(name="SandboxBadModule")
class BadModuleWorkflow:
    """Never runs: no worker that validates it starts."""

    @workflow.run
    async def run(self) -> str:
        return IMPORTED_AT.isoformat()
