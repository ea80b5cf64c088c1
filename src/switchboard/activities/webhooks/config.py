"""Per-deployment webhook delivery configuration, read from settings with the policy's defaults.

Each ``webhook_*`` setting (the environment variable of the same name in upper
case) overrides one default of ``domain.webhook_policy.DEFAULT_POLICY`` or of
``WebhookConfig``; an unset one (None) keeps it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any

from switchboard.domain.webhook_policy import DEFAULT_POLICY, WebhookPolicy
from switchboard.settings import Settings


def _float_tuple(value: Any) -> tuple[float, ...]:
    if isinstance(value, str):
        text = value.strip()
        items = json.loads(text) if text.startswith("[") else [p for p in text.split(",") if p.strip()]
    else:
        items = list(value)
    schedule = tuple(float(item) for item in items)
    if not schedule or any(delay < 0 for delay in schedule):
        raise ValueError("the webhook retry schedule needs at least one non-negative delay")
    return schedule


@dataclass(frozen=True)
class WebhookConfig:
    """The delivery policy plus the operational knobs around it."""

    policy: WebhookPolicy = field(default_factory=lambda: DEFAULT_POLICY)
    # Fewer attempts than this in 24 h never raise a degraded or failing alert (one bad
    # request must not page the owner).
    alert_min_attempts: int = 5
    # A webhook's health transition is evaluated at most this often.
    health_check_interval: timedelta = timedelta(seconds=60)
    # The outbox sweeper re-dispatches events undispatched for this long: longer than an API process's
    # starts after a commit can take (``start_window``), so it does not race a start still under way.
    sweep_min_age: timedelta = timedelta(seconds=20)
    # Notifications are normally sent by the workflow that raised them; the
    # sweeper only takes those left unsent this long.
    notification_sweep_min_age: timedelta = timedelta(seconds=60)
    sweep_batch: int = 500


def _seconds(value: float) -> timedelta:
    return timedelta(seconds=float(value))


def config_from_settings(settings: Settings) -> WebhookConfig:
    """The deployment's webhook configuration: each ``webhook_*`` setting that is set overrides its default."""
    policy: dict[str, tuple[Any, Callable[[Any], Any]]] = {
        "retry_schedule_seconds": (settings.webhook_retry_schedule_seconds, _float_tuple),
        "jitter_ratio": (settings.webhook_jitter_ratio, float),
        "request_timeout_seconds": (settings.webhook_request_timeout_seconds, float),
        "overload_floor_seconds": (settings.webhook_overload_floor_seconds, float),
        "retry_after_max_seconds": (settings.webhook_retry_after_max_seconds, float),
        "auto_disable_after": (settings.webhook_auto_disable_after_seconds, _seconds),
        "auto_disable_min_exhausted": (settings.webhook_auto_disable_min_exhausted, int),
        "auto_disable_min_failure_span": (settings.webhook_auto_disable_min_failure_span_seconds, _seconds),
        "healthy_above": (settings.webhook_healthy_above, float),
        "failing_below": (settings.webhook_failing_below, float),
        "degraded_notify_interval": (settings.webhook_degraded_notify_interval_seconds, _seconds),
        "auto_disable_warning": (settings.webhook_auto_disable_warning_seconds, _seconds),
    }
    config: dict[str, tuple[Any, Callable[[Any], Any]]] = {
        "alert_min_attempts": (settings.webhook_alert_min_attempts, int),
        "health_check_interval": (settings.webhook_health_check_interval_seconds, _seconds),
        "sweep_min_age": (settings.webhook_sweep_min_age_seconds, _seconds),
    }
    webhook_policy = replace(DEFAULT_POLICY, **_set(policy))
    knobs = _set(config)
    floor = start_window(webhook_policy)
    knobs["sweep_min_age"] = max(knobs.get("sweep_min_age", WebhookConfig.sweep_min_age), floor)
    return WebhookConfig(policy=webhook_policy, **knobs)


# Slack beyond the request timeout for the starts after a commit, each of which gives up after 5 s
# (workflow_starts.AFTER_COMMIT_START_TIMEOUT).
START_SLACK = timedelta(seconds=10)


def start_window(policy: WebhookPolicy) -> timedelta:
    """The sweeper's floor: comfortably longer than an event's commit and its runs' starts can take."""
    return timedelta(seconds=policy.request_timeout_seconds) + START_SLACK


def _set(fields: dict[str, tuple[Any, Callable[[Any], Any]]]) -> dict[str, Any]:
    """The converted values of the settings that are set (None keeps the default)."""
    return {name: convert(value) for name, (value, convert) in fields.items() if value is not None}
