"""Tenant events (outbox), webhook endpoints, deliveries and attempts, notifications."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from switchboard.models.base import UTCDateTime, new_id, utcnow


class Event(SQLModel, table=True):
    """An event raised for a tenant; also the outbox row that starts its deliveries.

    Written in the same transaction as the change that raised it; a dispatcher
    starts one delivery workflow per matching webhook and stamps dispatched_at.
    A sweeper re-dispatches rows left undispatched by a crash (workflow ids are
    deterministic, so a second start is a no-op).
    """

    __tablename__ = "events"
    __table_args__ = (Index("ix_events_undispatched", "dispatched_at", "created_at"),)

    id: str = Field(default_factory=lambda: new_id("evt"), primary_key=True)
    tenant_id: str = Field(foreign_key="tenants.id", index=True)
    kind: str = Field(index=True)
    phone_number_id: str | None = None
    # The envelope without delivery_id (added per delivery).
    payload: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    occurred_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    dispatched_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class WebhookEndpoint(SQLModel, table=True):
    """A tenant's webhook receiver (CONTRACTS 5)."""

    __tablename__ = "webhook_endpoints"

    id: str = Field(default_factory=lambda: new_id("wh"), primary_key=True)
    tenant_id: str = Field(foreign_key="tenants.id", index=True)
    url: str
    description: str | None = None
    # Null means every event kind.
    events: list[str] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    phone_number_id: str | None = Field(default=None, index=True)
    secret_encrypted: str
    enabled: bool = True
    auto_disabled_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    auto_disabled_reason: str | None = None
    health_state: str | None = None
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    # The auto-disable clock (migration 0003): first failure since the last
    # success (or reactivation), deliveries exhausted since then, and when the
    # health transition was last evaluated (evaluations are throttled).
    failing_since: datetime | None = Field(default=None, sa_type=UTCDateTime)
    last_success_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    last_failure_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    exhausted_since_success: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    health_checked_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    # The secret a rotation replaced (migration 0009): it still signs, beside the current one, until
    # previous_secret_expires_at, so a receiver can switch without refusing a delivery.
    previous_secret_encrypted: str | None = None
    previous_secret_expires_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class WebhookDelivery(SQLModel, table=True):
    """One event to one endpoint; its id is the envelope's delivery_id."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (UniqueConstraint("event_id", "webhook_id", name="uq_webhook_deliveries_event_webhook"),)

    id: str = Field(primary_key=True)
    tenant_id: str = Field(foreign_key="tenants.id", index=True)
    event_id: str = Field(foreign_key="events.id", index=True)
    webhook_id: str = Field(foreign_key="webhook_endpoints.id", index=True, ondelete="CASCADE")
    status: str = "pending"
    attempts: int = 0
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    completed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class WebhookAttempt(SQLModel, table=True):
    """One HTTP attempt of a delivery, recorded exactly once (health figures read these)."""

    __tablename__ = "webhook_attempts"
    __table_args__ = (
        UniqueConstraint("delivery_id", "attempt", name="uq_webhook_attempts_delivery_attempt"),
        Index("ix_webhook_attempts_webhook_time", "webhook_id", "attempted_at", "success"),
    )

    id: str = Field(default_factory=lambda: new_id("att"), primary_key=True)
    tenant_id: str = Field(index=True)
    webhook_id: str = Field(foreign_key="webhook_endpoints.id", ondelete="CASCADE")
    delivery_id: str = Field(foreign_key="webhook_deliveries.id", ondelete="CASCADE")
    attempt: int
    success: bool
    status_code: int | None = None
    latency_ms: int | None = None
    error: str | None = None
    attempted_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    # The answer's first 4 KB as text, for the attempt log (migration 0009; None: no answer).
    response_body: str | None = Field(default=None, sa_type=Text)


class OwnerNotification(SQLModel, table=True):
    """A notification to the tenant owner; the transition key makes it once-only."""

    __tablename__ = "owner_notifications"

    id: str = Field(default_factory=lambda: new_id("ntf"), primary_key=True)
    tenant_id: str = Field(foreign_key="tenants.id", index=True)
    kind: str
    severity: str
    transition_key: str = Field(unique=True)
    webhook_id: str | None = None
    recipient: str | None = None
    subject: str
    body: str
    delivery: str = "stored"
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    sent_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class RawInbound(SQLModel, table=True):
    """A raw channel webhook body, kept 7 to 30 days for replay and audit, then pruned."""

    __tablename__ = "raw_inbound"
    # The sweeper finds rows a crash or a Temporal outage left unprocessed.
    __table_args__ = (Index("ix_raw_inbound_unprocessed", "processed_at", "received_at"),)

    id: str = Field(primary_key=True)
    body: str
    received_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, index=True)
    processed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
