"""Traces with OpenTelemetry: one trace from the channel's webhook to the tenant's.

Off unless ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set: then each process sends its
spans over OTLP/HTTP in batches, as ``OTEL_SERVICE_NAME`` (``switchboard-api`` or
``switchboard-worker`` by default). Off, nothing is installed: no middleware, no
interceptor, no header; the calls below cost a check of one module variable.

On, a trace follows the work across processes:

- the API's requests are server spans (OpenTelemetry's FastAPI instrumentation);
- Temporal's interceptor (``temporalio.contrib.opentelemetry``) on every client
  and the workers built on them carries the context into each workflow and
  activity started within it, so a channel webhook's trace holds the inbound
  workflow, the deliveries of its events, the agent thread it signals and the
  sends that result;
- an agent thread is long-lived, so its runs would otherwise belong to the trace
  of the message that first started it: ``_TurnTracingWorkflowInterceptor``
  starts each run under the trace of the turn that asked for it;
- our own spans wrap the calls that leave the service (``span``): model calls,
  tool calls, upstream channel calls and webhook posts; tool requests and
  webhook posts carry the W3C ``traceparent`` (``outgoing_headers``), so a
  tenant's service can continue the trace.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import opentelemetry.context
from opentelemetry import propagate, trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanProcessor
from opentelemetry.util.types import AttributeValue

# The interceptor and its workflow side are the SDK's; the outbound class is private to it and wrapped
# here (tests/e2e/agents/test_tracing.py checks the chain it builds: an SDK change that breaks it fails there).
from temporalio.contrib.opentelemetry import TracingInterceptor, TracingWorkflowInboundInterceptor
from temporalio.contrib.opentelemetry._interceptor import _TracingWorkflowOutboundInterceptor
from temporalio.worker import (
    HandleSignalInput,
    StartChildWorkflowInput,
    WorkflowInboundInterceptor,
    WorkflowInterceptorClassInput,
    WorkflowOutboundInterceptor,
)
from temporalio.workflow import ChildWorkflowHandle

from switchboard.domain.workflow_names import RUN_WORKFLOW, TURN_SIGNAL

if TYPE_CHECKING:
    from fastapi import FastAPI

    from switchboard.settings import Settings

_provider: TracerProvider | None = None


def configure(settings: Settings, *, service: str) -> None:
    """Send this process's spans to ``OTEL_EXPORTER_OTLP_ENDPOINT``, when it is set."""
    endpoint = settings.otel_exporter_otlp_endpoint
    if not endpoint:
        return
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    exporter = OTLPSpanExporter(endpoint=endpoint.rstrip("/") + "/v1/traces")
    use(BatchSpanProcessor(exporter), service=settings.otel_service_name or service)


def use(processor: SpanProcessor | None, *, service: str = "switchboard") -> None:
    """Trace through ``processor`` from now on (None: stop tracing). Clients, apps and workers built
    afterwards are instrumented; those built before keep what they had."""
    global _provider
    if _provider is not None:
        _provider.shutdown()
    if processor is None:
        _provider = None
        return
    _provider = TracerProvider(resource=Resource.create({"service.name": service}))
    _provider.add_span_processor(processor)


def enabled() -> bool:
    return _provider is not None


def temporal_interceptors() -> list[TracingInterceptor]:
    """The interceptors a Temporal client gets (its workers inherit them); none when tracing is off."""
    if _provider is None:
        return []
    return [_SwitchboardTracingInterceptor(tracer=_provider.get_tracer("temporalio"))]


def instrument(app: FastAPI) -> None:
    """Server spans for the API's requests, when tracing is on."""
    if _provider is None:
        return
    from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor

    # /metrics and /healthz are scraped every few seconds: spans for them would drown the rest. One
    # span a request: not one more for each ASGI message it reads and writes.
    FastAPIInstrumentor.instrument_app(
        app,
        tracer_provider=_provider,
        excluded_urls="/metrics,/healthz",
        exclude_spans=["receive", "send"],
    )


@contextmanager
def span(name: str, attributes: Mapping[str, AttributeValue] | None = None) -> Iterator[trace.Span | None]:
    """A client span around a call that leaves the service (None when tracing is off).

    An exception marks the span failed with its type only: its text may quote a key or a customer's
    data, and spans leave the service.
    """
    if _provider is None:
        yield None
        return
    tracer = _provider.get_tracer("switchboard")
    with tracer.start_as_current_span(
        name,
        kind=trace.SpanKind.CLIENT,
        attributes=attributes,
        record_exception=False,
        set_status_on_exception=False,
    ) as current:
        try:
            yield current
        except BaseException as error:
            current.set_status(trace.StatusCode.ERROR, type(error).__name__)
            raise


def outgoing_headers() -> dict[str, str]:
    """The W3C ``traceparent`` (and ``tracestate``) of the current span, for a request we make."""
    if _provider is None:
        return {}
    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    return carrier


class _SwitchboardTracingInterceptor(TracingInterceptor):
    """The SDK's interceptor, with agent runs started under their turn's trace."""

    def workflow_interceptor_class(
        self, input: WorkflowInterceptorClassInput
    ) -> type[TracingWorkflowInboundInterceptor]:
        super().workflow_interceptor_class(input)  # registers the span extern the workflow side calls
        return _TurnTracingWorkflowInterceptor


class _TurnTracingWorkflowInterceptor(TracingWorkflowInboundInterceptor):
    """Keeps the trace context each turn signal arrived with; the next run starts under the newest.

    The SDK's workflow side records a signal as a span of the workflow's own trace with a link to the
    sender's: right for most signals, wrong for an agent thread, which lives across many turns. A run
    answers every turn that arrived since the last one (a burst, or turns a muted thread left): it goes
    in the trace of the latest, the message that made it run.
    """

    def __init__(self, next: WorkflowInboundInterceptor) -> None:
        super().__init__(next)
        self.turn_contexts: list[dict[str, str]] = []

    def init(self, outbound: WorkflowOutboundInterceptor) -> None:
        # The SDK's outbound tracing, inside ours: ours sets the context its spans are made under.
        tracing = _TracingWorkflowOutboundInterceptor(outbound, self)
        WorkflowInboundInterceptor.init(self, _RunUnderTurnContext(tracing, self))

    async def handle_signal(self, input: HandleSignalInput) -> None:
        if input.signal == TURN_SIGNAL:
            header = input.headers.get(self.header_key)
            if header:
                self.turn_contexts.append(self.payload_converter.from_payloads([header])[0])
        await super().handle_signal(input)


class _RunUnderTurnContext(WorkflowOutboundInterceptor):
    def __init__(self, next: WorkflowOutboundInterceptor, root: _TurnTracingWorkflowInterceptor) -> None:
        super().__init__(next)
        self.root = root

    async def start_child_workflow(self, input: StartChildWorkflowInput) -> ChildWorkflowHandle[Any, Any]:
        if input.workflow != RUN_WORKFLOW or not self.root.turn_contexts:
            return await super().start_child_workflow(input)
        carrier, self.root.turn_contexts = self.root.turn_contexts[-1], []
        context = self.root._set_on_context(self.root.text_map_propagator.extract(carrier))
        token = opentelemetry.context.attach(context)
        try:
            return await super().start_child_workflow(input)
        finally:
            opentelemetry.context.detach(token)
