"""Owner notifications: the tenant's own settings (where they go) and what was sent.

Webhook alerts (webhook.disabled_auto, webhook.degraded, webhook.failing, webhook.reactivated)
go by email to the tenant's notification_email; owners and admins set it here
(operators can also set it with PATCH /v1/admin/tenants/{id}). Every
notification is stored whether or not it could be mailed, and listed here.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from switchboard.api.deps import Caller, OwnerOrAdmin, Session
from switchboard.api.pagination import Paging, envelope
from switchboard.api.routing import JsonRoute
from switchboard.models.base import iso_millis, utcnow
from switchboard.models.events import OwnerNotification
from switchboard.store import tenancy
from switchboard.store.pagination import paginate
from switchboard.store.scoping import owned

router = APIRouter(prefix="/v1", tags=["owner notifications"], route_class=JsonRoute)


class NotificationSettings(BaseModel):
    notification_email: str | None


class NotificationSettingsUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # null stops the mails (notifications are still stored and listed).
    notification_email: str | None = Field(pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$", max_length=320)


class NotificationPublic(BaseModel):
    id: str
    kind: str
    severity: str
    webhook_id: str | None
    recipient: str | None
    subject: str
    body: str
    delivery: str
    created_at: str
    sent_at: str | None

    @classmethod
    def of(cls, n: OwnerNotification) -> NotificationPublic:
        return cls(
            id=n.id,
            kind=n.kind,
            severity=n.severity,
            webhook_id=n.webhook_id,
            recipient=n.recipient,
            subject=n.subject,
            body=n.body,
            delivery=n.delivery,
            created_at=iso_millis(n.created_at),
            sent_at=iso_millis(n.sent_at) if n.sent_at else None,
        )


@router.get("/notification-settings")
async def get_settings(who: Caller, session: Session) -> NotificationSettings:
    """Where owner notifications are mailed."""
    tenant = await tenancy.get_tenant(session, who.tenant_id)
    return NotificationSettings(notification_email=tenant.notification_email)


@router.patch("/notification-settings")
async def update_settings(
    body: NotificationSettingsUpdate, who: OwnerOrAdmin, session: Session
) -> NotificationSettings:
    """Change where owner notifications are mailed (owner or admin)."""
    tenant = await tenancy.get_tenant(session, who.tenant_id)
    tenant.notification_email = body.notification_email
    tenant.updated_at = utcnow()
    return NotificationSettings(notification_email=tenant.notification_email)


@router.get("/notifications")
async def list_notifications(who: Caller, session: Session, paging: Paging) -> dict[str, Any]:
    """Owner notifications raised for this tenant, newest first, with how each was delivered."""
    stmt = owned(OwnerNotification, who.tenant_id).order_by(OwnerNotification.created_at.desc())  # type: ignore[attr-defined]
    rows, total = await paginate(session, stmt, page=paging.page, per_page=paging.per_page)
    return envelope([NotificationPublic.of(r) for r in rows], paging=paging, total=total)
