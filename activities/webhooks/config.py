"""Per-deployment webhook delivery configuration, read from settings with the policy's defaults.

``settings.py`` may carry any of the ``webhook_*`` fields below (environment
variables of the same name in upper case); a field it lacks keeps the default
of ``domain.webhook_policy.DEFAULT_POLICY`` or of ``WebhookConfig``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any

from domain.webhook_policy import DEFAULT_POLICY, WebhookPolicy

# settings attribute -> (WebhookPolicy field, converter)
_POLICY_FIELDS: dict[str, tuple[str, Any]] = {
    "webhook_retry_schedule_seconds": ("retry_schedule_seconds", lambda v: _float_tuple(v)),
    "webhook_jitter_ratio": ("jitter_ratio", float),
    "webhook_request_timeout_seconds": ("request_timeout_seconds", float),
    "webhook_overload_floor_seconds": ("overload_floor_seconds", float),
    "webhook_retry_after_max_seconds": ("retry_after_max_seconds", float),
    "webhook_auto_disable_after_seconds": ("auto_disable_after", lambda v: timedelta(seconds=float(v))),
    "webhook_auto_disable_min_exhausted": ("auto_disable_min_exhausted", int),
    "webhook_auto_disable_min_failure_span_seconds": (
        "auto_disable_min_failure_span",
        lambda v: timedelta(seconds=float(v)),
    ),
    "webhook_healthy_above": ("healthy_above", float),
    "webhook_failing_below": ("failing_below", float),
    "webhook_degraded_notify_interval_seconds": (
        "degraded_notify_interval",
        lambda v: timedelta(seconds=float(v)),
    ),
}


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
    # The outbox sweeper re-dispatches events undispatched for this long.
    sweep_min_age: timedelta = timedelta(seconds=5)
    # Notifications are normally sent by the workflow that raised them; the
    # sweeper only takes those left unsent this long.
    notification_sweep_min_age: timedelta = timedelta(seconds=60)
    sweep_batch: int = 500


_CONFIG_FIELDS: dict[str, tuple[str, Any]] = {
    "webhook_alert_min_attempts": ("alert_min_attempts", int),
    "webhook_health_check_interval_seconds": ("health_check_interval", lambda v: timedelta(seconds=float(v))),
    "webhook_sweep_min_age_seconds": ("sweep_min_age", lambda v: timedelta(seconds=float(v))),
}


def config_from_settings(settings: Any) -> WebhookConfig:
    """The deployment's webhook configuration (settings fields that exist override the defaults)."""
    policy_changes = {
        name: convert(getattr(settings, attr))
        for attr, (name, convert) in _POLICY_FIELDS.items()
        if getattr(settings, attr, None) is not None
    }
    config_changes = {
        name: convert(getattr(settings, attr))
        for attr, (name, convert) in _CONFIG_FIELDS.items()
        if getattr(settings, attr, None) is not None
    }
    return WebhookConfig(policy=replace(DEFAULT_POLICY, **policy_changes), **config_changes)
