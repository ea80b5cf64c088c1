"""The Temporal SDK's own metrics, exposed through our Prometheus endpoints.

The SDK's core counts what happens inside a client and a worker: requests to the
server and their latency, task slots used and available, poll outcomes, sticky
cache hits, schedule-to-start and execution latencies of workflow and activity
tasks. Its own Prometheus exporter would open one more port per process; instead
every process's ``Runtime`` records into a ``MetricBuffer``, and this collector
drains it into cumulative values that ``/metrics`` (the API) and the worker's
listener serve beside our families: one scrape target per process.

Names are the SDK's (``temporal_request_total``, ``temporal_activity_execution_
latency_seconds``, ...), durations in seconds. Labels are the SDK's attributes
(namespace, task queue, workflow and activity type, operation, worker type):
bounded by the code, never by traffic. In multiprocess mode (``switchboard api
--workers N``) the API's ``/metrics`` sums files written by each process and has
no room for these: scrape the worker's listener for them there.
"""

from __future__ import annotations

import atexit
import bisect
import logging
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from prometheus_client import REGISTRY
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector
from temporalio.runtime import (
    BUFFERED_METRIC_KIND_COUNTER,
    BUFFERED_METRIC_KIND_HISTOGRAM,
    BufferedMetric,
    BufferedMetricUpdate,
    MetricBuffer,
    MetricBufferDurationFormat,
    Runtime,
    TelemetryConfig,
)

log = logging.getLogger("switchboard.metrics")

# Large enough for a second of a busy worker's updates between drains (the SDK drops what overflows).
BUFFER_SIZE = 200_000
DRAIN_EVERY_SECONDS = 1.0
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)

Labels = tuple[tuple[str, str], ...]


def _labels(attributes: Mapping[str, object]) -> Labels:
    return tuple(
        sorted(
            (key, str(value).lower() if isinstance(value, bool) else str(value))
            for key, value in attributes.items()
        )
    )


@dataclass
class _Histogram:
    counts: list[int] = field(default_factory=lambda: [0] * (len(BUCKETS) + 1))
    total: float = 0.0

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(BUCKETS, value)] += 1
        self.total += value


@dataclass
class _Family:
    kind: int
    description: str
    values: dict[Labels, float] = field(default_factory=dict)  # counters' totals, gauges' last values
    histograms: dict[Labels, _Histogram] = field(default_factory=dict)


def _family_name(name: str, kind: int, unit: str | None) -> str:
    if kind == BUFFERED_METRIC_KIND_HISTOGRAM and unit in ("s", "duration") and not name.endswith("_seconds"):
        return name + "_seconds"
    return name


class TemporalSdkMetrics(Collector):
    """Cumulative values of the SDK's buffered metric updates, as Prometheus families."""

    def __init__(self, buffer: MetricBuffer) -> None:
        self._buffer = buffer
        self._lock = threading.Lock()
        self._families: dict[str, _Family] = {}
        # The SDK hands the same metric and attribute-set objects back on every update: their family and
        # labels are worked out once. Each entry holds its object, so its id cannot be reused meanwhile.
        self._by_metric: dict[int, tuple[object, _Family]] = {}
        self._by_attributes: dict[int, tuple[object, Labels]] = {}

    def _family(self, metric: BufferedMetric) -> _Family:
        known = self._by_metric.get(id(metric))
        if known is not None:
            return known[1]
        name = _family_name(metric.name, metric.kind, metric.unit)
        family = self._families.get(name)
        if family is None:
            family = self._families[name] = _Family(metric.kind, metric.description or metric.name)
        self._by_metric[id(metric)] = (metric, family)
        return family

    def _labels(self, attributes: Mapping[str, object]) -> Labels:
        known = self._by_attributes.get(id(attributes))
        if known is None:
            known = self._by_attributes[id(attributes)] = (attributes, _labels(attributes))
        return known[1]

    def absorb(self, updates: Iterator[BufferedMetricUpdate] | list[BufferedMetricUpdate]) -> None:
        """Fold updates in: counters add their deltas, gauges keep the last value, histograms observe."""
        with self._lock:
            for update in updates:
                family = self._family(update.metric)
                key = self._labels(update.attributes)
                if family.kind == BUFFERED_METRIC_KIND_HISTOGRAM:
                    family.histograms.setdefault(key, _Histogram()).observe(float(update.value))
                elif family.kind == BUFFERED_METRIC_KIND_COUNTER:
                    family.values[key] = family.values.get(key, 0.0) + update.value
                else:
                    family.values[key] = float(update.value)

    def drain(self) -> None:
        """Take what the SDK buffered since the last drain."""
        self.absorb(list(self._buffer.retrieve_updates()))

    def collect(self) -> Iterator[Metric]:
        self.drain()
        with self._lock:
            for name, family in sorted(self._families.items()):
                yield _metric(name, family)


def _metric(name: str, family: _Family) -> Metric:
    if family.kind == BUFFERED_METRIC_KIND_HISTOGRAM:
        metric = Metric(name, family.description, "histogram")
        for labels, histogram in family.histograms.items():
            cumulative = 0
            for bound, count in zip((*BUCKETS, float("inf")), histogram.counts, strict=True):
                cumulative += count
                le = "+Inf" if bound == float("inf") else repr(bound)
                metric.add_sample(name + "_bucket", {**dict(labels), "le": le}, cumulative)
            metric.add_sample(name + "_count", dict(labels), cumulative)
            metric.add_sample(name + "_sum", dict(labels), histogram.total)
        return metric
    if family.kind == BUFFERED_METRIC_KIND_COUNTER:
        metric = Metric(name, family.description, "counter")
        for labels, value in family.values.items():
            metric.add_sample(name + "_total", dict(labels), value)
        return metric
    metric = Metric(name, family.description, "gauge")
    for labels, value in family.values.items():
        metric.add_sample(name, dict(labels), value)
    return metric


_runtime: Runtime | None = None
_runtime_lock = threading.Lock()
_stop = threading.Event()


def temporal_runtime() -> Runtime:
    """This process's Temporal runtime, recording the SDK's metrics for our endpoints (made once).

    Every client the process connects (connect_temporal) uses it, so the workers built on those clients
    count into it too. A daemon thread drains the buffer every second, so it never fills between scrapes;
    it is stopped at exit, before the interpreter finalizes: a thread still inside the SDK's native code
    then aborts the process.
    """
    global _runtime
    with _runtime_lock:
        if _runtime is None:
            buffer = MetricBuffer(BUFFER_SIZE, MetricBufferDurationFormat.SECONDS)
            _runtime = Runtime(telemetry=TelemetryConfig(metrics=buffer))
            collector = TemporalSdkMetrics(buffer)
            REGISTRY.register(collector)
            drainer = threading.Thread(
                target=_drain_until_stopped, args=(collector,), name="temporal-metrics"
            )
            drainer.daemon = True
            drainer.start()
            atexit.register(stop_draining, drainer)
        return _runtime


def stop_draining(drainer: threading.Thread) -> None:
    """Stop the drain thread and wait for it (at exit)."""
    _stop.set()
    drainer.join(timeout=5)


def _drain_until_stopped(collector: TemporalSdkMetrics) -> None:
    while not _stop.wait(DRAIN_EVERY_SECONDS):
        try:
            collector.drain()
        except Exception:  # metrics must never take the process down; the next drain tries again
            log.exception("Temporal SDK metrics not drained")
