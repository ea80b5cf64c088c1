"""One trace from the channel's webhook to the tenant's, through one agent turn (switchboard/tracing.py).

Tracing is on for this module only, through the SDK's in-memory exporter; the API and the worker are
built after it is on, the worker on a client of the service's own (connect_temporal), as the worker
process builds it. One customer message reaches a bound agent that calls a tenant tool and answers; the
spans are then read back as a tree.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from temporalio.worker import Worker

from switchboard import tracing
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
from tests.support.http_server import serve_app
from tests.support.tenants import TenantFixture
from tests.workflows.test_webhook_support import Receiver


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    tracing.use(SimpleSpanProcessor(exporter), service="switchboard-test")
    yield exporter
    tracing.use(None)


@pytest.fixture
def app_client(spans: InMemorySpanExporter, app_client: httpx.AsyncClient) -> httpx.AsyncClient:
    """The shared API client, built once tracing is on (``spans`` first), so the app is instrumented."""
    return app_client


@pytest.fixture
async def worker(settings: Settings, spans: InMemorySpanExporter) -> AsyncIterator[Worker]:
    async with process_worker(settings) as running:
        yield running


def ancestry(span: ReadableSpan, spans: list[ReadableSpan]) -> list[str]:
    """The names from ``span`` up to its trace's root, following each parent id (a gap ends it early)."""
    by_id = {s.context.span_id: s for s in spans}
    names = [span.name]
    while span.parent is not None and span.parent.span_id in by_id:
        span = by_id[span.parent.span_id]
        names.append(span.name)
    return names


def named(spans: list[ReadableSpan], name: str) -> list[ReadableSpan]:
    return [s for s in spans if s.name == name]


def trace_id_of(traceparent: str) -> int:
    version, trace_id, _span_id, _flags = traceparent.split("-")
    assert version == "00"
    return int(trace_id, 16)


async def test_one_agent_turn_is_one_trace_from_the_channel_webhook_to_the_tenant_webhook(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    tools: ToolServer,
    tools_url: str,
    spans: InMemorySpanExporter,
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
            replies=["Hay turno a las 10:00.", "De nada."],
        )
        spans.clear()
        endpoint.requests.clear()
        await say(app_client, text_envelope("¿hay turno el 1 de diciembre?", wamid="wamid.trace01"))
        await finished_runs(app_client, bound_tenant, count=1)

        async def reply_delivered() -> bool:
            # The received message's event, and the reply's sent event (after the upstream accepted it).
            kinds = [r.headers.get("x-service-event") for r in endpoint.at("/hook")]
            return "channel.message.sent" in kinds

        await eventually(reply_delivered)

        async def reply_post_ended() -> bool:
            # A span is exported when it ends: after the receiver has answered and the answer is read.
            done = list(spans.get_finished_spans())
            return any("RunActivity:channel_send" in ancestry(s, done) for s in named(done, "webhook POST"))

        await eventually(reply_post_ended)
        first = list(spans.get_finished_spans())

        # A second turn, to the thread workflow still running from the first: its run is in its own trace.
        spans.clear()
        await say(app_client, text_envelope("gracias", wamid="wamid.trace02"))
        await finished_runs(app_client, bound_tenant, count=2)
        second = list(spans.get_finished_spans())

    (root,) = named(first, "POST /channel/webhook")
    assert root.parent is None, "the channel's POST starts the trace"
    assert not [s.name for s in first if s.name.endswith((" http send", " http receive"))], (
        "one span a request"
    )
    turn = [s for s in first if s.context.trace_id == root.context.trace_id]
    through_run = ["StartChildWorkflow:AgentRun", "SignalWithStartWorkflow:AgentThread"]

    def chain(name: str) -> list[str]:
        (span, *_) = named(turn, name)
        names = ancestry(span, turn)
        assert names[-1] == "POST /channel/webhook", f"{name} does not reach the channel's POST: {names}"
        return names

    for step in ("model call", "tool request", "channel POST"):
        names = chain(step)
        assert all(link in names for link in through_run), f"{step}: {names}"
    assert chain("tool request")[:2] == ["tool request", "tool call"]
    assert "RunActivity:call_agent_model" in chain("model call")
    assert "RunActivity:channel_send" in chain("channel POST")
    # The tenant's webhook for the agent's reply: started by the send that the run started.
    reply_posts = [s for s in named(turn, "webhook POST") if "RunActivity:channel_send" in ancestry(s, turn)]
    assert reply_posts, [ancestry(s, turn) for s in named(turn, "webhook POST")]
    assert all(link in ancestry(reply_posts[0], turn) for link in through_run)
    # The received message's own event went out from the channel's POST itself.
    assert any(ancestry(s, turn)[-1] == "POST /channel/webhook" for s in named(turn, "webhook POST"))

    # The tenant's tool and webhook endpoints got a traceparent of this trace: they can continue it.
    assert {trace_id_of(call["headers"]["traceparent"]) for call in tools.calls} == {root.context.trace_id}
    assert {trace_id_of(r.headers["traceparent"]) for r in endpoint.at("/hook")} >= {root.context.trace_id}
    # Spans leave the service: no key, no customer text in their attributes.
    attributes = repr([dict(s.attributes or {}) for s in turn])
    assert "sk-fake-provider-key" not in attributes and "hay turno" not in attributes
    # Nor the tenant's URLs beyond their host: a receiver's or a tool's path may carry a token or an id.
    assert "/hook" not in attributes and "/slots" not in attributes

    (second_root,) = named(second, "POST /channel/webhook")
    (second_run,) = named(second, "RunWorkflow:AgentRun")
    assert second_run.context.trace_id == second_root.context.trace_id != root.context.trace_id
    assert ancestry(second_run, second)[-1] == "POST /channel/webhook"
