"""Tenant webhooks: CRUD, test dispatch, reactivation, secret rotation and health by phone (CONTRACTS 5).

Reads need any key of the tenant; changes need the owner or admin role.
Another tenant's webhook is a 404 everywhere.
"""

from __future__ import annotations

import ipaddress
import logging
from datetime import timedelta
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field

from switchboard.activities.webhooks.config import config_from_settings
from switchboard.activities.workflow_starts import dispatch_events, start_owner_notification
from switchboard.api.deps import Caller, OwnerOrAdmin, Session, State
from switchboard.api.pagination import Paging, envelope
from switchboard.api.routing import JsonRoute
from switchboard.domain.errors import Conflict, ValidationFailed
from switchboard.domain.events import ALL_EVENT_KINDS, WEBHOOK_TEST, expand_groups, webhook_test_event
from switchboard.models.base import iso_millis, utcnow
from switchboard.models.events import WebhookEndpoint
from switchboard.settings import MAX_SECRET_OVERLAP_SECONDS
from switchboard.store.database import unit_of_work
from switchboard.store.events import record_event
from switchboard.store.webhooks import endpoints, health
from switchboard.store.webhooks.deliveries import delivery_id_for, is_active

log = logging.getLogger("switchboard.api.webhooks")
_INVALID = "VALIDATION_FAILED"
router = APIRouter(prefix="/v1/webhooks", tags=["webhooks"], route_class=JsonRoute)


class WebhookCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(min_length=1, max_length=2048)
    events: list[str] | None = Field(default=None, description="event kinds or picker groups; omitted: all")
    phone_number_id: str | None = Field(default=None, description="deliver only this number's events")
    description: str | None = Field(default=None, max_length=500)


class WebhookUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str | None = Field(default=None, min_length=1, max_length=2048)
    events: list[str] | None = None
    phone_number_id: str | None = None
    description: str | None = Field(default=None, max_length=500)
    enabled: bool | None = None


class SecretRotation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    overlap_seconds: int | None = Field(
        default=None,
        ge=0,
        le=MAX_SECRET_OVERLAP_SECONDS,
        description="how long the replaced secret keeps signing beside the new one; "
        "0 stops it at once; omitted: WEBHOOK_SECRET_OVERLAP_SECONDS (24 h)",
    )


def check_url(url: str, *, allow_private: bool) -> str:
    """https anywhere public; http (or private addresses) only on loopback when private egress is allowed."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower()
    if parts.scheme not in ("https", "http") or not host:
        raise ValidationFailed(
            "url must be an absolute https URL", code=_INVALID, details={"field": "url", "value": url}
        )
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    loopback = host == "localhost" or host.endswith(".localhost") or bool(address and address.is_loopback)
    private = loopback or bool(address and not address.is_global)
    if parts.scheme == "http" and not (allow_private and loopback):
        raise ValidationFailed("url must use https", code=_INVALID, details={"field": "url", "value": url})
    if private and not allow_private:
        raise ValidationFailed(
            "url must point at a public host",
            code=_INVALID,
            details={"field": "url", "value": url, "reason": "private address"},
        )
    return url.strip()


def check_events(events: list[str] | None) -> list[str] | None:
    """Expand picker groups; None subscribes to every kind, an empty list is a 400."""
    if events is None:
        return None
    if not events:
        raise ValidationFailed(
            "events must name at least one kind or group; omit it (or send null) for all events",
            code=_INVALID,
            details={"field": "events", "allowed": list(ALL_EVENT_KINDS)},
        )
    try:
        return expand_groups(events)
    except ValidationFailed as exc:
        raise ValidationFailed(exc.message, code=_INVALID, details=exc.details) from None


def webhook_public(webhook: WebhookEndpoint) -> dict[str, Any]:
    """A webhook as the API shows it (never its secret)."""
    return {
        "id": webhook.id,
        "url": webhook.url,
        "description": webhook.description,
        "events": list(webhook.events) if webhook.events else list(ALL_EVENT_KINDS),
        "all_events": not webhook.events,
        "phone_number_id": webhook.phone_number_id,
        "enabled": webhook.enabled,
        "auto_disabled_at": iso_millis(webhook.auto_disabled_at) if webhook.auto_disabled_at else None,
        "auto_disabled_reason": webhook.auto_disabled_reason,
        "previous_secret_expires_at": (
            iso_millis(webhook.previous_secret_expires_at) if webhook.previous_secret_expires_at else None
        ),
        "created_at": iso_millis(webhook.created_at),
        "updated_at": iso_millis(webhook.updated_at),
    }


@router.post("", status_code=201)
async def create_webhook(
    body: WebhookCreate, who: OwnerOrAdmin, session: Session, state: State
) -> dict[str, Any]:
    """Create a webhook; the response carries its signing secret, shown only here."""
    webhook, secret = await endpoints.create_webhook(
        session,
        who.tenant_id,
        url=check_url(body.url, allow_private=state.settings.tool_egress_allow_private),
        events=check_events(body.events),
        phone_number_id=body.phone_number_id,
        description=body.description,
        secrets_key=state.settings.secrets_key_bytes,
        now=utcnow(),
    )
    return {**webhook_public(webhook), "secret": secret}


@router.get("")
async def list_webhooks(
    who: Caller, session: Session, paging: Paging, phone_number_id: str | None = None
) -> dict[str, Any]:
    """List the tenant's webhooks (optionally those filtered to one number)."""
    rows, total = await endpoints.list_webhooks(
        session, who.tenant_id, page=paging.page, per_page=paging.per_page, phone_number_id=phone_number_id
    )
    return envelope([webhook_public(r) for r in rows], paging=paging, total=total)


