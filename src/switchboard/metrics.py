"""Prometheus metrics: the families every process counts into, and their exposition.

Each family is counted where its event happens, once (the one path of that step):
HTTP requests in the API's edge middleware, inbound items where they are applied,
send outcomes where a send's outcome is written, webhook attempts where an attempt
is recorded, agent runs, guardrails, model calls and tool calls where their steps
are stored. The API serves ``/metrics``; a worker process serves the same text on
its own port (``WORKER_METRICS_PORT``). Families that describe stored state
(queued sends per number, webhook endpoints by health) are read from the database
when ``/metrics`` is asked, by the API.

Labels stay bounded: route templates (never raw paths), message types, statuses,
kinds, providers and models, never a message, thread or tenant id.

Several API processes (``switchboard api --workers N``) share one set of values
through ``prometheus_client``'s multiprocess mode: ``PROMETHEUS_MULTIPROC_DIR``,
set by the CLI before the workers start, holds one file per process, and
``exposition()`` sums them.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
    start_http_server,
)

log = logging.getLogger("switchboard.metrics")

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
CONTENT_TYPE = CONTENT_TYPE_LATEST

# Seconds: from a loopback answer (milliseconds) to a slow upstream or model (a minute).
_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
# Time to `sent` includes queueing behind a number's throughput and upstream outages.
_SEND_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 3600.0)

HTTP_REQUESTS = Counter(
    "switchboard_http_requests",
    "HTTP requests answered by the API, by route template, method, status and key mode",
    ["route", "method", "status", "key_mode"],
)
HTTP_LATENCY = Histogram(
    "switchboard_http_request_duration_seconds",
    "Time to answer an HTTP request, by route template and method",
    ["route", "method"],
    buckets=_LATENCY_BUCKETS,
)
SENDS = Counter(
    "switchboard_sends",
    "Live sends by message type and the status their outcome left them in (sent, failed, failed_transient)",
    ["type", "status"],
)
SEND_TO_SENT = Histogram(
    "switchboard_send_to_sent_seconds",
    "Time from a live send's request to the upstream's acceptance, by message type",
    ["type"],
    buckets=_SEND_BUCKETS,
)
REFUSALS = Counter(
    "switchboard_refusals",
    "Requests refused for load: rate limits, a number's full send queue (429), by code",
    ["code"],
)
INBOUND_ITEMS = Counter(
    "switchboard_inbound_items",
    "Items of channel webhooks, by kind and what applying them did (applied, duplicate, ignored, ...)",
    ["kind", "result"],
)
INBOUND_TO_STORED = Histogram(
    "switchboard_inbound_to_stored_seconds",
    "Time from the channel's POST reaching the service to a received message being stored",
    buckets=_LATENCY_BUCKETS,
)
WEBHOOK_ATTEMPTS = Counter(
    "switchboard_webhook_attempts",
    "Webhook delivery attempts by outcome (delivered, failed) and attempt number (1, 2, 3-5, 6+)",
    ["outcome", "attempt"],
)
WEBHOOK_LATENCY = Histogram(
    "switchboard_webhook_attempt_duration_seconds",
    "Time a tenant's endpoint took to answer a delivery attempt, by outcome",
    ["outcome"],
    buckets=_LATENCY_BUCKETS,
)
AGENT_RUNS = Counter(
    "switchboard_agent_runs",
    "Agent runs by how they ended (completed, escalated, failed)",
    ["outcome"],
)
GUARDRAIL_TRIPS = Counter(
    "switchboard_guardrail_trips",
    "Guardrails that stopped or handed off a conversation, by guardrail and reason",
    ["guardrail", "reason"],
)
MODEL_TOKENS = Counter(
    "switchboard_model_tokens",
    "Model tokens by provider, model and kind (input, output, cache_read, cache_write)",
    ["provider", "model", "kind"],
)
MODEL_COST = Counter(
    "switchboard_model_cost_usd",
    "Model spend in US dollars by provider and model",
    ["provider", "model"],
)
TOOL_CALLS = Counter(
    "switchboard_tool_calls",
    "Agent tool calls by class (ok, negocio, semantic, infra)",
    ["class"],
)
TOOL_LATENCY = Histogram(
    "switchboard_tool_call_duration_seconds",
    "Time a tenant's tool endpoint took to answer, by class",
    ["class"],
    buckets=_LATENCY_BUCKETS,
)

LOG_MESSAGES = Counter(
    "switchboard_log_messages",
    "Lines logged at warning level or above, by level (warning, error, critical): errors to alert on",
    ["level"],
)


class _LogCounter(logging.Handler):
    """Counts the warnings and errors this process logs (it writes nothing)."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)

    def emit(self, record: logging.LogRecord) -> None:
        LOG_MESSAGES.labels(record.levelname.lower()).inc()


