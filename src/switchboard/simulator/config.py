"""Configuration of the channel simulator (built by the CLI from ``Settings``)."""

from __future__ import annotations

from dataclasses import dataclass, field

DEFAULT_WEBHOOK_URL = "http://127.0.0.1:8000/channel/webhook"


@dataclass(frozen=True)
class SimPhoneNumber:
    """A business number the simulator knows: what goes into webhook ``metadata`` and ``entry[].id``."""

    display_phone_number: str
    waba_id: str


@dataclass(frozen=True)
class SimulatorConfig:
    """Everything the simulator needs; no field is read from the environment here."""

    app_secret: str
    webhook_url: str = DEFAULT_WEBHOOK_URL
    api_version: str = "v21.0"
    # Each delay counts from the previous step: send -> sent -> delivered -> read.
    sent_delay_ms: int = 300
    delivered_delay_ms: int = 700
    read_delay_ms: int = 1500
    send_status_webhooks: bool = True
    read_receipts: bool = True
    # Trigger +1 202 555 0153 answers 503 this many times before one success.
    flaky_failures: int = 2
    webhook_attempts: int = 3
    webhook_retry_ms: int = 500
    webhook_timeout_s: float = 5.0
    # None accepts any bearer token; a set accepts only those (others get 401 code 190).
    access_tokens: frozenset[str] | None = None
    # Free-form sends to a user with no inbound in 24 h fail with a 131047 status when set.
    enforce_customer_window: bool = False
    # None leaves new templates PENDING until /_sim/templates/{name}/status changes them.
    template_review_ms: int | None = None
    media_url_ttl_s: int = 300
    # Base of media download URLs; None uses the address the request came in on.
    public_base_url: str | None = None
    default_waba_id: str = "100000000000001"
    default_display_phone_number: str = "15550000001"
    phone_numbers: dict[str, SimPhoneNumber] = field(default_factory=dict)