@router.get("/health-by-phone")
async def health_by_phone(
    who: Caller, session: Session, state: State, phone_number_id: Annotated[str, Query()]
) -> dict[str, Any]:
    """Delivery health of the webhooks covering one of the tenant's numbers."""
    policy = config_from_settings(state.settings).policy
    return await health.phone_health(session, who.tenant_id, phone_number_id, now=utcnow(), policy=policy)


@router.get("/{webhook_id}")
async def get_webhook(webhook_id: str, who: Caller, session: Session) -> dict[str, Any]:
    """One webhook, with its nullable auto-disable state."""
    return webhook_public(await endpoints.get_webhook(session, who.tenant_id, webhook_id))


@router.patch("/{webhook_id}")
async def update_webhook(
    webhook_id: str, body: WebhookUpdate, who: OwnerOrAdmin, session: Session, state: State
) -> dict[str, Any]:
    """Change url, events, phone_number_id, description or the manual enabled switch."""
    changes = {field: getattr(body, field) for field in body.model_fields_set}
    for field in ("url", "enabled"):
        if field in changes and changes[field] is None:
            raise ValidationFailed(f"{field} cannot be null", code=_INVALID, details={"field": field})
    if "url" in changes:
        changes["url"] = check_url(changes["url"], allow_private=state.settings.tool_egress_allow_private)
    if "events" in changes:
        changes["events"] = check_events(changes["events"])
    webhook = await endpoints.update_webhook(session, who.tenant_id, webhook_id, changes, now=utcnow())
    return webhook_public(webhook)


@router.delete("/{webhook_id}")
async def delete_webhook(webhook_id: str, who: OwnerOrAdmin, session: Session) -> dict[str, Any]:
    """Remove a webhook; its pending retries stop."""
    await endpoints.delete_webhook(session, who.tenant_id, webhook_id)
    return {"id": webhook_id, "deleted": True}


@router.post("/{webhook_id}/test", status_code=202)
async def test_webhook(webhook_id: str, who: Caller, state: State) -> dict[str, Any]:
    """Dispatch a webhook.test event to this webhook only, through the normal delivery path."""
    now = utcnow()
    async with unit_of_work(state.sessions) as session:
        webhook = await endpoints.get_webhook(session, who.tenant_id, webhook_id)
        if not is_active(webhook):
            raise Conflict(
                "this webhook is disabled; enable or reactivate it before testing",
                code="WEBHOOK_DISABLED",
                details={"field": "enabled"},
            )
        payload = webhook_test_event(
            tenant_id=who.tenant_id,
            webhook_id=webhook.id,
            phone_number_id=webhook.phone_number_id,
            delivery_id="",
            occurred_at=now,
        )
        payload.pop("delivery_id")
        event = await record_event(
            session,
            tenant_id=who.tenant_id,
            kind=WEBHOOK_TEST,
            payload=payload,
            occurred_at=now,
            phone_number_id=webhook.phone_number_id,
        )
    await dispatch_events(state.temporal, task_queue=state.settings.temporal_task_queue, event_ids=[event.id])
    return {
        "event": WEBHOOK_TEST,
        "event_id": event.id,
        "webhook_id": webhook.id,
        "delivery_id": delivery_id_for(event.id, webhook.id),
    }


@router.post("/{webhook_id}/reactivate")
async def reactivate_webhook(webhook_id: str, who: OwnerOrAdmin, state: State) -> dict[str, Any]:
    """Clear the auto-disabled state (409 when not auto-disabled); a manual disable stays."""
    async with unit_of_work(state.sessions) as session:
        webhook, notification_id = await endpoints.reactivate_webhook(
            session, who.tenant_id, webhook_id, now=utcnow()
        )
    if notification_id:
        # Mailed by a worker: the request never waits on SMTP, and a crash loses nothing.
        await start_owner_notification(
            state.temporal, task_queue=state.settings.temporal_task_queue, notification_id=notification_id
        )
    return webhook_public(webhook)


@router.post("/{webhook_id}/rotate-secret")
async def rotate_secret(
    webhook_id: str, who: OwnerOrAdmin, state: State, body: SecretRotation | None = None
) -> dict[str, Any]:
    """Issue a new signing secret, shown only here; the replaced one signs beside it for the overlap."""
    settings = state.settings
    overlap = body.overlap_seconds if body and body.overlap_seconds is not None else None
    now = utcnow()
    async with unit_of_work(state.sessions) as session:
        webhook, secret = await endpoints.rotate_secret(
            session,
            who.tenant_id,
            webhook_id,
            overlap=timedelta(
                seconds=settings.webhook_secret_overlap_seconds if overlap is None else overlap
            ),
            secrets_key=settings.secrets_key_bytes,
            now=now,
        )
    log.info("webhook secret rotated", extra={"webhook_id": webhook.id, "tenant_id": who.tenant_id})
    return {**webhook_public(webhook), "secret": secret}
