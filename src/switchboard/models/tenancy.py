"""Tenants, their API keys, customers, WABAs and phone numbers."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from enum import StrEnum

from sqlalchemy import Column, Numeric
from sqlmodel import Field, SQLModel

from switchboard.models.base import UTCDateTime, new_id, utcnow


class Plan(StrEnum):
    standard = "standard"
    high_volume = "high_volume"
    enterprise = "enterprise"


class KeyMode(StrEnum):
    live = "live"
    test = "test"


class Role(StrEnum):
    owner = "owner"
    admin = "admin"
    member = "member"


class ThroughputTier(StrEnum):
    standard = "standard"
    medium = "medium"
    high = "high"
    unlimited = "unlimited"


class MessagingTier(StrEnum):
    tier_1 = "tier_1"
    tier_2 = "tier_2"
    tier_3 = "tier_3"
    tier_4 = "tier_4"


def _money() -> Column:
    return Column(Numeric(12, 4), nullable=True)


class Tenant(SQLModel, table=True):
    __tablename__ = "tenants"

    id: str = Field(default_factory=lambda: new_id("ten"), primary_key=True)
    name: str
    plan: str = Field(default=Plan.standard)
    notification_email: str | None = None
    # Null caps mean the spec's defaults (1 USD thread, 50 USD day, 500 USD month).
    cost_cap_thread_usd: Decimal | None = Field(default=None, sa_column=_money())
    cost_cap_day_usd: Decimal | None = Field(default=None, sa_column=_money())
    cost_cap_month_usd: Decimal | None = Field(default=None, sa_column=_money())
    # CONTRACTS 7a: platform-managed tenants' bindings default capConversacion to 30 instead of 20;
    # the IANA time zone decides the tenant's cost day and month.
    platform_managed: bool = Field(default=False, sa_column_kwargs={"server_default": "0"})
    timezone: str = Field(default="UTC", sa_column_kwargs={"server_default": "UTC"})
    # Enterprise plans carry custom limits; null means the plan's default.
    rate_limit_per_second: int | None = None
    rate_limit_per_day: int | None = None
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class ApiKey(SQLModel, table=True):
    __tablename__ = "api_keys"

    id: str = Field(default_factory=lambda: new_id("key"), primary_key=True)
    tenant_id: str = Field(foreign_key="tenants.id", index=True)
    # SHA-256 of the whole key; the key itself is shown once and never stored.
    key_hash: str = Field(unique=True)
    display_prefix: str
    mode: str
    role: str
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    revoked_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class Customer(SQLModel, table=True):
    __tablename__ = "customers"

    id: str = Field(default_factory=lambda: new_id("cus"), primary_key=True)
    tenant_id: str = Field(foreign_key="tenants.id", index=True)
    name: str
    sending_paused: bool = False
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class Waba(SQLModel, table=True):
    __tablename__ = "wabas"

    id: str = Field(default_factory=lambda: new_id("waba"), primary_key=True)
    tenant_id: str = Field(foreign_key="tenants.id", index=True)
    # The channel's WhatsApp Business Account id; one tenant owns it.
    waba_id: str = Field(unique=True)
    access_token_encrypted: str
    messaging_tier: str = Field(default=MessagingTier.tier_1)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class PhoneNumber(SQLModel, table=True):
    __tablename__ = "phone_numbers"

    id: str = Field(default_factory=lambda: new_id("pn"), primary_key=True)
    tenant_id: str = Field(foreign_key="tenants.id", index=True)
    # The channel's numeric id of the business number (what sends address).
    phone_number_id: str = Field(unique=True)
    display_phone_number: str
    waba_id: str = Field(foreign_key="wabas.waba_id", index=True)
    customer_id: str | None = Field(default=None, foreign_key="customers.id", index=True)
    throughput_tier: str = Field(default=ThroughputTier.standard)
    hidden_from_inbox: bool = False
    username: str | None = None
    username_status: str | None = None
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
