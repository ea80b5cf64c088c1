"""Tenant webhook delivery policy: retry schedule, outcomes, auto-disable, health, owner notifications.

Retry schedule (Svix's, the delay before each attempt after the previous one
failed): immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; eight attempts
over about 27 h 35 min. Each delay is jittered by +/-20 %. A 429 or a timeout
raises the next delay to at least 60 s. A receiver's ``Retry-After`` (seconds
or an HTTP date) is honoured, clamped between the jittered scheduled delay and
``retry_after_max_seconds`` (10 h). Only a 2xx within the request timeout
(10 s) is success; redirects are failures. ``410 Gone`` auto-disables the
webhook at once and stops the delivery.

Auto-disable (slow to disable, quick to alert): no successful delivery for 5
days, with at least 2 deliveries that exhausted their retries and at least 12 h
between the first and the last failure; any success resets the clock. Checked
on every exhausted delivery and by a daily sweep.

Health, evaluated in this order: not_configured (no webhook), disabled
(enabled false), auto_disabled, no_deliveries (no attempt in 24 h), failing
(24 h success rate below 10 %), degraded (10 % to 50 % inclusive), healthy
(above 50 %).

Owner notifications, each once per transition: ``webhook.degraded`` (warning)
when the health enters degraded (the spec's 10 to 50 % band) from a better
state; ``webhook.failing`` (critical) when it enters failing (below 10 %) from
any other state, a degraded webhook included, since by then almost nothing
arrives; each at most once per 24 h per webhook. Getting better (failing to
degraded) raises nothing. ``webhook.disabled_auto`` on entering auto_disabled;
``webhook.reactivated`` on leaving auto_disabled.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

# Re-exported: the delivery activity reads a receiver's header through this module.
from switchboard.domain.retry_after import parse_retry_after as parse_retry_after

SVIX_SCHEDULE_SECONDS: tuple[float, ...] = (0, 5, 300, 1_800, 7_200, 18_000, 36_000, 36_000)


@dataclass(frozen=True)
class WebhookPolicy:
    """Every delivery and health figure, configurable per deployment (tests shrink the durations)."""

    retry_schedule_seconds: tuple[float, ...] = SVIX_SCHEDULE_SECONDS
    jitter_ratio: float = 0.2
    request_timeout_seconds: float = 10.0
    overload_floor_seconds: float = 60.0
    retry_after_max_seconds: float = 36_000.0
    auto_disable_after: timedelta = timedelta(days=5)
    auto_disable_min_exhausted: int = 2
    auto_disable_min_failure_span: timedelta = timedelta(hours=12)
    healthy_above: float = 0.50
    failing_below: float = 0.10
    degraded_notify_interval: timedelta = timedelta(hours=24)
    # The least time between the owner's warning of a failing spell and its auto-disable.
    auto_disable_warning: timedelta = timedelta(hours=24)

    @property
    def max_attempts(self) -> int:
        """Attempts one delivery gets before it is exhausted."""
        return len(self.retry_schedule_seconds)


DEFAULT_POLICY = WebhookPolicy()


class AttemptOutcome(StrEnum):
    """What one delivery attempt means for the delivery."""

    SUCCESS = "success"
    RETRY = "retry"
    GONE = "gone"


def is_success(status_code: int | None) -> bool:
    """Only a 2xx answer is a successful delivery."""
    return status_code is not None and 200 <= status_code <= 299


def classify_attempt(status_code: int | None) -> AttemptOutcome:
    """What one attempt's answer means (None or 0: no answer, e.g. timeout or connection error)."""
    if is_success(status_code):
        return AttemptOutcome.SUCCESS
    if status_code == 410:
        return AttemptOutcome.GONE
    return AttemptOutcome.RETRY


def scheduled_delay(attempt_number: int, *, policy: WebhookPolicy = DEFAULT_POLICY) -> float | None:
    """The unjittered wait before attempt ``attempt_number`` (1-based), or None past the schedule."""
    if attempt_number < 1 or attempt_number > policy.max_attempts:
        return None
    return float(policy.retry_schedule_seconds[attempt_number - 1])


def jittered(delay: float, random_unit: float, *, ratio: float = 0.2) -> float:
    """Spread a delay over +/- ``ratio`` with ``random_unit`` in [0, 1] (workflow.random() in workflows)."""
    unit = min(max(random_unit, 0.0), 1.0)
    return delay * (1 + ratio * (2 * unit - 1))


def next_retry_delay(
    attempt_number: int,
    status_code: int | None,
    *,
    random_unit: float,
    retry_after_seconds: float | None = None,
    timed_out: bool = False,
    policy: WebhookPolicy = DEFAULT_POLICY,
) -> float | None:
    """Seconds to wait before the next attempt after attempt ``attempt_number`` failed; None to stop.

    None means success, 410 Gone, or the schedule is exhausted.
    """
    if classify_attempt(status_code) is not AttemptOutcome.RETRY:
        return None
    base = scheduled_delay(attempt_number + 1, policy=policy)
    if base is None:
        return None
    delay = jittered(base, random_unit, ratio=policy.jitter_ratio)
    if timed_out or status_code == 429:
        delay = max(delay, policy.overload_floor_seconds)
    if retry_after_seconds is not None:
        ceiling = max(delay, policy.retry_after_max_seconds)
        delay = min(max(retry_after_seconds, delay), ceiling)
    return delay


