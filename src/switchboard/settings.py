"""The one place environment variables are read (CONTRACTS section 2).

Every process (API, worker, simulator, CLI) builds one ``Settings`` at start-up
and passes it down; nothing else reads the environment. In production the
service refuses to start with missing or well-known secrets, so a forgotten
variable cannot silently ship a guessable admin key.
"""

from __future__ import annotations

import base64
import binascii
from typing import Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_SQLITE_URL = "sqlite+aiosqlite:///.switchboard/switchboard.db"

# The forms people paste, and the async driver each one means here.
_ASYNC_DRIVERS = {
    "postgres": "postgresql+psycopg",
    "postgresql": "postgresql+psycopg",
    "sqlite": "sqlite+aiosqlite",
}


def async_database_url(url: str) -> str:
    """``postgres://``, ``postgresql://`` and ``sqlite:///`` URLs with the async driver picked.

    A URL that already names a driver (``postgresql+psycopg://``, ``sqlite+aiosqlite://``)
    is kept as it is.
    """
    url = url.strip()
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    driver = _ASYNC_DRIVERS.get(scheme.lower())
    return f"{driver}://{rest}" if driver else url


# Values that must never be used outside development. A production start with
# any of them (or with none) is refused.
_INSECURE_VALUES = {"", "changeme", "change-me", "admin", "secret", "dev", "test"}


# The longest overlap a rotation may ask for: two secrets signing for a week is enough to roll any receiver.
MAX_SECRET_OVERLAP_SECONDS = 7 * 86_400


