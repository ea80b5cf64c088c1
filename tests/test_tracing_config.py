"""Tracing is off unless configured, and on it exports over OTLP/HTTP (switchboard/tracing.py).

The collector is a loopback HTTP server that decodes what it receives with OpenTelemetry's own protobuf
messages, as a real collector would.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from switchboard import tracing
from switchboard.api.app import create_app
from tests.conftest import make_settings
from tests.support.http_server import serve_app


@pytest.fixture
def tracing_reset() -> Iterator[None]:
    yield
    tracing.use(None)


def test_off_by_default_nothing_is_installed(tracing_reset: None):
    settings = make_settings("sqlite+aiosqlite:///unused.db", "127.0.0.1:1")
    tracing.configure(settings, service="switchboard-api")
    assert not tracing.enabled()
    assert tracing.temporal_interceptors() == []
    assert tracing.outgoing_headers() == {}
    with tracing.span("model call") as span:
        assert span is None
    app = create_app(settings)
    assert not getattr(app, "_is_instrumented_by_opentelemetry", False)


async def test_configured_spans_go_to_the_collector_over_otlp_http(tracing_reset: None):
    received: list[ExportTraceServiceRequest] = []

    async def traces(request: Request) -> Response:
        assert request.headers["content-type"] == "application/x-protobuf"
        message = ExportTraceServiceRequest()
        message.ParseFromString(await request.body())
        received.append(message)
        return Response(status_code=200)

    collector = Starlette(routes=[Route("/v1/traces", traces, methods=["POST"])])
    async with serve_app(collector) as base_url:
        settings = make_settings(
            "sqlite+aiosqlite:///unused.db",
            "127.0.0.1:1",
            otel_exporter_otlp_endpoint=base_url + "/",
            otel_service_name="switchboard-api-eu",
        )
        tracing.configure(settings, service="switchboard-api")
        assert tracing.enabled() and len(tracing.temporal_interceptors()) == 1
        with tracing.span("webhook POST", {"url.full": "https://tenant.example/hook"}):
            (traceparent,) = tracing.outgoing_headers().values()
        app = create_app(settings)
        assert app._is_instrumented_by_opentelemetry  # type: ignore[attr-defined]
        # The batch processor exports from its own thread; shutting down flushes it, as a stopping process does.
        await asyncio.to_thread(tracing.use, None)
    (export,) = received
    (resource_spans,) = export.resource_spans
    service = {a.key: a.value.string_value for a in resource_spans.resource.attributes}["service.name"]
    assert service == "switchboard-api-eu"
    (span,) = [s for scope in resource_spans.scope_spans for s in scope.spans]
    assert span.name == "webhook POST"
    assert traceparent.startswith(f"00-{span.trace_id.hex()}-{span.span_id.hex()}-")
