"""The attempt log, recovery and resend (docs/webhooks.md, "The attempt log" and "Recovering deliveries").

Reads need any key of the tenant; recover and resend need the owner or admin role. Another tenant's
webhook, delivery or recovery is a 404.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field

from switchboard.activities.webhooks.types import RecoveryInput, RecoveryProgress, ResendRef, recovery_memo
from switchboard.activities.workflow_starts import read_recovery, start_recovery
from switchboard.api.deps import Caller, OwnerOrAdmin, Session, State
from switchboard.api.pagination import Paging, envelope
from switchboard.api.routing import JsonRoute
from switchboard.api.time_filters import time_bound
from switchboard.domain.errors import Conflict, NotFound, ValidationFailed
from switchboard.domain.events import ALL_EVENT_KINDS
from switchboard.models.base import iso_millis, new_id, utcnow
from switchboard.models.events import WebhookAttempt, WebhookEndpoint
from switchboard.store.webhooks import recovery
from switchboard.store.webhooks.deliveries import is_active
from switchboard.store.webhooks.delivery_log import (
    DeliveryFilters,
    LoggedDelivery,
    delivery_with_attempts,
    list_deliveries,
)
from switchboard.store.webhooks.endpoints import get_webhook

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


class RecoverRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    since: str = Field(description="ISO date or datetime: deliveries that ended failed from then on")
    until: str | None = Field(default=None, description="ISO date or datetime; omitted: now")


def _active(webhook: WebhookEndpoint) -> WebhookEndpoint:
    if not is_active(webhook):
        raise Conflict(
            "this webhook is disabled; enable or reactivate it before resending to it",
            code="WEBHOOK_DISABLED",
            details={"field": "enabled"},
        )
    return webhook


def recovery_public(recovery_id: str, memo: dict[str, Any], status: str) -> dict[str, Any]:
    """A recovery as the API shows it: its terms and progress from the workflow's memo.

    ``status``: running, completed, or failed (the workflow failed or was stopped by an operator).
    """
    progress = RecoveryProgress.model_validate(memo.get("progress") or {"total": 0})
    return {
        "id": recovery_id,
        "webhook_id": memo.get("webhook_id"),
        "since": _iso(memo.get("since")),
        "until": _iso(memo.get("until")),
        "delivery_ids": list(memo.get("delivery_ids") or []),
        "status": status if status in ("running", "completed") else "failed",
        "total": progress.total,
        "done": progress.done,
        "succeeded": progress.succeeded,
        "failed": progress.failed,
        "pending": progress.pending,
    }


def _iso(value: Any) -> str | None:
    return iso_millis(datetime.fromisoformat(value)) if isinstance(value, str) else None


async def _start(state: State, recovery_input: RecoveryInput) -> dict[str, Any]:
    await start_recovery(state.temporal, recovery_input, task_queue=state.settings.temporal_task_queue)
    memo = recovery_memo(recovery_input, recovery_input.progress)
    return recovery_public(recovery_input.recovery_id, memo, "running")


@router.post("/v1/webhooks/{webhook_id}/recover", status_code=202)
async def recover_webhook(
    webhook_id: str, body: RecoverRequest, who: OwnerOrAdmin, session: Session, state: State
) -> dict[str, Any]:
    """Resend every delivery of this webhook that ended failed in [since, until), each once."""
    now = utcnow()
    since = time_bound(body.since, field="since", end_of_day=False)
    until = time_bound(body.until, field="until", end_of_day=True) if body.until else now
    assert since is not None and until is not None
    until = min(until, now)
    if since >= until:
        raise ValidationFailed(
            "since must be before until (and before now)",
            code="VALIDATION_FAILED",
            details={"field": "since", "since": body.since, "until": body.until},
        )
    webhook = _active(await get_webhook(session, who.tenant_id, webhook_id))
    total = await recovery.count_failed(session, webhook.id, since=since, until=until)
    return await _start(
        state,
        RecoveryInput(
            recovery_id=new_id("rcv", at=now),
            tenant_id=who.tenant_id,
            webhook_id=webhook.id,
            since=since,
            until=until,
            progress=RecoveryProgress(total=total),
        ),
    )


@router.post("/v1/webhook-deliveries/{delivery_id}/resend", status_code=202)
async def resend_delivery(
    delivery_id: str, who: OwnerOrAdmin, session: Session, state: State
) -> dict[str, Any]:
    """Resend one settled delivery now, under its own delivery_id."""
    target, webhook_id = await recovery.resend_target(session, who.tenant_id, delivery_id)
    webhook = _active(await get_webhook(session, who.tenant_id, webhook_id))
    return await _start(
        state,
        RecoveryInput(
            recovery_id=new_id("rcv", at=utcnow()),
            tenant_id=who.tenant_id,
            webhook_id=webhook.id,
            deliveries=[ResendRef(delivery_id=target.delivery_id, attempts=target.attempts)],
            progress=RecoveryProgress(total=1),
        ),
    )


@router.get("/v1/webhook-recoveries/{recovery_id}")
async def get_webhook_recovery(recovery_id: str, who: Caller, state: State) -> dict[str, Any]:
    """A recovery's progress: done, succeeded, failed and pending, and whether it has completed."""
    found = await read_recovery(state.temporal, tenant_id=who.tenant_id, recovery_id=recovery_id)
    if found is None:
        raise NotFound("webhook recovery", recovery_id)
    memo, status = found
    return recovery_public(recovery_id, memo, status)
