"""The Temporal client every process uses (API, worker, CLI), with our data converter and the process's
runtime (whose SDK metrics our Prometheus endpoints serve, temporal_metrics.py)."""

from __future__ import annotations

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from switchboard import tracing
from switchboard.settings import Settings
from switchboard.temporal_metrics import temporal_runtime


async def connect_temporal(settings: Settings, *, lazy: bool = True, identity: str | None = None) -> Client:
    """A client with the pydantic data converter our payloads use; lazy so a process starts before Temporal.

    ``identity`` replaces the SDK's ``pid@host`` (Temporal records it on the calls the client makes).
    """
    return await Client.connect(
        settings.temporal_address,
        namespace=settings.temporal_namespace,
        data_converter=pydantic_data_converter,
        lazy=lazy,
        identity=identity,
        runtime=temporal_runtime(),
        # Tracing's interceptor when it is on; workers built on this client inherit it.
        interceptors=tracing.temporal_interceptors(),
    )
