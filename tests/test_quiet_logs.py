"""Quiet by default: our levels apart from the libraries', a readable text line, counted warnings and
errors, and `switchboard dev`'s one summary line a minute read from the services' metrics."""

from __future__ import annotations

import io
import logging

import pytest
from prometheus_client import REGISTRY, CollectorRegistry, Counter, generate_latest
from pydantic import ValidationError

from switchboard import metrics
from switchboard.dev_summary import Totals, summary_line, totals
from switchboard.logs import configure_logging, json_handler
from switchboard.settings import Settings


def test_log_level_sets_our_loggers_while_the_libraries_stay_at_info_or_above():
    configure_logging("DEBUG", "json")
    assert logging.getLogger("switchboard.sends").getEffectiveLevel() == logging.DEBUG
    assert logging.getLogger("temporalio.worker").getEffectiveLevel() == logging.INFO
    assert logging.getLogger("a_library.client").getEffectiveLevel() == logging.INFO
    configure_logging("WARNING", "json")
    assert logging.getLogger("switchboard.sends").getEffectiveLevel() == logging.WARNING
    assert logging.getLogger("temporalio.worker").getEffectiveLevel() == logging.WARNING


def test_the_text_format_is_one_line_with_the_fields_and_secrets_masked():
    stream = io.StringIO()
    handler = json_handler(stream, fmt="text")
    record = logging.makeLogRecord(
        {
            "name": "switchboard.channel",
            "levelno": logging.WARNING,
            "levelname": "WARNING",
            "msg": "upstream call failed; retrying",
            "code": "UPSTREAM_UNAVAILABLE",
            "attempt": 2,
            "workflow_run_id": "run-uuid-left-to-the-json-form",
            "token": "Bearer abcdefghijklmnop",
        }
    )
    handler.handle(record)
    (line,) = stream.getvalue().splitlines()
    assert " WARNING upstream call failed; retrying  " in line
    assert "code=UPSTREAM_UNAVAILABLE" in line and "attempt=2" in line
    assert "workflow_run_id" not in line
    assert "abcdefghijklmnop" not in line and "token=Bearer ***" in line


def test_settings_take_a_level_in_any_case_and_refuse_unknown_levels_and_formats(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setenv("LOG_LEVEL", "debug")
    monkeypatch.setenv("LOG_FORMAT", "text")
    settings = Settings()
    assert (settings.log_level, settings.log_format) == ("DEBUG", "text")
    monkeypatch.setenv("LOG_LEVEL", "LOUD")
    with pytest.raises(ValidationError, match="log_level"):
        Settings()
    monkeypatch.setenv("LOG_LEVEL", "INFO")
    monkeypatch.setenv("LOG_FORMAT", "xml")
    with pytest.raises(ValidationError, match="log_format"):
        Settings()


def _logged(level: str) -> float:
    return REGISTRY.get_sample_value("switchboard_log_messages_total", {"level": level}) or 0.0


def test_warnings_and_errors_are_counted_once_per_process_and_info_is_not():
    metrics.count_log_messages()
    metrics.count_log_messages()  # the API's lifespan and the worker may both ask: still counted once
    before = {level: _logged(level) for level in ("warning", "error")}
    probe = logging.getLogger("switchboard.tests.counted")
    probe.info("not counted")
    probe.warning("counted")
    probe.error("counted too")
    assert _logged("warning") == before["warning"] + 1
    assert _logged("error") == before["error"] + 1


def exposition(
    *,
    sends: dict[str, int],
    inbound: int,
    attempts: dict[str, int],
    runs: dict[str, int],
    logged: dict[str, int],
) -> str:
    """One process's metrics text with our families' names and labels, as prometheus_client writes it."""
    registry = CollectorRegistry()
    sent = Counter("switchboard_sends", "", ["type", "status"], registry=registry)
    items = Counter("switchboard_inbound_items", "", ["kind", "result"], registry=registry)
    webhook = Counter("switchboard_webhook_attempts", "", ["outcome", "attempt"], registry=registry)
    agent = Counter("switchboard_agent_runs", "", ["outcome"], registry=registry)
    lines = Counter("switchboard_log_messages", "", ["level"], registry=registry)
    for status, count in sends.items():
        sent.labels("text", status).inc(count)
    items.labels("message", "applied").inc(inbound)
    items.labels("status", "applied").inc(7)  # statuses are not inbound messages
    items.labels("message", "duplicate").inc(3)  # nor are redeliveries
    for outcome, count in attempts.items():
        webhook.labels(outcome, "1").inc(count)
    for outcome, count in runs.items():
        agent.labels(outcome).inc(count)
    for level, count in logged.items():
        lines.labels(level).inc(count)
    return generate_latest(registry).decode()


def test_the_minutes_line_sums_the_api_and_the_worker_and_counts_only_what_happened_since():
    api = exposition(sends={"sent": 2}, inbound=3, attempts={"delivered": 5}, runs={}, logged={})
    worker = exposition(
        sends={"sent": 4, "failed": 1},
        inbound=0,
        attempts={"delivered": 1, "failed": 2},
        runs={"completed": 1, "escalated": 1},
        logged={"warning": 2, "error": 1},
    )
    before = Totals()
    after = totals([api, worker])
    assert summary_line(before, after) == (
        "7 sends (1 failed, 6 sent) · 3 inbound messages · 8 webhook attempts (6 delivered, 2 failed)"
        " · 2 agent runs (1 completed, 1 escalated) · 1 error, 2 warnings"
    )
    assert summary_line(after, after) == (
        "0 sends · 0 inbound messages · 0 webhook attempts · 0 agent runs · 0 errors, 0 warnings"
    )


def test_a_restarted_process_counting_from_zero_never_makes_the_line_negative():
    before = totals([exposition(sends={"sent": 9}, inbound=4, attempts={}, runs={}, logged={"error": 3})])
    after = totals([exposition(sends={"sent": 1}, inbound=1, attempts={}, runs={}, logged={})])
    assert summary_line(before, after).startswith("0 sends · 0 inbound messages")
