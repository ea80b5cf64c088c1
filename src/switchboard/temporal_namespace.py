"""A worker's start-up check of its Temporal namespace: the service's search attributes are there.

On a development server (SQLite persistence: `temporal server start-dev`, `switchboard dev`) missing
attributes are registered; on any other server the worker refuses to start with the commands that
register them (``domain/search_attributes.py``), unless ``TEMPORAL_SEARCH_ATTRIBUTES=false``.
"""

from __future__ import annotations

import asyncio
import logging

from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest, ListSearchAttributesRequest
from temporalio.api.workflowservice.v1 import GetClusterInfoRequest
from temporalio.client import Client

from switchboard.domain import search_attributes
from switchboard.settings import Settings

log = logging.getLogger("switchboard.worker")

# How long a registration may take to show in the namespace's list.
REGISTERED_WITHIN_SECONDS = 10.0


class NamespaceNotReady(RuntimeError):
    """The namespace lacks what the service needs; the message says how to fix it."""


def _type_name(value: int) -> str:
    """``INDEXED_VALUE_TYPE_KEYWORD`` -> ``Keyword``."""
    return (
        IndexedValueType.Name(IndexedValueType.ValueType(value)).removeprefix("INDEXED_VALUE_TYPE_").title()
    )


async def _existing(client: Client, namespace: str) -> dict[str, str]:
    listed = await client.operator_service.list_search_attributes(
        ListSearchAttributesRequest(namespace=namespace)
    )
    return {name: _type_name(kind) for name, kind in listed.custom_attributes.items()}


async def is_development_server(client: Client) -> bool:
    """Whether the server keeps its data in SQLite, as only the development server does."""
    info = await client.workflow_service.get_cluster_info(GetClusterInfoRequest())
    return info.persistence_store.lower() == "sqlite"


async def ensure_search_attributes(client: Client, settings: Settings) -> list[str]:
    """Register the missing search attributes on a development server; the names registered.

    Raises NamespaceNotReady anywhere else (or when one exists with another type), with the commands.
    """
    if not settings.temporal_search_attributes:
        return []
    namespace = settings.temporal_namespace
    existing = await _existing(client, namespace)
    absent = search_attributes.missing(existing)
    if not absent:
        return []
    mistyped = [name for name in absent if name in existing]
    if mistyped or not await is_development_server(client):
        raise NamespaceNotReady(
            search_attributes.refusal(
                absent, namespace=namespace, address=settings.temporal_address, existing=existing
            )
        )
    await client.operator_service.add_search_attributes(
        AddSearchAttributesRequest(
            namespace=namespace,
            search_attributes={
                name: IndexedValueType.Value(f"INDEXED_VALUE_TYPE_{search_attributes.REQUIRED[name].upper()}")
                for name in absent
            },
        )
    )
    deadline = asyncio.get_running_loop().time() + REGISTERED_WITHIN_SECONDS
    while search_attributes.missing(await _existing(client, namespace)):
        if asyncio.get_running_loop().time() > deadline:
            raise NamespaceNotReady(
                f"registered {', '.join(absent)} on {namespace!r}, but they did not appear"
            )
        await asyncio.sleep(0.2)
    log.info("search attributes registered on the development server", extra={"names": absent})
    return absent
