"""The API app with its lifespan running in the test's process, and who ran a workflow's tasks.

Tests of the API's eager-only worker (deliveries and sends it starts itself) need the app's lifespan,
which ``httpx.ASGITransport`` alone does not run, and they read which worker took each workflow task
from Temporal's own history.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from fastapi import FastAPI
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from switchboard.api.app import create_app
from switchboard.api.delivery_worker import DeliveryWorker
from switchboard.settings import Settings


@asynccontextmanager
async def running_api(settings: Settings) -> AsyncIterator[tuple[httpx.AsyncClient, FastAPI]]:
    """The API with its lifespan running, once its delivery worker (if any) is registered."""
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        deliveries: DeliveryWorker | None = app.state.delivery_worker
        if deliveries is not None:
            await asyncio.wait_for(deliveries.running.wait(), timeout=20)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://switchboard.test") as client:
            yield client, app


async def started_by(temporal: Client, workflow_id: str) -> list[str]:
    """The identities of the workers that took the run's workflow tasks, in order."""
    history = await temporal.get_workflow_handle(workflow_id).fetch_history()
    return [
        event.workflow_task_started_event_attributes.identity
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED
    ]
