"""The Temporal SDK's buffered metric updates become cumulative Prometheus families (temporal_metrics.py).

The updates are shaped as the SDK's ``BufferedMetricUpdate`` (its metric object is shared per name, its
attributes per set); the exposition is read back with prometheus_client's own parser.
"""

from __future__ import annotations

from dataclasses import dataclass

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families
from temporalio.runtime import (
    BUFFERED_METRIC_KIND_COUNTER,
    BUFFERED_METRIC_KIND_GAUGE,
    BUFFERED_METRIC_KIND_HISTOGRAM,
    BufferedMetricKind,
    MetricBuffer,
)

from switchboard.temporal_metrics import TemporalSdkMetrics


@dataclass(frozen=True)
class FakeMetric:
    name: str
    kind: BufferedMetricKind
    unit: str | None = None
    description: str | None = None


@dataclass(frozen=True)
class FakeUpdate:
    metric: FakeMetric
    value: float
    attributes: dict[str, object]


REQUEST = FakeMetric("temporal_request", BUFFERED_METRIC_KIND_COUNTER, description="Count of client requests")
LATENCY = FakeMetric("temporal_request_latency", BUFFERED_METRIC_KIND_HISTOGRAM, unit="s")
SLOTS = FakeMetric("temporal_worker_task_slots_available", BUFFERED_METRIC_KIND_GAUGE)
START = {"namespace": "default", "operation": "StartWorkflowExecution"}


def samples(collector: TemporalSdkMetrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    registry = CollectorRegistry()
    registry.register(collector)
    text = generate_latest(registry).decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def collector() -> TemporalSdkMetrics:
    # A buffer without a runtime: collect() drains it, so absorb() alone feeds these tests.
    class Empty(MetricBuffer):
        def retrieve_updates(self) -> list[FakeUpdate]:  # type: ignore[override]
            return []

    return TemporalSdkMetrics(Empty(10))


def test_counters_add_their_deltas_per_attribute_set():
    sdk = collector()
    sdk.absorb([FakeUpdate(REQUEST, 1, START), FakeUpdate(REQUEST, 2, START)])  # type: ignore[list-item]
    sdk.absorb([FakeUpdate(REQUEST, 1, {**START, "operation": "SignalWorkflowExecution"})])  # type: ignore[list-item]
    got = samples(sdk)
    assert got[("temporal_request_total", tuple(sorted(START.items())))] == 3
    assert (
        got[("temporal_request_total", (("namespace", "default"), ("operation", "SignalWorkflowExecution")))]
        == 1
    )


def test_gauges_keep_the_last_value_and_booleans_read_as_prometheus_writes_them():
    sdk = collector()
    labels = {"worker_type": "ActivityWorker", "eager": True}
    sdk.absorb([FakeUpdate(SLOTS, 100, labels), FakeUpdate(SLOTS, 97, labels)])  # type: ignore[list-item]
    got = samples(sdk)
    assert (
        got[("temporal_worker_task_slots_available", (("eager", "true"), ("worker_type", "ActivityWorker")))]
        == 97
    )


def test_durations_are_histograms_in_seconds_with_cumulative_buckets():
    sdk = collector()
    sdk.absorb([FakeUpdate(LATENCY, v, START) for v in (0.003, 0.02, 0.02, 4.0)])  # type: ignore[misc]
    got = samples(sdk)
    key = tuple(sorted(START.items()))

    def bucket(le: str) -> float:
        return got[("temporal_request_latency_seconds_bucket", tuple(sorted((*key, ("le", le)))))]

    assert (bucket("0.005"), bucket("0.025"), bucket("2.5"), bucket("5.0"), bucket("+Inf")) == (1, 3, 3, 4, 4)
    assert got[("temporal_request_latency_seconds_count", key)] == 4
    assert abs(got[("temporal_request_latency_seconds_sum", key)] - 4.043) < 1e-9


def test_the_drain_thread_stops_at_exit_before_the_interpreter_finalizes():
    """A thread still inside the SDK's native code when Python finalizes aborts the process (SIGABRT):
    a process that made the runtime and exits at once ends with its own status."""
    import subprocess
    import sys

    code = (
        "import threading, sys\n"
        "from switchboard.temporal_metrics import temporal_runtime\n"
        "temporal_runtime()\n"
        "assert any(t.name == 'temporal-metrics' for t in threading.enumerate())\n"
        "sys.exit(2)\n"
    )
    for _ in range(5):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, done.stderr[-2000:]