def count_log_messages() -> None:
    """Count this process's warnings and errors from now on (once per process, whoever asks)."""
    root = logging.getLogger()
    if not any(isinstance(handler, _LogCounter) for handler in root.handlers):
        root.addHandler(_LogCounter())


def attempt_label(attempt: int) -> str:
    """A delivery attempt's number as a bounded label: 1, 2, 3-5 or 6+."""
    if attempt <= 2:
        return str(max(attempt, 1))
    return "3-5" if attempt <= 5 else "6+"


def key_mode(api_key: str | None, *, admin: bool) -> str:
    """The kind of credential a request carried, read from its shape (no lookup): live, sandbox, admin, none."""
    if api_key:
        if api_key.startswith("gsk_live_"):
            return "live"
        if api_key.startswith("gsk_test_"):
            return "sandbox"
        return "invalid"
    return "admin" if admin else "none"


def exposition() -> bytes:
    """This process's metrics as Prometheus text, or every API process's summed in multiprocess mode."""
    if os.environ.get(MULTIPROC_ENV):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry)
    return generate_latest(REGISTRY)


def count_model_call(provider: str, model: str, *, cost_usd: float, tokens: dict[str, int]) -> None:
    """One recorded model call: its tokens by kind and its cost."""
    for kind, count in tokens.items():
        if count:
            MODEL_TOKENS.labels(provider, model, kind).inc(count)
    MODEL_COST.labels(provider, model).inc(cost_usd)


def count_run(outcome: str, steps: Iterable[Mapping[str, Any]]) -> None:
    """One ended agent run: its outcome, its tool calls by class, and the guardrails that did not pass."""
    AGENT_RUNS.labels(outcome).inc()
    for step in steps:
        kind, status = step.get("kind"), step.get("status")
        if kind == "tool_call" and status:
            TOOL_CALLS.labels(status).inc()
            if step.get("latency_ms") is not None:
                TOOL_LATENCY.labels(status).observe(float(step["latency_ms"]) / 1000)
        elif kind == "guardrail" and status and status != "pass":
            GUARDRAIL_TRIPS.labels(step.get("name") or "unknown", status).inc()


def count_send(message_type: str, status: str, *, seconds_to_sent: float | None) -> None:
    """One live send's recorded outcome, and how long it took to be sent."""
    SENDS.labels(message_type, status).inc()
    if seconds_to_sent is not None:
        SEND_TO_SENT.labels(message_type).observe(max(seconds_to_sent, 0.0))


def count_inbound_item(kind: str, result: str, *, seconds_since_received: float | None) -> None:
    """One applied channel item; a received message newly stored is also timed from the channel's POST."""
    INBOUND_ITEMS.labels(kind, result).inc()
    if kind == "message" and result == "applied" and seconds_since_received is not None:
        INBOUND_TO_STORED.observe(max(seconds_since_received, 0.0))


def count_webhook_attempt(*, success: bool, attempt: int, latency_ms: int | None) -> None:
    """One recorded delivery attempt: delivered (2xx) or failed, by attempt number, and its latency."""
    outcome = "delivered" if success else "failed"
    WEBHOOK_ATTEMPTS.labels(outcome, attempt_label(attempt)).inc()
    if latency_ms is not None:
        WEBHOOK_LATENCY.labels(outcome).observe(latency_ms / 1000)


class Listener(Protocol):
    """A running metrics listener (prometheus_client's WSGI server)."""

    def shutdown(self) -> None: ...


def serve(host: str, port: int) -> Listener | None:
    """Serve this process's metrics on ``host:port`` (a worker's listener); None when off (port 0) or the
    port is taken: metrics are not worth a worker that does not run."""
    if port == 0:
        return None
    try:
        server, _thread = start_http_server(port, addr=host)
    except OSError as error:
        log.warning("metrics listener not started", extra={"host": host, "port": port, "error": str(error)})
        return None
    log.info("metrics listener started", extra={"host": host, "port": port})
    return server
