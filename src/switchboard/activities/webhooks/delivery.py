"""Webhook delivery activities: attempt one POST, settle the delivery, alert the owner.

HTTP outcomes are returned, never raised: every attempt is recorded exactly
once and the workflow owns the retry schedule. Only infrastructure failures
(the database) raise, and Temporal retries those. The webhook's secrets are
opened here and never enter workflow history.
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio import activity

from switchboard import metrics
from switchboard.activities.deps import ActivityDeps
from switchboard.activities.webhooks.config import WebhookConfig
from switchboard.activities.webhooks.http import PostOutcome, delivery_headers, envelope_body, post_once
from switchboard.activities.webhooks.types import (
    AttemptInput,
    AttemptResult,
    DeliveryOutcome,
    FinishInput,
    FinishResult,
)
from switchboard.domain.webhook_policy import (
    NOTIFY_DEGRADED,
    NOTIFY_DISABLED_AUTO,
    NOTIFY_FAILING,
    DisableStep,
    HealthStatus,
    is_success,
    next_disable_step,
    owner_notifications,
    parse_retry_after,
    should_auto_disable,
)
from switchboard.models.base import iso_millis
from switchboard.models.events import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from switchboard.store.database import reads_on_loop, unit_of_work, write_turn
from switchboard.store.webhooks import deliveries, health, notifications
from switchboard.store.webhooks.endpoints import signing_secrets

log = logging.getLogger("switchboard.webhooks")

_UNHEALTHY = {HealthStatus.DEGRADED.value, HealthStatus.FAILING.value}


def _skips_health(seen: WebhookEndpoint, *, success: bool) -> bool:
    """A success on a webhook that was healthy when its attempt loaded it: no health to evaluate."""
    return success and seen.health_state not in _UNHEALTHY


def _result_of(row: WebhookAttempt) -> AttemptResult:
    return AttemptResult(
        success=row.success,
        status_code=row.status_code,
        latency_ms=row.latency_ms,
        error=row.error,
        timed_out=bool(row.error and row.error.startswith("timeout")),
    )


class WebhookDeliveryActivities:
    """Activities of the DeliverWebhook workflow."""

    def __init__(self, deps: ActivityDeps, config: WebhookConfig) -> None:
        self._deps = deps
        self._config = config

    @activity.defn(name="webhooks.attempt_delivery")
    async def attempt_delivery(self, request: AttemptInput) -> AttemptResult:
        """POST the envelope once and record the outcome (or return the one already recorded)."""
        # Reads only, by keys: no transaction needed, and on SQLite they run on the event loop.
        async with self._deps.statement_sessions() as session:
            with reads_on_loop(self._deps.statement_sessions):
                context = await deliveries.load_delivery(session, request.delivery_id)
                # record_attempt moves the delivery's count with the attempt row: a lower count means none yet.
                if context is not None and context.delivery.attempts >= request.attempt:
                    recorded = await deliveries.recorded_attempt(
                        session, request.delivery_id, request.attempt
                    )
                    if recorded is not None:
                        return _result_of(recorded)
        if (
            context is None
            or context.webhook is None
            or not deliveries.is_active(context.webhook)
            or context.delivery.status != deliveries.PENDING
        ):
            return AttemptResult(stopped=True)
        outcome = await self._post(
            context.webhook, context.event.kind, context.event.payload, request.delivery_id
        )
        success = is_success(outcome.status_code)
        sessions = self._record_sessions(context.webhook, success=success)
        # On SQLite, the record takes its turn with this process's other writers (store/database.py).
        async with write_turn(sessions), unit_of_work(sessions) as session:
            recorded_now = await deliveries.record_attempt(
                session,
                delivery_id=request.delivery_id,
                attempt=request.attempt,
                success=success,
                status_code=outcome.status_code,
                latency_ms=outcome.latency_ms,
                error=outcome.error,
                at=request.at,
                response_body=outcome.response_body,
            )
            if recorded_now is None:
                recorded = await deliveries.recorded_attempt(session, request.delivery_id, request.attempt)
                return _result_of(recorded) if recorded else AttemptResult(stopped=True)
            notes = await self._evaluate_health(
                session,
                context.webhook,
                at=request.at,
                success=success,
                trigger=f"{request.delivery_id}:{request.attempt}",
            )
        # Counted once: a retried activity finds the attempt recorded and returns above.
        metrics.count_webhook_attempt(success=success, attempt=request.attempt, latency_ms=outcome.latency_ms)
        return AttemptResult(
            settled=recorded_now.settled,
            success=success,
            status_code=outcome.status_code,
            latency_ms=outcome.latency_ms,
            error=outcome.error,
            timed_out=outcome.timed_out,
            notification_ids=notes,
            retry_after_seconds=parse_retry_after(outcome.retry_after, now=datetime.now(UTC)),
        )

    def _record_sessions(self, seen: WebhookEndpoint, *, success: bool) -> async_sessionmaker[AsyncSession]:
        """Where an attempt's record is written: alone, where it is one statement and nothing joins it.

        A success on a webhook healthy when loaded (the common case) evaluates no health, so on
        PostgreSQL its record, one statement there, commits by itself on the autocommit engine.
        Anything else shares one transaction with the health evaluation that follows.
        """
        statement_sessions = self._deps.statement_sessions
        dialect = statement_sessions.kw["bind"].dialect.name
        if _skips_health(seen, success=success) and deliveries.records_at_once(dialect):
            return statement_sessions
        return self._deps.sessions

    async def _post(
        self, webhook: WebhookEndpoint, kind: str, payload: dict, delivery_id: str
    ) -> PostOutcome:
        settings = self._deps.settings
        body = envelope_body(payload, delivery_id)
        # Each attempt is signed at its own time, so a receiver's freshness window holds for retries.
        now = time.time()
        secrets = signing_secrets(settings.secrets_key_bytes, webhook, now=datetime.fromtimestamp(now, UTC))
        headers = delivery_headers(
            body, secrets=secrets, event_kind=kind, delivery_id=delivery_id, timestamp=int(now)
        )
        return await post_once(
            self._deps.egress_http,
            webhook.url,
            body=body,
            headers=headers,
            limit_seconds=self._config.policy.request_timeout_seconds,
        )

    async def _evaluate_health(
        self, session: AsyncSession, seen: WebhookEndpoint, *, at: datetime, success: bool, trigger: str
    ) -> list[str]:
        """Raise webhook.degraded or webhook.failing once when the webhook's health enters that band.

        ``seen`` is the webhook as the attempt loaded it just before posting. A success on a webhook
        that was healthy then is the common case and needs no evaluation, so it reads nothing; a
        webhook that turned unhealthy during that one POST is evaluated at its next attempt.
        """
        if _skips_health(seen, success=success):
            return []
        config = self._config
        webhook_id = seen.id
        webhook = await session.get(WebhookEndpoint, webhook_id, populate_existing=True)
        if webhook is None or not deliveries.is_active(webhook):
            return []
        if success and webhook.health_state not in _UNHEALTHY:
            return []
        if not await health.claim_health_check(
            session, webhook_id, at=at, interval=config.health_check_interval
        ):
            return []
        stats = (await health.attempt_stats(session, [webhook_id], now=at, last_times=False))[webhook_id]
        if stats.total_24h < config.alert_min_attempts:
            return []
        previous, current = webhook.health_state, health.webhook_status(webhook, stats, policy=config.policy)
        if previous == current.value:
            return []
        if not await health.swap_health_state(session, webhook_id, previous=previous, current=current.value):
            return []
        kinds = owner_notifications(
            previous,
            current,
            degraded_notified_at=await notifications.last_notified_at(session, webhook_id, NOTIFY_DEGRADED),
            failing_notified_at=await notifications.last_notified_at(session, webhook_id, NOTIFY_FAILING),
            now=at,
            policy=config.policy,
        )
        ids = []
        for kind in (k for k in kinds if k in (NOTIFY_DEGRADED, NOTIFY_FAILING)):
            detail = (
                f"{stats.ok_24h} of {stats.total_24h} attempts succeeded over 24 h (status {current.value})"
            )
            note = await notifications.record_notification(
                session,
                webhook,
                kind=kind,
                at=at,
                transition_key=f"{kind}:{webhook_id}:{trigger}",
                detail=detail,
            )
            ids += [note] if note else []
            log.warning(
                "webhook health alert",
                extra={"webhook_id": webhook_id, "tenant_id": webhook.tenant_id, "kind": kind},
            )
        return ids

    async def _warn_before_disabling(
        self, session: AsyncSession, webhook: WebhookEndpoint, at: datetime
    ) -> list[str]:
        """The owner's warning of a failing spell that meets the disable rule: a webhook.failing notice
        naming when the disable comes (not before ``auto_disable_warning``) unless a delivery succeeds."""
        assert webhook.failing_since is not None
        disable_from = at + self._config.policy.auto_disable_warning
        note = await notifications.record_notification(
            session,
            webhook,
            kind=NOTIFY_FAILING,
            at=at,
            transition_key=f"{NOTIFY_FAILING}:{webhook.id}:before-disable:{iso_millis(webhook.failing_since)}",
            detail=(
                f"no successful delivery since {iso_millis(webhook.failing_since)}; it will be disabled "
                f"automatically from {iso_millis(disable_from)} unless a delivery succeeds before then"
            ),
        )
        log.warning("webhook warned before auto-disable", extra={"webhook_id": webhook.id})
        return [note] if note else []

    @activity.defn(name="webhooks.finish_delivery")
    async def finish_delivery(self, request: FinishInput) -> FinishResult:
        """Settle the delivery; auto-disable on 410 or when the failure window has passed."""
        policy = self._config.policy
        async with unit_of_work(self._deps.sessions) as session:
            if not await deliveries.settle_delivery(
                session, request.delivery_id, status=request.outcome, at=request.at
            ):
                return FinishResult()
            delivery = await session.get(WebhookDelivery, request.delivery_id)
            if delivery is None:  # settled just above in this transaction: not reached
                return FinishResult()
            reason = None
            if request.outcome is DeliveryOutcome.GONE:
                reason = "the endpoint answered 410 Gone"
            elif request.outcome is DeliveryOutcome.FAILED:
                webhook = await deliveries.count_exhausted(session, delivery.webhook_id)
                if (
                    webhook is not None
                    and webhook.failing_since is not None
                    and deliveries.is_active(webhook)
                    and should_auto_disable(
                        failing_since=webhook.failing_since,
                        last_failure_at=webhook.last_failure_at,
                        exhausted_since_success=webhook.exhausted_since_success,
                        now=request.at,
                        policy=policy,
                    )
                ):
                    warned_at = await notifications.last_warned_at(
                        session, webhook.id, since=webhook.failing_since
                    )
                    step = next_disable_step(warned_at=warned_at, now=request.at, policy=policy)
                    if step is DisableStep.WARN:
                        return FinishResult(
                            notification_ids=await self._warn_before_disabling(session, webhook, request.at)
                        )
                    if step is DisableStep.DISABLE:
                        reason = f"no successful delivery since {iso_millis(webhook.failing_since)}"
            disabled = reason and await deliveries.auto_disable(
                session, delivery.webhook_id, reason=reason, at=request.at
            )
            if not disabled:
                return FinishResult()
            note = await notifications.record_notification(
                session,
                disabled,
                kind=NOTIFY_DISABLED_AUTO,
                at=request.at,
                detail=reason,
                transition_key=f"{NOTIFY_DISABLED_AUTO}:{disabled.id}:{iso_millis(request.at)}",
            )
        log.warning("webhook auto-disabled", extra={"webhook_id": disabled.id, "reason": reason})
        return FinishResult(auto_disabled=True, notification_ids=[note] if note else [])
