"""/metrics counts what one customer's conversation did, family by family.

One inbound message reaches a bound agent, which calls a tenant tool and answers (a live send through
the fake upstream on loopback); a second message is an urgency the guardrail hands to a human; a webhook
receives the events. ``GET /metrics`` is read before and after, parsed with prometheus_client's own
parser, and every family must have moved, the Temporal SDK's own included. The worker's listener serves
the same families (switchboard/metrics.py ``serve``).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from temporalio.worker import Worker

from switchboard import metrics
from switchboard.settings import Settings
from tests.e2e.agents.support import (
    ToolServer,
    eventually,
    finished_runs,
    process_worker,
    say,
    subscribe_and_deploy_slots_agent,
    text_envelope,
)
from tests.fakes.scripting import FakeProvider
from tests.support.http_server import free_port, serve_app
from tests.support.tenants import TenantFixture
from tests.workflows.test_webhook_support import Receiver

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def parse(text: str) -> Samples:
    """Every sample of a Prometheus text, by name and labels."""
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def total(samples: Samples, name: str, match: Callable[[dict[str, str]], bool] = lambda _: True) -> float:
    return sum(value for (n, labels), value in samples.items() if n == name and match(dict(labels)))


async def scrape(client: httpx.AsyncClient) -> Samples:
    response = await client.get("/metrics")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return parse(response.text)


DASHBOARD = Path(__file__).resolve().parents[3] / "deploy" / "grafana" / "dashboards" / "switchboard.json"
_SUFFIXES = ("_total", "_bucket", "_count", "_sum", "_created")


@pytest.fixture
async def worker(settings: Settings) -> AsyncIterator[Worker]:
    """The worker as its process builds it, on the process's Temporal runtime (the SDK's metrics)."""
    async with process_worker(settings) as running:
        yield running


def dashboard_metrics() -> set[str]:
    """Every metric name the Grafana dashboard's queries read."""
    dashboard = json.loads(DASHBOARD.read_text())
    exprs = [t["expr"] for panel in dashboard["panels"] for t in panel.get("targets", [])]
    assert exprs
    return {name for expr in exprs for name in re.findall(r"\b(?:switchboard|temporal)_[a-z0-9_]+", expr)}


def exported(text: str) -> set[str]:
    """The names a Prometheus text declares: each sample's, and each family's with its sample suffixes."""
    names: set[str] = set()
    for family in text_string_to_metric_families(text):
        names.add(family.name)
        names.update(family.name + suffix for suffix in _SUFFIXES)
        names.update(sample.name for sample in family.samples)
    return names


