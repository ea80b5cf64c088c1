"""Messages, conversations, contacts, templates, media and idempotency records."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Index, UniqueConstraint
from sqlmodel import Field, SQLModel

from switchboard.models.base import UTCDateTime, new_id, utcnow


def _json() -> Column:
    return Column(JSON, nullable=True)


class Contact(SQLModel, table=True):
    """A person who talks to a customer's numbers, known by phone and/or BSUID."""

    __tablename__ = "contacts"
    __table_args__ = (
        UniqueConstraint("tenant_id", "customer_id", "phone", name="uq_contacts_customer_phone"),
        UniqueConstraint("tenant_id", "customer_id", "bsuid", name="uq_contacts_customer_bsuid"),
        UniqueConstraint("tenant_id", "customer_id", "group_id", name="uq_contacts_customer_group"),
    )

    id: str = Field(default_factory=lambda: new_id("ct"), primary_key=True)
    tenant_id: str = Field(foreign_key="tenants.id", index=True)
    customer_id: str = Field(foreign_key="customers.id", index=True, ondelete="CASCADE")
    phone: str | None = Field(default=None, index=True)
    wa_id: str | None = None
    bsuid: str | None = Field(default=None, index=True)
    parent_bsuid: str | None = None
    username: str | None = None
    name: str | None = None
    # A WhatsApp group the number is in (migration 0010): its posts are filed under this contact,
    # which has no phone and no BSUID of its own.
    group_id: str | None = None
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class Conversation(SQLModel, table=True):
    """One business phone number talking with one contact, or with one group (``group_id``)."""

    __tablename__ = "conversations"
    __table_args__ = (
        UniqueConstraint("phone_number_id", "contact_id", name="uq_conversations_phone_contact"),
        Index("ix_conversations_tenant_last", "tenant_id", "last_message_at"),
    )

    id: str = Field(default_factory=lambda: new_id("conv"), primary_key=True)
    tenant_id: str = Field(foreign_key="tenants.id", index=True)
    customer_id: str = Field(foreign_key="customers.id", index=True, ondelete="CASCADE")
    phone_number_id: str = Field(index=True)
    contact_id: str = Field(foreign_key="contacts.id", index=True, ondelete="CASCADE")
    contact_phone: str | None = Field(default=None, index=True)
    contact_bsuid: str | None = Field(default=None, index=True)
    contact_username: str | None = None
    status: str = "active"
    last_message_id: str | None = None
    last_message_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    # The 24 h customer-service window is opened by the contact's last inbound
    # message; shown so clients can pick a template in time (the upstream enforces it).
    last_inbound_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    unread_count: int = 0
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    # The last number given to an event about this conversation (migration 0009): each event's
    # conversation_sequence, so a receiver can reorder the conversation's events and see gaps.
    event_sequence: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    # Set on a group's conversation (migration 0010): posts in the group, whoever wrote them.
    group_id: str | None = None


class Message(SQLModel, table=True):
    """One inbound or outbound message (spec: Message)."""

    __tablename__ = "messages"
    __table_args__ = (
        Index("ix_messages_tenant_created", "tenant_id", "created_at"),
        Index("ix_messages_tenant_phone_created", "tenant_id", "phone_number_id", "created_at"),
        Index("ix_messages_conversation_occurred", "conversation_id", "occurred_at"),
        Index("ix_messages_phone_status", "phone_number_id", "status"),
        UniqueConstraint("phone_number_id", "wa_message_id", "direction", name="uq_messages_wamid"),
    )

    id: str = Field(default_factory=lambda: new_id("msg"), primary_key=True)
    tenant_id: str = Field(foreign_key="tenants.id", index=True)
    phone_number_id: str
    direction: str
    message_type: str
    wa_message_id: str | None = Field(default=None, index=True)
    status: str
    to_phone: str | None = None
    from_phone: str | None = None
    recipient_bsuid: str | None = None
    contact_id: str | None = Field(default=None, index=True)
    conversation_id: str | None = None
    source: str = "API"
    coexistence_echo: bool = False
    payload: dict[str, Any] | None = Field(default=None, sa_column=_json())
    content: str | None = None
    has_media: bool = False
    rendered_body: str | None = None
    error_title: str | None = None
    error_code: str | None = None
    error_message: str | None = None
    retry_of_message_id: str | None = Field(default=None, index=True)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    occurred_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    status_updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    # Guards POST /v1/messages/{id}/retry: one retry request per 5 minutes.
    last_retry_requested_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    # The Idempotency-Key of the send that created it (so a resumed send completes it).
    idempotency_key: str | None = None
    # The inbox agent who wrote a HUMAN_PORTAL reply.
    sent_by: str | None = None
    # Set once the send workflow is known to exist; the sweeper resumes queued
    # messages without it.
    workflow_started_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class Template(SQLModel, table=True):
    """A message template of one WABA, as last known from the upstream."""

    __tablename__ = "templates"
    __table_args__ = (UniqueConstraint("waba_id", "name", "language", name="uq_templates_waba_name_lang"),)

    id: str = Field(default_factory=lambda: new_id("tpl"), primary_key=True)
    tenant_id: str = Field(foreign_key="tenants.id", index=True)
    waba_id: str = Field(index=True)
    upstream_id: str | None = None
    name: str
    language: str
    category: str
    status: str = "PENDING"
    parameter_format: str = "POSITIONAL"
    components: list[dict[str, Any]] | None = Field(default=None, sa_column=_json())
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class MediaAsset(SQLModel, table=True):
    """An upstream media id this service uploaded (reusable for 30 days)."""

    __tablename__ = "media_assets"
    __table_args__ = (Index("ix_media_assets_source", "phone_number_id", "source_url"),)

    id: str = Field(default_factory=lambda: new_id("med"), primary_key=True)
    tenant_id: str = Field(foreign_key="tenants.id", index=True)
    phone_number_id: str
    media_id: str
    mime_type: str
    size_bytes: int
    sha256: str
    source_url: str | None = None
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class IdempotencyRecord(SQLModel, table=True):
    """An Idempotency-Key's lock and, once done, its stored 2xx response."""

    __tablename__ = "idempotency_records"

    tenant_id: str = Field(primary_key=True)
    key: str = Field(primary_key=True)
    fingerprint: str
    state: str = "in_progress"
    locked_until: datetime = Field(sa_type=UTCDateTime)
    response_status: int | None = None
    response_body: dict[str, Any] | None = Field(default=None, sa_column=_json())
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    expires_at: datetime = Field(sa_type=UTCDateTime, index=True)
