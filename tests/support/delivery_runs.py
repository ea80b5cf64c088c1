"""DeliverWebhook runs as the tests read them, and the outbox sweeper's pass run on demand.

A delivery whose first attempt the API makes has no run until that POST is over (and one a crash left
behind none until the sweeper starts it), so a test waits for the run to exist before reading it.
"""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from typing import Any

from temporalio.client import Client, WorkflowHistory
from temporalio.service import RPCError, RPCStatusCode

from switchboard.activities.webhooks.config import WebhookConfig
from switchboard.activities.webhooks.dispatching import WebhookDispatchActivities
from switchboard.activities.webhooks.types import SweepResult
from switchboard.settings import Settings
from switchboard.store.database import create_engine
from switchboard.worker import build_deps, close_deps


async def run_history(temporal: Client, workflow_id: str, *, within: float = 30) -> WorkflowHistory:
    """The run's history, once the run exists."""
    async with asyncio.timeout(within):
        while True:
            try:
                return await temporal.get_workflow_handle(workflow_id).fetch_history()
            except RPCError as error:
                if error.status != RPCStatusCode.NOT_FOUND:
                    raise
                await asyncio.sleep(0.05)


async def run_result(temporal: Client, workflow_id: str, *, within: float = 30) -> Any:
    """What the run ended with, once it exists and has ended."""
    await run_history(temporal, workflow_id, within=within)
    return await asyncio.wait_for(temporal.get_workflow_handle(workflow_id).result(), timeout=within)


def run_input(history: WorkflowHistory) -> dict[str, Any]:
    """The run's input, as JSON (``DeliveryInput``)."""
    started = history.events[0].workflow_execution_started_event_attributes
    return dict(json.loads(started.input.payloads[0].data))


async def sweep_outbox_now(temporal: Client, settings: Settings) -> SweepResult:
    """The outbox sweeper's pass (its schedule ticks every 30 s), with the age it waits for set aside."""
    engine = create_engine(settings.database_url)
    deps = build_deps(temporal, settings, engine)
    try:
        return await WebhookDispatchActivities(deps, WebhookConfig(sweep_min_age=timedelta(0))).sweep_outbox()
    finally:
        await close_deps(deps)
        await engine.dispose()