async def test_one_conversation_moves_every_family(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    tools: ToolServer,
    tools_url: str,
) -> None:
    endpoint = Receiver()
    async with serve_app(endpoint.app()) as base_url:
        await subscribe_and_deploy_slots_agent(
            app_client,
            bound_tenant,
            receiver_url=f"{base_url}/hook",
            fake=fakes["anthropic"],
            tools=tools,
            tools_url=tools_url,
            replies=["Hay turno a las 10:00."],
        )
        before = await scrape(app_client)

        await say(app_client, text_envelope("¿hay turno el 1 de diciembre?", wamid="wamid.metrics01"))
        await finished_runs(app_client, bound_tenant, count=1)
        await say(app_client, text_envelope("mi hijo no puede respirar, se está poniendo morado"))
        await finished_runs(app_client, bound_tenant, count=2)

        async def delivered() -> bool:
            return len(endpoint.at("/hook")) >= 4

        await eventually(delivered)
        deadline = time.monotonic() + 20
        while True:
            after = await scrape(app_client)
            moved = total(after, "switchboard_sends_total", lambda ls: ls["status"] == "sent") > total(
                before, "switchboard_sends_total", lambda ls: ls["status"] == "sent"
            )
            if moved or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.2)

    def grew(name: str, match: Callable[[dict[str, str]], bool] = lambda _: True) -> float:
        return total(after, name, match) - total(before, name, match)

    assert (
        grew(
            "switchboard_http_requests_total",
            lambda ls: (
                ls == {"route": "/channel/webhook", "method": "POST", "status": "200", "key_mode": "none"}
            ),
        )
        == 2
    )
    assert (
        grew(
            "switchboard_http_requests_total",
            lambda ls: (
                ls == {"route": "/v1/agent-runs", "method": "GET", "status": "200", "key_mode": "live"}
            ),
        )
        >= 2
    )
    assert (
        grew("switchboard_http_request_duration_seconds_count", lambda ls: ls["route"] == "/v1/agent-runs")
        >= 2
    )
    assert (
        grew("switchboard_inbound_items_total", lambda ls: ls == {"kind": "message", "result": "applied"})
        == 2
    )
    assert grew("switchboard_inbound_to_stored_seconds_count") == 2
    assert grew("switchboard_sends_total", lambda ls: ls == {"type": "text", "status": "sent"}) >= 1
    assert grew("switchboard_send_to_sent_seconds_count", lambda ls: ls["type"] == "text") >= 1
    assert (
        grew("switchboard_webhook_attempts_total", lambda ls: ls == {"outcome": "delivered", "attempt": "1"})
        >= 4
    )
    assert (
        grew("switchboard_webhook_attempt_duration_seconds_count", lambda ls: ls["outcome"] == "delivered")
        >= 4
    )
    assert grew("switchboard_agent_runs_total", lambda ls: ls["outcome"] == "completed") == 1
    assert grew("switchboard_agent_runs_total", lambda ls: ls["outcome"] == "escalated") == 1
    assert (
        grew(
            "switchboard_guardrail_trips_total",
            lambda ls: ls == {"guardrail": "urgency", "reason": "handoff"},
        )
        == 1
    )
    assert grew("switchboard_tool_calls_total", lambda ls: ls["class"] == "ok") == 1
    assert grew("switchboard_tool_call_duration_seconds_count", lambda ls: ls["class"] == "ok") == 1
    model = {"provider": "anthropic", "model": "claude-haiku-4-5"}
    assert grew("switchboard_model_tokens_total", lambda ls: {k: ls[k] for k in model} == model) > 0
    assert grew("switchboard_model_cost_usd_total", lambda ls: ls == model) > 0
    assert total(after, "switchboard_webhook_endpoints", lambda ls: ls["state"] == "healthy") >= 1
    assert ("switchboard_send_queue_depth", ()) not in after, "labelled by number only; none is queued now"
    # The Temporal SDK's own metrics come through the same endpoint (switchboard/temporal_metrics.py):
    # the API's client started the inbound and send workflows.
    starts = {"operation": "StartWorkflowExecution"}
    assert grew("temporal_request_total", lambda ls: ls.items() >= starts.items()) >= 1
    assert grew("temporal_request_latency_seconds_count", lambda ls: ls.items() >= starts.items()) >= 1
    # The SDK's worker-side families too, from the worker built on the process's runtime.
    assert grew("temporal_activity_execution_latency_seconds_count") >= 1
    assert total(after, "temporal_worker_task_slots_available") > 0
    # Every metric the Grafana dashboard (deploy/) queries is one this service exports.
    text = (await app_client.get("/metrics")).text
    missing = dashboard_metrics() - exported(text)
    assert not missing, f"the dashboard queries metrics nobody exports: {sorted(missing)}"
    labels = {key for (_, pairs) in after for key, _ in pairs}
    assert not labels & {"tenant_id", "message_id", "thread_id", "conversation_id"}, "bounded labels only"


async def test_the_worker_listener_serves_the_same_families() -> None:
    port = free_port()
    listener = metrics.serve("127.0.0.1", port)
    assert listener is not None
    try:
        async with httpx.AsyncClient() as client:
            response = await client.get(f"http://127.0.0.1:{port}/metrics")
        assert response.status_code == 200
        names = {family.name for family in text_string_to_metric_families(response.text)}
        expected = {"switchboard_sends", "switchboard_agent_runs", "switchboard_webhook_attempts"}
        assert expected <= names, names
        assert metrics.serve("127.0.0.1", port) is None, "a taken port is logged, and the worker runs on"
    finally:
        listener.shutdown()
    assert metrics.serve("127.0.0.1", 0) is None, "port 0 turns the listener off"


def test_bounded_labels_for_attempts_and_keys() -> None:
    assert [metrics.attempt_label(n) for n in (0, 1, 2, 3, 5, 6, 40)] == [
        "1",
        "1",
        "2",
        "3-5",
        "3-5",
        "6+",
        "6+",
    ]
    assert metrics.key_mode("gsk_live_abc", admin=False) == "live"
    assert metrics.key_mode("gsk_test_abc", admin=False) == "sandbox"
    assert metrics.key_mode("nonsense", admin=False) == "invalid"
    assert metrics.key_mode(None, admin=True) == "admin"
    assert metrics.key_mode(None, admin=False) == "none"
