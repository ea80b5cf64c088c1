"""Tenant webhook delivery: activities, their configuration and payloads."""

from __future__ import annotations

from typing import Any

from switchboard.activities.deps import ActivityDeps
from switchboard.activities.notifications import NotificationActivities
from switchboard.activities.webhooks.config import WebhookConfig, config_from_settings
from switchboard.activities.webhooks.delivery import WebhookDeliveryActivities
from switchboard.activities.webhooks.dispatching import WebhookDispatchActivities
from switchboard.activities.webhooks.recovery import WebhookRecoveryActivities


def build_webhook_activities(deps: ActivityDeps, config: WebhookConfig | None = None) -> list[Any]:
    """Every webhook and owner-notification activity, configured from settings unless given."""
    config = config or config_from_settings(deps.settings)
    dispatch = WebhookDispatchActivities(deps, config)
    delivery = WebhookDeliveryActivities(deps, config)
    recovery = WebhookRecoveryActivities(deps, delivery)
    return [
        dispatch.plan_deliveries,
        dispatch.start_deliveries,
        dispatch.mark_dispatched,
        dispatch.sweep_outbox,
        delivery.attempt_delivery,
        delivery.finish_delivery,
        recovery.recovery_page,
        recovery.resend_delivery,
        NotificationActivities(deps).send_owner_notification,
    ]
