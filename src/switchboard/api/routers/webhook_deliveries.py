"""The attempt log: a webhook's deliveries and each delivery's attempts (docs/webhooks.md, "The attempt log").

Reads need any key of the tenant. Another tenant's webhook or delivery is a 404.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from switchboard.api.deps import Caller, Session
from switchboard.api.pagination import Paging, envelope
from switchboard.api.routing import JsonRoute
from switchboard.api.time_filters import time_bound
from switchboard.domain.errors import ValidationFailed
from switchboard.domain.events import ALL_EVENT_KINDS
from switchboard.models.base import iso_millis
from switchboard.models.events import WebhookAttempt
from switchboard.store.webhooks.delivery_log import (
    DeliveryFilters,
    LoggedDelivery,
    delivery_with_attempts,
    list_deliveries,
)

# A delivery's statuses: pending while its run retries, then how it settled.
DELIVERY_STATUSES = ("pending", "succeeded", "failed", "gone", "canceled")

router = APIRouter(tags=["webhooks"], route_class=JsonRoute)


def attempt_public(attempt: WebhookAttempt) -> dict[str, Any]:
    """One HTTP attempt as the log shows it."""
    return {
        "attempt": attempt.attempt,
        "attempted_at": iso_millis(attempt.attempted_at),
        "success": attempt.success,
        "status_code": attempt.status_code,
        "latency_ms": attempt.latency_ms,
        "response_body": attempt.response_body,
        "error": attempt.error,
    }


def delivery_public(logged: LoggedDelivery) -> dict[str, Any]:
    """A delivery as the log lists it, with its latest attempt."""
    delivery = logged.delivery
    return {
        "id": delivery.id,
        "webhook_id": delivery.webhook_id,
        "event_id": delivery.event_id,
        "event": logged.event_kind,
        "occurred_at": iso_millis(logged.occurred_at),
        "status": delivery.status,
        "attempt_count": delivery.attempts,
        "created_at": iso_millis(delivery.created_at),
        "completed_at": iso_millis(delivery.completed_at) if delivery.completed_at else None,
        "last_attempt": attempt_public(logged.last_attempt) if logged.last_attempt else None,
    }


def _one_of(value: str | None, allowed: tuple[str, ...], *, field: str) -> str | None:
    if value is not None and value not in allowed:
        raise ValidationFailed(
            f"{field} must be one of {', '.join(allowed)}",
            code="VALIDATION_FAILED",
            details={"field": field, "value": value, "allowed": list(allowed)},
        )
    return value


@router.get("/v1/webhooks/{webhook_id}/deliveries")
async def list_webhook_deliveries(
    webhook_id: str,
    who: Caller,
    session: Session,
    paging: Paging,
    status: Annotated[str | None, Query(description="pending, succeeded, failed, gone or canceled")] = None,
    event: Annotated[str | None, Query(description="an event kind, e.g. channel.message.received")] = None,
    since: Annotated[
        str | None, Query(description="ISO date or datetime: deliveries created from then on")
    ] = None,
) -> dict[str, Any]:
    """The webhook's deliveries, newest first, each with its latest attempt."""
    filters = DeliveryFilters(
        status=_one_of(status, DELIVERY_STATUSES, field="status"),
        event=_one_of(event, ALL_EVENT_KINDS, field="event"),
        since=time_bound(since, field="since", end_of_day=False),
    )
    rows, total = await list_deliveries(
        session, who.tenant_id, webhook_id, filters, page=paging.page, per_page=paging.per_page
    )
    return envelope([delivery_public(row) for row in rows], paging=paging, total=total)


@router.get("/v1/webhook-deliveries/{delivery_id}")
async def get_webhook_delivery(delivery_id: str, who: Caller, session: Session) -> dict[str, Any]:
    """One delivery with every attempt, oldest first."""
    logged, attempts = await delivery_with_attempts(session, who.tenant_id, delivery_id)
    return {**delivery_public(logged), "attempts": [attempt_public(a) for a in attempts]}
