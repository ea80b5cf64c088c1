"""Tenant webhook delivery policy: schedule, jitter, Retry-After, auto-disable, health, notifications."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from switchboard.domain.webhook_policy import (
    DEFAULT_POLICY,
    NOTIFICATION_SEVERITY,
    AttemptOutcome,
    DisableStep,
    HealthFigures,
    HealthStatus,
    WebhookPolicy,
    classify_attempt,
    health_status,
    is_success,
    jittered,
    next_disable_step,
    next_retry_delay,
    owner_notifications,
    parse_retry_after,
    scheduled_delay,
    should_auto_disable,
)

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
SVIX = [0, 5, 300, 1800, 7200, 18000, 36000, 36000]


def test_default_schedule_is_svix() -> None:
    assert [scheduled_delay(n) for n in range(1, 9)] == SVIX
    assert DEFAULT_POLICY.max_attempts == 8
    assert sum(SVIX) == 27 * 3600 + 35 * 60 + 5
    assert DEFAULT_POLICY.request_timeout_seconds == 10


@pytest.mark.parametrize("attempt", [0, -1, 9, 100])
def test_no_delay_outside_the_schedule(attempt: int) -> None:
    assert scheduled_delay(attempt) is None


@pytest.mark.parametrize(
    ("code", "success", "outcome"),
    [
        (200, True, AttemptOutcome.SUCCESS),
        (204, True, AttemptOutcome.SUCCESS),
        (299, True, AttemptOutcome.SUCCESS),
        (199, False, AttemptOutcome.RETRY),
        (301, False, AttemptOutcome.RETRY),
        (308, False, AttemptOutcome.RETRY),
        (400, False, AttemptOutcome.RETRY),
        (404, False, AttemptOutcome.RETRY),
        (410, False, AttemptOutcome.GONE),
        (429, False, AttemptOutcome.RETRY),
        (500, False, AttemptOutcome.RETRY),
        (503, False, AttemptOutcome.RETRY),
        (0, False, AttemptOutcome.RETRY),
        (None, False, AttemptOutcome.RETRY),
    ],
)
def test_only_2xx_is_success_and_410_is_gone(
    code: int | None, success: bool, outcome: AttemptOutcome
) -> None:
    assert is_success(code) is success
    assert classify_attempt(code) is outcome


@pytest.mark.parametrize(
    ("unit", "expected"), [(0.0, 80.0), (0.5, 100.0), (1.0, 120.0), (0.25, 90.0), (-3.0, 80.0), (7.0, 120.0)]
)
def test_jitter_spreads_plus_minus_twenty_percent(unit: float, expected: float) -> None:
    assert jittered(100.0, unit) == pytest.approx(expected)


@pytest.mark.parametrize("attempt", range(1, 8))
@pytest.mark.parametrize("unit", [0.0, 0.3, 0.999, 1.0])
def test_next_delay_stays_within_jitter_bounds(attempt: int, unit: float) -> None:
    delay = next_retry_delay(attempt, 500, random_unit=unit)
    base = SVIX[attempt]
    assert delay is not None
    assert 0.8 * base <= delay <= 1.2 * base


@pytest.mark.parametrize("code", [200, 201, 410])
def test_no_retry_after_success_or_gone(code: int) -> None:
    assert next_retry_delay(1, code, random_unit=0.5) is None


def test_no_retry_after_the_last_attempt() -> None:
    assert next_retry_delay(8, 500, random_unit=0.5) is None
    assert next_retry_delay(7, 500, random_unit=0.5) == pytest.approx(36000)


@pytest.mark.parametrize(
    ("code", "timed_out", "expected"),
    [(429, False, 60.0), (None, True, 60.0), (500, False, 5.0), (0, False, 5.0), (503, False, 5.0)],
)
def test_overload_and_timeouts_wait_at_least_a_minute(
    code: int | None, timed_out: bool, expected: float
) -> None:
    assert next_retry_delay(1, code, random_unit=0.5, timed_out=timed_out) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("attempt", "retry_after", "expected"),
    [
        (1, 2.0, 5.0),  # shorter than scheduled: the schedule wins
        (1, 120.0, 120.0),  # longer: honoured
        (1, 999_999.0, 36_000.0),  # clamped to the ceiling
        (6, 1.0, 36_000.0),  # the schedule alone already reaches the ceiling
        (7, 50_000.0, 36_000.0),
        (2, 0.0, 300.0),
    ],
)
def test_retry_after_is_clamped_between_schedule_and_ceiling(
    attempt: int, retry_after: float, expected: float
) -> None:
    assert next_retry_delay(attempt, 503, random_unit=0.5, retry_after_seconds=retry_after) == pytest.approx(
        expected
    )


def test_retry_after_ceiling_never_shortens_a_long_scheduled_delay() -> None:
    policy = WebhookPolicy(retry_after_max_seconds=10.0)
    assert next_retry_delay(
        2, 503, random_unit=1.0, retry_after_seconds=5_000, policy=policy
    ) == pytest.approx(360)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("120", 120.0),
        (" 7 ", 7.0),
        ("Fri, 01 May 2026 12:05:00 GMT", 300.0),
        ("Fri, 01 May 2026 11:00:00 GMT", 0.0),
        ("soon", None),
        ("-5", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_retry_after(header: str | None, expected: float | None) -> None:
    assert parse_retry_after(header, now=NOW) == expected


def test_shrunk_policy_for_time_skipping_tests() -> None:
    policy = WebhookPolicy(retry_schedule_seconds=(0, 1, 2), jitter_ratio=0.0, overload_floor_seconds=0)
    assert [next_retry_delay(n, 500, random_unit=0.9, policy=policy) for n in (1, 2, 3)] == [1.0, 2.0, None]


@pytest.mark.parametrize(
    ("failing_for", "span", "exhausted", "expected"),
    [
        (None, timedelta(hours=13), 5, False),  # healthy
        (timedelta(days=5), timedelta(hours=12), 2, True),  # exact boundaries
        (timedelta(days=5) - timedelta(seconds=1), timedelta(hours=12), 2, False),
        (timedelta(days=5), timedelta(hours=12) - timedelta(seconds=1), 2, False),
        (timedelta(days=5), timedelta(hours=12), 1, False),
        (timedelta(days=9), timedelta(days=8), 40, True),
    ],
)
def test_auto_disable_boundaries(
    failing_for: timedelta | None, span: timedelta, exhausted: int, expected: bool
) -> None:
    failing_since = NOW - failing_for if failing_for is not None else None
    last_failure = (failing_since + span) if failing_since is not None else NOW
    assert (
        should_auto_disable(
            failing_since=failing_since,
            last_failure_at=last_failure,
            exhausted_since_success=exhausted,
            now=NOW,
        )
        is expected
    )


def test_auto_disable_needs_a_last_failure() -> None:
    assert not should_auto_disable(
        failing_since=NOW - timedelta(days=6), last_failure_at=None, exhausted_since_success=3, now=NOW
    )


def test_auto_disable_window_is_configurable() -> None:
    policy = WebhookPolicy(
        auto_disable_after=timedelta(seconds=2),
        auto_disable_min_exhausted=2,
        auto_disable_min_failure_span=timedelta(0),
    )
    since = NOW - timedelta(seconds=2)
    assert should_auto_disable(
        failing_since=since, last_failure_at=since, exhausted_since_success=2, now=NOW, policy=policy
    )


def figures(**kw) -> HealthFigures:
    return HealthFigures(configured=kw.pop("configured", True), **kw)


@pytest.mark.parametrize(
    ("fig", "expected"),
    [
        (figures(configured=False, enabled=False), HealthStatus.NOT_CONFIGURED),
        (
            figures(enabled=False, auto_disabled_at=NOW, deliveries_24h_total=10, success_rate_24h=1.0),
            HealthStatus.DISABLED,
        ),
        (
            figures(auto_disabled_at=NOW, deliveries_24h_total=10, success_rate_24h=1.0),
            HealthStatus.AUTO_DISABLED,
        ),
        (figures(deliveries_24h_total=0, success_rate_7d=0.2), HealthStatus.NO_DELIVERIES),
        (figures(deliveries_24h_total=3, success_rate_24h=None), HealthStatus.NO_DELIVERIES),
        (figures(deliveries_24h_total=10, success_rate_24h=0.0), HealthStatus.FAILING),
        (figures(deliveries_24h_total=10, success_rate_24h=0.0999), HealthStatus.FAILING),
        (figures(deliveries_24h_total=10, success_rate_24h=0.10), HealthStatus.DEGRADED),
        (figures(deliveries_24h_total=10, success_rate_24h=0.30), HealthStatus.DEGRADED),
        (figures(deliveries_24h_total=10, success_rate_24h=0.50), HealthStatus.DEGRADED),
        (figures(deliveries_24h_total=10, success_rate_24h=0.5001), HealthStatus.HEALTHY),
        (figures(deliveries_24h_total=1, success_rate_24h=1.0, success_rate_7d=0.0), HealthStatus.HEALTHY),
    ],
)
def test_health_status(fig: HealthFigures, expected: HealthStatus) -> None:
    assert health_status(fig) is expected


def test_every_health_status_is_reachable() -> None:
    assert {s.value for s in HealthStatus} == {
        "healthy",
        "degraded",
        "failing",
        "no_deliveries",
        "disabled",
        "auto_disabled",
        "not_configured",
    }


@pytest.mark.parametrize(
    ("previous", "current", "expected"),
    [
        ("healthy", "healthy", []),
        ("degraded", "degraded", []),
        ("auto_disabled", "auto_disabled", []),
        ("healthy", "degraded", ["webhook.degraded"]),
        ("no_deliveries", "degraded", ["webhook.degraded"]),
        (None, "degraded", ["webhook.degraded"]),
        ("healthy", "failing", ["webhook.failing"]),
        ("no_deliveries", "failing", ["webhook.failing"]),
        (None, "failing", ["webhook.failing"]),
        ("degraded", "failing", ["webhook.failing"]),
        ("failing", "degraded", []),
        ("failing", "healthy", []),
        ("degraded", "healthy", []),
        ("failing", "auto_disabled", ["webhook.disabled_auto"]),
        ("healthy", "auto_disabled", ["webhook.disabled_auto"]),
        ("auto_disabled", "no_deliveries", ["webhook.reactivated"]),
        ("auto_disabled", "healthy", ["webhook.reactivated"]),
        ("auto_disabled", "disabled", ["webhook.reactivated"]),
        ("auto_disabled", "failing", ["webhook.reactivated", "webhook.failing"]),
        ("auto_disabled", "degraded", ["webhook.reactivated", "webhook.degraded"]),
        ("healthy", "disabled", []),
        ("disabled", "healthy", []),
        ("not_configured", "no_deliveries", []),
    ],
)
def test_owner_notifications_once_per_transition(previous, current, expected) -> None:
    assert owner_notifications(previous, current) == expected


@pytest.mark.parametrize(
    ("notified_ago", "expected"),
    [
        (timedelta(hours=1), []),
        (timedelta(hours=23, minutes=59), []),
        (timedelta(hours=24), ["webhook.degraded"]),
    ],
)
def test_degraded_mail_at_most_once_a_day_when_flapping(notified_ago: timedelta, expected: list[str]) -> None:
    got = owner_notifications("healthy", "degraded", degraded_notified_at=NOW - notified_ago, now=NOW)
    assert got == expected


@pytest.mark.parametrize(
    ("notified_ago", "expected"),
    [
        (timedelta(hours=1), []),
        (timedelta(hours=23, minutes=59), []),
        (timedelta(hours=24), ["webhook.failing"]),
    ],
)
def test_failing_mail_at_most_once_a_day_when_flapping(notified_ago: timedelta, expected: list[str]) -> None:
    got = owner_notifications("degraded", "failing", failing_notified_at=NOW - notified_ago, now=NOW)
    assert got == expected


def test_the_two_band_notices_are_rate_limited_apart() -> None:
    """A recent degraded mail does not hold back the first failing one, nor the other way round."""
    assert owner_notifications(
        "healthy", "failing", degraded_notified_at=NOW - timedelta(hours=1), now=NOW
    ) == ["webhook.failing"]
    assert owner_notifications(
        "healthy", "degraded", failing_notified_at=NOW - timedelta(hours=1), now=NOW
    ) == ["webhook.degraded"]


def test_failing_is_critical_and_degraded_a_warning() -> None:
    assert NOTIFICATION_SEVERITY["webhook.failing"] == "critical"
    assert NOTIFICATION_SEVERITY["webhook.degraded"] == "warning"


@pytest.mark.parametrize(
    ("warned_ago", "step"),
    [
        (None, DisableStep.WARN),
        (timedelta(0), DisableStep.WAIT),
        (timedelta(hours=23, minutes=59), DisableStep.WAIT),
        (timedelta(hours=24), DisableStep.DISABLE),
        (timedelta(days=3), DisableStep.DISABLE),
    ],
)
def test_a_webhook_is_disabled_only_a_day_after_its_owner_was_warned(warned_ago, step):
    now = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
    warned_at = None if warned_ago is None else now - warned_ago
    assert next_disable_step(warned_at=warned_at, now=now) is step
    short = WebhookPolicy(auto_disable_warning=timedelta(0))
    assert next_disable_step(warned_at=warned_at, now=now, policy=short) is (
        DisableStep.WARN if warned_ago is None else DisableStep.DISABLE
    )
