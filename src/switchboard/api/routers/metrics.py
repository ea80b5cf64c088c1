"""GET /metrics: Prometheus text for operators (no key: expose it on the internal network only)."""

from __future__ import annotations

from collections.abc import Iterator

from fastapi import APIRouter
from fastapi.responses import Response
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from switchboard import metrics
from switchboard.api.deps import State
from switchboard.store.observed import queued_sends_by_phone, webhooks_by_state

router = APIRouter(tags=["health"])


class _Stored(Collector):
    """Gauges read from the database for this scrape (the same in every API process)."""

    def __init__(self, queued: dict[str, int], webhooks: dict[str, int]) -> None:
        self._queued, self._webhooks = queued, webhooks

    def collect(self) -> Iterator[GaugeMetricFamily]:
        queued = GaugeMetricFamily(
            "switchboard_send_queue_depth",
            "Live sends queued behind each business number's throughput",
            labels=["phone_number_id"],
        )
        for phone, count in sorted(self._queued.items()):
            queued.add_metric([phone], count)
        yield queued
        webhooks = GaugeMetricFamily(
            "switchboard_webhook_endpoints",
            "Webhook endpoints by state (their last health evaluation, disabled, auto_disabled)",
            labels=["state"],
        )
        for state, count in sorted(self._webhooks.items()):
            webhooks.add_metric([state], count)
        yield webhooks


@router.get(
    "/metrics",
    response_class=Response,
    responses={
        200: {"content": {"text/plain": {"schema": {"type": "string"}}}, "description": "Prometheus text"}
    },
)
async def prometheus_metrics(state: State) -> Response:
    """Every family this service exports, counted by every API process, and the stored state of this moment."""
    async with state.sessions() as session:
        queued = await queued_sends_by_phone(session)
        webhooks = await webhooks_by_state(session)
    stored = CollectorRegistry(auto_describe=False)
    stored.register(_Stored(queued, webhooks))
    return Response(metrics.exposition() + generate_latest(stored), media_type=metrics.CONTENT_TYPE)