def should_auto_disable(
    *,
    failing_since: datetime | None,
    last_failure_at: datetime | None,
    exhausted_since_success: int,
    now: datetime,
    policy: WebhookPolicy = DEFAULT_POLICY,
) -> bool:
    """Whether a webhook that keeps failing is auto-disabled now.

    ``failing_since`` is the first failure after the last success (None while
    healthy); ``exhausted_since_success`` counts deliveries that used up their
    whole schedule since then.
    """
    if failing_since is None or last_failure_at is None:
        return False
    return (
        now - failing_since >= policy.auto_disable_after
        and exhausted_since_success >= policy.auto_disable_min_exhausted
        and last_failure_at - failing_since >= policy.auto_disable_min_failure_span
    )


class DisableStep(StrEnum):
    """What a webhook that meets the auto-disable rule gets now (``next_disable_step``)."""

    WARN = "warn"
    WAIT = "wait"
    DISABLE = "disable"


def next_disable_step(
    *, warned_at: datetime | None, now: datetime, policy: WebhookPolicy = DEFAULT_POLICY
) -> DisableStep:
    """Warn before disabling: a webhook is auto-disabled only ``auto_disable_warning`` after its owner
    was warned of this failing spell (``warned_at``: the latest degraded or failing notice since it
    began). Unwarned, the owner is warned now; warned too recently, it waits for a later exhausted
    delivery. Health notices need a minimum of attempts a day, so a quiet endpoint can reach the
    disable rule without one."""
    if warned_at is None:
        return DisableStep.WARN
    if now - warned_at < policy.auto_disable_warning:
        return DisableStep.WAIT
    return DisableStep.DISABLE


class HealthStatus(StrEnum):
    """The spec's webhook health values."""

    HEALTHY = "healthy"
    DEGRADED = "degraded"
    FAILING = "failing"
    NO_DELIVERIES = "no_deliveries"
    DISABLED = "disabled"
    AUTO_DISABLED = "auto_disabled"
    NOT_CONFIGURED = "not_configured"


@dataclass(frozen=True)
class HealthFigures:
    """What health is computed from; rates are 0..1 over attempts, None when there were none."""

    configured: bool
    enabled: bool = True
    auto_disabled_at: datetime | None = None
    deliveries_24h_total: int = 0
    success_rate_24h: float | None = None
    success_rate_7d: float | None = None


def health_status(figures: HealthFigures, *, policy: WebhookPolicy = DEFAULT_POLICY) -> HealthStatus:
    """The health status shown by GET /v1/webhooks/health-by-phone."""
    if not figures.configured:
        return HealthStatus.NOT_CONFIGURED
    if not figures.enabled:
        return HealthStatus.DISABLED
    if figures.auto_disabled_at is not None:
        return HealthStatus.AUTO_DISABLED
    if figures.deliveries_24h_total <= 0 or figures.success_rate_24h is None:
        return HealthStatus.NO_DELIVERIES
    if figures.success_rate_24h < policy.failing_below:
        return HealthStatus.FAILING
    if figures.success_rate_24h <= policy.healthy_above:
        return HealthStatus.DEGRADED
    return HealthStatus.HEALTHY


NOTIFY_DEGRADED = "webhook.degraded"
NOTIFY_FAILING = "webhook.failing"
NOTIFY_DISABLED_AUTO = "webhook.disabled_auto"
NOTIFY_REACTIVATED = "webhook.reactivated"
NOTIFICATION_SEVERITY = {
    NOTIFY_DISABLED_AUTO: "critical",
    NOTIFY_FAILING: "critical",
    NOTIFY_DEGRADED: "warning",
    NOTIFY_REACTIVATED: "info",
}
# Each unhealthy status, its notice, and the statuses it is news after (entering from a worse one is not).
_BAND_NOTICES: dict[HealthStatus, tuple[str, frozenset[HealthStatus]]] = {
    HealthStatus.DEGRADED: (NOTIFY_DEGRADED, frozenset({HealthStatus.DEGRADED, HealthStatus.FAILING})),
    HealthStatus.FAILING: (NOTIFY_FAILING, frozenset({HealthStatus.FAILING})),
}


def _recent(notified_at: datetime | None, now: datetime | None, policy: WebhookPolicy) -> bool:
    return notified_at is not None and now is not None and now - notified_at < policy.degraded_notify_interval


def owner_notifications(
    previous: HealthStatus | str | None,
    current: HealthStatus | str,
    *,
    degraded_notified_at: datetime | None = None,
    failing_notified_at: datetime | None = None,
    now: datetime | None = None,
    policy: WebhookPolicy = DEFAULT_POLICY,
) -> list[str]:
    """The owner notifications a health transition raises (empty when the state did not change).

    ``*_notified_at`` are when that notice last went to this webhook's owner, so a
    flapping webhook mails each at most once per ``degraded_notify_interval``.
    """
    prev = HealthStatus(previous) if previous is not None else None
    cur = HealthStatus(current)
    if prev == cur:
        return []
    notes: list[str] = []
    if prev == HealthStatus.AUTO_DISABLED:
        notes.append(NOTIFY_REACTIVATED)
    if cur == HealthStatus.AUTO_DISABLED:
        notes.append(NOTIFY_DISABLED_AUTO)
    if cur in _BAND_NOTICES:
        notice, not_after = _BAND_NOTICES[cur]
        last = degraded_notified_at if notice == NOTIFY_DEGRADED else failing_notified_at
        if prev not in not_after and not _recent(last, now, policy):
            notes.append(notice)
    return notes
