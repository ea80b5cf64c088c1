"""Telling a thread's workflow about a new turn: signal-with-start on ``agent-thread-{thread_id}``."""

from __future__ import annotations

from datetime import timedelta

from temporalio.client import Client
from temporalio.common import SearchAttributeKey, SearchAttributePair, TypedSearchAttributes

from switchboard.activities.agents.payloads import (
    SEARCH_ATTRIBUTE_TENANT,
    SEARCH_ATTRIBUTE_THREAD,
    THREAD_WORKFLOW,
    TURN_SIGNAL,
    ThreadInput,
    thread_workflow_id,
)

TENANT_KEY = SearchAttributeKey.for_keyword(SEARCH_ATTRIBUTE_TENANT)
THREAD_KEY = SearchAttributeKey.for_keyword(SEARCH_ATTRIBUTE_THREAD)
START_TIMEOUT = timedelta(seconds=5)


def search_attributes(tenant_id: str, thread_id: str) -> TypedSearchAttributes:
    """Tenant and thread, so an operator finds every workflow of a thread in the Temporal UI."""
    return TypedSearchAttributes(
        [SearchAttributePair(TENANT_KEY, tenant_id), SearchAttributePair(THREAD_KEY, thread_id)]
    )


async def signal_turn(
    client: Client,
    *,
    tenant_id: str,
    thread_id: str,
    message_id: str,
    task_queue: str,
    with_search_attributes: bool,
    debounce_seconds: float,
    idle_seconds: float,
) -> None:
    """Start the thread's workflow if it is not running, and hand it the turn (one RPC)."""
    await client.start_workflow(
        THREAD_WORKFLOW,
        ThreadInput(
            thread_id=thread_id,
            tenant_id=tenant_id,
            search_attributes=with_search_attributes,
            debounce_seconds=debounce_seconds,
            idle_seconds=idle_seconds,
        ),
        id=thread_workflow_id(thread_id),
        task_queue=task_queue,
        start_signal=TURN_SIGNAL,
        start_signal_args=[message_id],
        search_attributes=search_attributes(tenant_id, thread_id) if with_search_attributes else None,
        rpc_timeout=START_TIMEOUT,
    )
