"""SQL for tenant webhook endpoints: create, read, update, delete, reactivate, rotate the secret.

The signing secret is generated here and stored only sealed (AES-256-GCM,
associated data the webhook id), so no caller can store it in clear by
mistake; the plaintext is returned once, to the create or rotate call.
"""

from __future__ import annotations

import base64
import secrets
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from switchboard.domain.errors import Conflict
from switchboard.domain.secrets_box import open_sealed, seal
from switchboard.domain.webhook_policy import NOTIFY_REACTIVATED
from switchboard.models.base import iso_millis, new_id
from switchboard.models.events import WebhookEndpoint
from switchboard.models.tenancy import PhoneNumber
from switchboard.store.messages import phone_for_send
from switchboard.store.pagination import paginate
from switchboard.store.scoping import get_owned, owned
from switchboard.store.webhooks.notifications import record_notification

SECRET_PREFIX = "whsec_"
RESOURCE = "webhook"


def new_secret() -> str:
    """A fresh signing secret: ``whsec_`` + 32 random bytes in standard base64.

    The standard alphabet is the one the Standard Webhooks libraries decode the key from; the whole
    string is also the ``X-Service-Signature`` key, as it always was.
    """
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


def open_secret(key: bytes, webhook: WebhookEndpoint) -> str:
    """The webhook's current signing secret in clear."""
    return open_sealed(key, webhook.secret_encrypted, associated_data=webhook.id)


def signing_secrets(key: bytes, webhook: WebhookEndpoint, *, now: datetime) -> list[str]:
    """Every secret that signs a delivery now: the one a rotation replaced (until its overlap
    ends), then the current one. Only the delivery activity needs them in clear."""
    current = open_secret(key, webhook)
    expires = webhook.previous_secret_expires_at
    if webhook.previous_secret_encrypted is None or expires is None or expires <= now:
        return [current]
    previous = open_sealed(key, webhook.previous_secret_encrypted, associated_data=webhook.id)
    return [previous, current]


async def check_phone(session: AsyncSession, tenant_id: str, phone_number_id: str) -> PhoneNumber:
    """The tenant's number with this channel id (400 INVALID_PHONE_NUMBER_ID, 403 PHONE_NUMBER_NOT_IN_TENANT)."""
    return await phone_for_send(session, tenant_id, phone_number_id)


async def create_webhook(
    session: AsyncSession,
    tenant_id: str,
    *,
    url: str,
    events: list[str] | None,
    phone_number_id: str | None,
    description: str | None,
    secrets_key: bytes,
    now: datetime,
) -> tuple[WebhookEndpoint, str]:
    """A new webhook; returns the row and its secret (shown once)."""
    if phone_number_id is not None:
        await check_phone(session, tenant_id, phone_number_id)
    webhook_id = new_id("wh", at=now)
    secret = new_secret()
    webhook = WebhookEndpoint(
        id=webhook_id,
        tenant_id=tenant_id,
        url=url,
        events=events,
        phone_number_id=phone_number_id,
        description=description,
        secret_encrypted=seal(secrets_key, secret, associated_data=webhook_id),
        created_at=now,
        updated_at=now,
    )
    session.add(webhook)
    await session.flush()
    return webhook, secret


async def get_webhook(session: AsyncSession, tenant_id: str, webhook_id: str) -> WebhookEndpoint:
    """The tenant's webhook, else 404 (another tenant's too)."""
    return await get_owned(session, WebhookEndpoint, tenant_id, webhook_id, resource=RESOURCE)


async def list_webhooks(
    session: AsyncSession, tenant_id: str, *, page: int, per_page: int, phone_number_id: str | None = None
) -> tuple[list[WebhookEndpoint], int]:
    """One page of the tenant's webhooks, oldest first, optionally those filtered to one number."""
    stmt = owned(WebhookEndpoint, tenant_id)
    if phone_number_id is not None:
        stmt = stmt.where(WebhookEndpoint.phone_number_id == phone_number_id)
    return await paginate(session, stmt.order_by(WebhookEndpoint.id), page=page, per_page=per_page)


async def update_webhook(
    session: AsyncSession, tenant_id: str, webhook_id: str, changes: dict[str, Any], *, now: datetime
) -> WebhookEndpoint:
    """Apply validated changes (url, events, phone_number_id, description, enabled).

    ``enabled`` is the manual switch only: it never clears the auto-disabled
    state, which only reactivation does.
    """
    webhook = await get_webhook(session, tenant_id, webhook_id)
    if changes.get("phone_number_id") is not None:
        await check_phone(session, tenant_id, changes["phone_number_id"])
    for field, value in changes.items():
        setattr(webhook, field, value)
    if changes.get("enabled") is False:
        webhook.health_state = None
    webhook.updated_at = now
    await session.flush()
    return webhook


async def delete_webhook(session: AsyncSession, tenant_id: str, webhook_id: str) -> None:
    """Remove the webhook with its deliveries and attempts (pending retries then stop)."""
    webhook = await get_webhook(session, tenant_id, webhook_id)
    await session.execute(delete(WebhookEndpoint).where(col(WebhookEndpoint.id) == webhook.id))
    session.expunge(webhook)


async def reactivate_webhook(
    session: AsyncSession, tenant_id: str, webhook_id: str, *, now: datetime
) -> tuple[WebhookEndpoint, str | None]:
    """Clear the auto-disabled state and restart its failure clock; 409 when it is not auto-disabled.

    A manually disabled webhook stays disabled. Returns the webhook and the
    ``webhook.reactivated`` notification to send.
    """
    webhook = await get_webhook(session, tenant_id, webhook_id)
    if webhook.auto_disabled_at is None:
        raise Conflict(
            "this webhook is not auto-disabled; reactivate applies only to auto-disabled webhooks",
            code="WEBHOOK_NOT_AUTO_DISABLED",
            details={"field": "auto_disabled_at", "enabled": webhook.enabled},
        )
    disabled_at = webhook.auto_disabled_at
    webhook.auto_disabled_at = None
    webhook.auto_disabled_reason = None
    webhook.failing_since = None
    webhook.exhausted_since_success = 0
    webhook.health_state = None
    webhook.health_checked_at = None
    webhook.updated_at = now
    await session.flush()
    notification_id = await record_notification(
        session,
        webhook,
        kind=NOTIFY_REACTIVATED,
        at=now,
        transition_key=f"{NOTIFY_REACTIVATED}:{webhook.id}:{iso_millis(disabled_at)}",
        detail=f"auto-disabled at {iso_millis(disabled_at)}",
    )
    return webhook, notification_id


async def rotate_secret(
    session: AsyncSession,
    tenant_id: str,
    webhook_id: str,
    *,
    overlap: timedelta,
    secrets_key: bytes,
    now: datetime,
) -> tuple[WebhookEndpoint, str]:
    """A new signing secret for the webhook, returned once; the replaced one signs beside it for
    ``overlap`` (none when zero). Only two secrets sign at once: a rotation during an overlap ends
    the oldest secret at once."""
    webhook = await get_webhook(session, tenant_id, webhook_id)
    secret = new_secret()
    if overlap > timedelta(0):
        webhook.previous_secret_encrypted = webhook.secret_encrypted
        webhook.previous_secret_expires_at = now + overlap
    else:
        webhook.previous_secret_encrypted = None
        webhook.previous_secret_expires_at = None
    webhook.secret_encrypted = seal(secrets_key, secret, associated_data=webhook.id)
    webhook.updated_at = now
    await session.flush()
    return webhook, secret
