"""Request and response shapes of provisioning and tenant resources (CONTRACTS 3)."""

from __future__ import annotations

from decimal import Decimal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, field_validator

from switchboard.models.base import iso_millis
from switchboard.models.tenancy import (
    Customer,
    KeyMode,
    MessagingTier,
    PhoneNumber,
    Plan,
    Role,
    Tenant,
    ThroughputTier,
    Waba,
)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# The caps are stored as NUMERIC(12, 4): at most 8 digits before the point and 4 after.
MAX_CAP_USD = Decimal("99999999.9999")


class Caps(BaseModel):
    cost_cap_thread_usd: Decimal | None = Field(default=None, ge=0, le=MAX_CAP_USD, decimal_places=4)
    cost_cap_day_usd: Decimal | None = Field(default=None, ge=0, le=MAX_CAP_USD, decimal_places=4)
    cost_cap_month_usd: Decimal | None = Field(default=None, ge=0, le=MAX_CAP_USD, decimal_places=4)


class AgentSettings(BaseModel):
    """CONTRACTS 7a: platform-managed flag and the tenant's IANA time zone (cost day and month)."""

    platform_managed: bool | None = None
    timezone: str | None = Field(default=None, min_length=1, max_length=64)

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str | None) -> str | None:
        if value is None:
            return value
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as error:
            raise ValueError(f"unknown IANA time zone {value!r}") from error
        return value


class TenantCreate(Caps, AgentSettings, _Strict):
    name: str = Field(min_length=1, max_length=200)
    plan: Plan = Plan.standard
    notification_email: str | None = Field(default=None, max_length=320)


class TenantUpdate(Caps, AgentSettings, _Strict):
    plan: Plan | None = None
    notification_email: str | None = Field(default=None, max_length=320)
    # Counters are 32-bit integers in the database.
    rate_limit_per_second: int | None = Field(default=None, ge=1, le=1_000_000)
    rate_limit_per_day: int | None = Field(default=None, ge=1, le=2_000_000_000)


class TenantPublic(BaseModel):
    id: str
    name: str
    plan: str
    notification_email: str | None
    cost_cap_thread_usd: Decimal | None
    cost_cap_day_usd: Decimal | None
    cost_cap_month_usd: Decimal | None
    platform_managed: bool
    timezone: str
    rate_limit_per_second: int | None
    rate_limit_per_day: int | None
    created_at: str

    @classmethod
    def of(cls, t: Tenant) -> TenantPublic:
        return cls(
            id=t.id,
            name=t.name,
            plan=t.plan,
            notification_email=t.notification_email,
            cost_cap_thread_usd=t.cost_cap_thread_usd,
            cost_cap_day_usd=t.cost_cap_day_usd,
            cost_cap_month_usd=t.cost_cap_month_usd,
            platform_managed=t.platform_managed,
            timezone=t.timezone,
            rate_limit_per_second=t.rate_limit_per_second,
            rate_limit_per_day=t.rate_limit_per_day,
            created_at=iso_millis(t.created_at),
        )


class ApiKeyCreate(_Strict):
    mode: KeyMode
    role: Role = Role.member


class ApiKeyCreated(BaseModel):
    id: str
    key: str = Field(description="shown only in this response")
    mode: str
    role: str
    tenant_id: str


class ApiKeyRevoked(BaseModel):
    id: str
    revoked: bool
    revoked_at: str


class CustomerCreate(_Strict):
    name: str = Field(min_length=1, max_length=200)


class CustomerUpdate(_Strict):
    sending_paused: bool


class CustomerPublic(BaseModel):
    id: str
    name: str
    sending_paused: bool
    created_at: str

    @classmethod
    def of(cls, c: Customer) -> CustomerPublic:
        return cls(id=c.id, name=c.name, sending_paused=c.sending_paused, created_at=iso_millis(c.created_at))


class WabaCreate(_Strict):
    waba_id: str = Field(pattern=r"^\d{1,32}$")
    access_token: str = Field(min_length=1, max_length=4096)
    messaging_tier: MessagingTier = MessagingTier.tier_1


class WabaUpdate(_Strict):
    """Operator changes after provisioning; the new token is sealed and never returned."""

    messaging_tier: MessagingTier | None = None
    access_token: str | None = Field(default=None, min_length=1, max_length=4096)


class WabaPublic(BaseModel):
    id: str
    waba_id: str
    messaging_tier: str
    created_at: str

    @classmethod
    def of(cls, w: Waba) -> WabaPublic:
        return cls(
            id=w.id, waba_id=w.waba_id, messaging_tier=w.messaging_tier, created_at=iso_millis(w.created_at)
        )


class PhoneNumberCreate(_Strict):
    phone_number_id: str = Field(pattern=r"^\d{1,32}$")
    display_phone_number: str = Field(min_length=1, max_length=32)
    waba_id: str
    customer_id: str | None = None
    throughput_tier: ThroughputTier = ThroughputTier.standard
    hidden_from_inbox: bool = False


class PhoneNumberUpdate(_Strict):
    """Operator changes after provisioning."""

    hidden_from_inbox: bool | None = None
    throughput_tier: ThroughputTier | None = None


class CustomerDeleted(BaseModel):
    id: str
    deleted: bool
    contacts_deleted: int
    conversations_deleted: int


class PhoneNumberPublic(BaseModel):
    id: str
    phone_number_id: str
    display_phone_number: str
    waba_id: str
    customer_id: str | None
    throughput_tier: str
    hidden_from_inbox: bool
    username: str | None
    username_status: str | None
    created_at: str

    @classmethod
    def of(cls, p: PhoneNumber) -> PhoneNumberPublic:
        return cls(
            id=p.id,
            phone_number_id=p.phone_number_id,
            display_phone_number=p.display_phone_number,
            waba_id=p.waba_id,
            customer_id=p.customer_id,
            throughput_tier=p.throughput_tier,
            hidden_from_inbox=p.hidden_from_inbox,
            username=p.username,
            username_status=p.username_status,
            created_at=iso_millis(p.created_at),
        )