class Settings(BaseSettings):
    """Process configuration, read once from the environment."""

    model_config = SettingsConfigDict(extra="ignore", case_sensitive=False)

    environment: Literal["development", "test", "production"] = Field(
        default="development", validation_alias="SWITCHBOARD_ENV"
    )
    database_url: str = DEFAULT_SQLITE_URL
    temporal_address: str = "localhost:7233"
    temporal_namespace: str = "default"
    temporal_task_queue: str = "switchboard"

    switchboard_admin_key: str = ""
    switchboard_secrets_key: str = ""

    channel_api_base_url: str = "http://127.0.0.1:8100"
    channel_api_version: str = "v21.0"
    channel_app_secret: str = ""
    channel_verify_token: str = ""
    public_base_url: str = "http://127.0.0.1:8000"
    smtp_url: str | None = None

    agent_inactive_reset_days: int = 3
    # Messages arriving within this many seconds of each other are answered by one run (CONTRACTS 7a).
    agent_debounce_seconds: float = Field(default=2.0, ge=0, le=60)
    # A thread workflow with nothing to do for this long completes; the next message starts it again.
    agent_thread_idle_seconds: int = Field(default=3600, ge=1)
    # The most output tokens one model call of an agent may produce.
    agent_max_output_tokens: int = Field(default=1024, ge=16, le=32_768)
    # Unsignalled turns older than this are signalled by the sweeper (a crash between commit and signal).
    agent_turn_sweep_after_seconds: float = Field(default=10.0, ge=0)
    # Set SwitchboardTenantId/SwitchboardThreadId on agent workflows (they must be registered on the
    # Temporal namespace; `switchboard dev` does it, docs/operations.md says how in production).
    temporal_search_attributes: bool = True
    # The worker's Prometheus listener (the API serves /metrics itself); 0 turns it off.
    worker_metrics_port: int = Field(default=9101, ge=0, le=65535)
    worker_metrics_host: str = "127.0.0.1"
    # Run workflow code in Temporal's sandbox (isolated module state, restricted calls). SendMessage and
    # DeliverWebhook always run outside it (their tests run them inside); off takes the rest out too,
    # the agent and maintenance workflows (docs/decisions/0002-workflow-sandbox-cost.md): determinism is then guarded
    # only by the replay tests of recorded histories.
    temporal_workflow_sandbox: bool = True
    # POST /channel/webhook applies a small payload before it answers (one workflow fewer per inbound
    # message); off, every payload is handed to a ProcessInbound run and answered once Temporal has it
    # (a faster answer to the channel, more CPU per message; docs/inbound.md, Durability).
    inbound_apply_in_request: bool = True
    # Each API process runs the DeliverWebhook and SendMessage runs it starts, up to this many at once,
    # through eager starts; more wait for the worker processes, and 0 leaves them all to them. A slot is held
    # for the run's whole first task (the start's answer, the attempt's POST and record, the completion),
    # hundreds of ms in a busy process: with 4, two busy API processes declined most of their starts,
    # and with 8 the spilled runs queued for the worker (the loaded p99 twice 16's;
    # docs/decisions/0008-eager-starts-in-the-api.md).
    api_delivery_slots: int = Field(default=16, ge=0)
    # Worker slots (`switchboard worker`); None keeps the SDK's default. A worker is one Python event
    # loop: once it is busy, more slots add queueing, not throughput.
    worker_max_concurrent_activities: int = Field(default=50, ge=1)
    worker_max_concurrent_local_activities: int | None = Field(default=None, ge=1)
    worker_max_concurrent_workflow_tasks: int | None = Field(default=None, ge=2)
    worker_max_cached_workflows: int = Field(default=1000, ge=0)
    tool_egress_allow_private: bool = False

    anthropic_api_key: str | None = None
    anthropic_base_url: str | None = None
    openai_api_key: str | None = None
    openai_base_url: str | None = None
    gemini_api_key: str | None = None
    google_gemini_base_url: str | None = None
    mistral_api_key: str | None = None
    mistral_base_url: str | None = None
    rate_card_path: str | None = None

    # Our own operational knobs (documented in docs/operations.md).
    api_key_cache_seconds: float = 5.0
    # How long a process trusts a sandbox send's read of its number and its customer's pause flag
    # (api/sandbox_phones.py); 0 reads every time. Live sends always read.
    sandbox_phone_cache_seconds: float = Field(default=5.0, ge=0)
    # How long POST /v1/messages waits for the upstream before answering 202
    # (the send workflow keeps going; the message is polled or its webhook awaited).
    send_wait_seconds: float = Field(default=20.0, ge=0, le=55)
    # How long a send keeps retrying an unavailable upstream before it becomes failed_transient.
    send_retry_window_seconds: int = Field(default=86_400, ge=10)
    # More queued sends than this on one phone number answers 429.
    send_queue_limit: int = Field(default=10_000, ge=1)
    # Messages per second per throughput tier (the upstream's published tiers).
    throughput_standard_per_second: int = Field(default=80, ge=1)
    throughput_medium_per_second: int = Field(default=200, ge=1)
    throughput_high_per_second: int = Field(default=1_000, ge=1)
    # Raw channel webhook bodies are kept this many days, then pruned.
    raw_inbound_retention_days: int = Field(default=14, ge=7, le=30)
    # Tenant events, webhook deliveries and attempts are kept this many days, then pruned
    # (at least the 7 d health window; at most 90 so the tables stay bounded).
    event_retention_days: int = Field(default=30, ge=7, le=90)

    # Tenant webhook delivery policy (docs/webhooks.md); unset means the
    # documented default of domain/webhook_policy.py.
    webhook_retry_schedule_seconds: str | None = None
    webhook_jitter_ratio: float | None = Field(default=None, ge=0, lt=1)
    webhook_request_timeout_seconds: float | None = Field(default=None, gt=0, le=60)
    webhook_overload_floor_seconds: float | None = Field(default=None, ge=0)
    webhook_retry_after_max_seconds: float | None = Field(default=None, gt=0)
    webhook_auto_disable_after_seconds: float | None = Field(default=None, gt=0)
    webhook_auto_disable_min_exhausted: int | None = Field(default=None, ge=1)
    webhook_auto_disable_min_failure_span_seconds: float | None = Field(default=None, ge=0)
    webhook_auto_disable_warning_seconds: float | None = Field(default=None, ge=0)
    webhook_healthy_above: float | None = Field(default=None, ge=0, le=1)
    webhook_failing_below: float | None = Field(default=None, ge=0, le=1)
    webhook_degraded_notify_interval_seconds: float | None = Field(default=None, ge=0)
    webhook_alert_min_attempts: int | None = Field(default=None, ge=1)
    webhook_health_check_interval_seconds: float | None = Field(default=None, ge=0)
    webhook_sweep_min_age_seconds: float | None = Field(default=None, ge=0)
    # How long a rotated-out webhook secret keeps signing beside the new one, unless the rotate call
    # names its own overlap (POST /v1/webhooks/{id}/rotate-secret).
    webhook_secret_overlap_seconds: int = Field(default=86_400, ge=0, le=MAX_SECRET_OVERLAP_SECONDS)
    simulator_webhook_url: str = "http://127.0.0.1:8000/channel/webhook"
    # Our own loggers' level (the libraries' stay at INFO or above); DEBUG adds a line per request and
    # per applied send, inbound payload and tool call. ``text`` is one readable line per record
    # (``switchboard dev``); ``json`` one JSON object per line, for a log pipeline.
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "INFO"
    log_format: Literal["json", "text"] = "json"
    # Traces (switchboard/tracing.py): the OTLP/HTTP collector's base URL (spans go to {url}/v1/traces);
    # unset, nothing is traced. The service name defaults to switchboard-api or switchboard-worker.
    otel_exporter_otlp_endpoint: str | None = None
    otel_service_name: str | None = None

    @field_validator("log_level", mode="before")
    @classmethod
    def _level_name(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value

    @field_validator("database_url")
    @classmethod
    def _async_driver(cls, value: str) -> str:
        return async_database_url(value)

    @model_validator(mode="after")
    def _refuse_insecure_production(self) -> Settings:
        if self.environment != "production":
            return self
        problems = []
        if (
            self.switchboard_admin_key.strip().lower() in _INSECURE_VALUES
            or len(self.switchboard_admin_key) < 24
        ):
            problems.append("SWITCHBOARD_ADMIN_KEY must be set to a random value of at least 24 characters")
        if not _is_aes256_key(self.switchboard_secrets_key):
            problems.append("SWITCHBOARD_SECRETS_KEY must be the base64 of 32 random bytes")
        if self.channel_app_secret.strip().lower() in _INSECURE_VALUES:
            problems.append("CHANNEL_APP_SECRET must be set")
        if self.channel_verify_token.strip().lower() in _INSECURE_VALUES:
            problems.append("CHANNEL_VERIFY_TOKEN must be set")
        if self.database_url.startswith("sqlite"):
            problems.append("DATABASE_URL must point at PostgreSQL in production")
        if problems:
            raise ValueError("refusing to start in production: " + "; ".join(problems))
        return self

    @property
    def secrets_key_bytes(self) -> bytes:
        """The AES-256-GCM key for binding secrets and WABA tokens."""
        if not _is_aes256_key(self.switchboard_secrets_key):
            raise ValueError("SWITCHBOARD_SECRETS_KEY must be the base64 of 32 bytes")
        return base64.b64decode(self.switchboard_secrets_key)

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


def _is_aes256_key(value: str) -> bool:
    try:
        return len(base64.b64decode(value, validate=True)) == 32
    except (binascii.Error, ValueError):
        return False
