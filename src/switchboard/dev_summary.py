"""`switchboard dev`'s one line a minute: what the API and the worker did, read from their metrics.

The service's own processes log only what needs a reader (warnings, errors, rare
events); this line is how a developer watching the terminal sees that traffic
flows. It is computed from the Prometheus text the API (``/metrics``) and the
worker (its metrics listener) already expose, so it counts exactly what an
operator's dashboard counts. Parsing and wording are pure; devstack.py fetches.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from prometheus_client.parser import text_string_to_metric_families


@dataclass(frozen=True)
class Totals:
    """Counter totals since the processes started, summed over every exposition read."""

    sends: Counter[str] = field(default_factory=Counter)  # by final status
    inbound_messages: int = 0  # received messages newly stored
    deliveries: Counter[str] = field(default_factory=Counter)  # webhook attempts by outcome
    agent_runs: Counter[str] = field(default_factory=Counter)  # by outcome
    logged: Counter[str] = field(default_factory=Counter)  # warnings and errors by level


def totals(expositions: Iterable[str]) -> Totals:
    """The totals in these Prometheus texts (one per process)."""
    result = Totals()
    inbound = 0
    for text in expositions:
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                labels, value = sample.labels, int(sample.value)
                if sample.name == "switchboard_sends_total":
                    result.sends[labels["status"]] += value
                elif sample.name == "switchboard_inbound_items_total":
                    if labels.get("kind") == "message" and labels.get("result") == "applied":
                        inbound += value
                elif sample.name == "switchboard_webhook_attempts_total":
                    result.deliveries[labels["outcome"]] += value
                elif sample.name == "switchboard_agent_runs_total":
                    result.agent_runs[labels["outcome"]] += value
                elif sample.name == "switchboard_log_messages_total":
                    result.logged[labels["level"]] += value
    return Totals(result.sends, inbound, result.deliveries, result.agent_runs, result.logged)


def _since(after: Counter[str], before: Counter[str]) -> Counter[str]:
    # A process that restarted starts from zero: its counts never go negative here.
    return Counter({key: after[key] - before[key] for key in after if after[key] > before[key]})


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _part(count_by: Counter[str], noun: str) -> str:
    total = sum(count_by.values())
    if not total:
        return _plural(0, noun)
    detail = ", ".join(f"{count} {name}" for name, count in sorted(count_by.items()))
    return f"{_plural(total, noun)} ({detail})"


def summary_line(before: Totals, after: Totals) -> str:
    """What happened between two readings, in one line."""
    logged = _since(after.logged, before.logged)
    problems = logged["error"] + logged["critical"]
    return " · ".join(
        [
            _part(_since(after.sends, before.sends), "send"),
            _plural(max(after.inbound_messages - before.inbound_messages, 0), "inbound message"),
            _part(_since(after.deliveries, before.deliveries), "webhook attempt"),
            _part(_since(after.agent_runs, before.agent_runs), "agent run"),
            f"{_plural(problems, 'error')}, {_plural(logged['warning'], 'warning')}",
        ]
    )
