"""The agent runtime's tables: threads, pending turns, runs, their steps, and agent events.

Money is stored as whole units of 1e-10 USD (``*_e10`` BigInteger columns):
exact on SQLite and PostgreSQL alike (no float drift), finer than the caps'
4 places, and still additive in one SQL UPDATE, which the cost circuit
breaker needs for atomic reservations.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, Index, UniqueConstraint
from sqlmodel import Field, SQLModel

from switchboard.models.base import UTCDateTime, new_id, utcnow

# Run statuses (CONTRACTS 7a).
RUN_RUNNING = "running"
RUN_COMPLETED = "completed"
RUN_ESCALATED = "escalated"
RUN_FAILED = "failed"
RUN_STATUSES = (RUN_RUNNING, RUN_COMPLETED, RUN_ESCALATED, RUN_FAILED)


def _json(*, nullable: bool = False) -> Column:
    return Column(JSON, nullable=nullable)


def _money() -> Column:
    return Column(BigInteger, nullable=False, server_default="0")


class AgentThread(SQLModel, table=True):
    """One per conversation: the history the model sees, the mute state and the running cost."""

    __tablename__ = "agent_threads"
    __table_args__ = (
        UniqueConstraint("conversation_id", name="uq_agent_threads_conversation"),
        Index("ix_agent_threads_tenant_muted", "tenant_id", "muted_at"),
    )

    id: str = Field(default_factory=lambda: new_id("thr"), primary_key=True)
    tenant_id: str = Field(foreign_key="tenants.id", index=True)
    conversation_id: str = Field(foreign_key="conversations.id")
    phone_number_id: str
    contact_id: str | None = None
    # The binding that answered the last turn (bindings are resolved anew on every turn).
    binding_id: str | None = Field(default=None, index=True)
    messages: list[dict[str, Any]] = Field(default_factory=list, sa_column=_json())
    muted_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    muted_reason: str | None = None
    # The human scan looks at human messages after this (a reactivation is a person saying "carry on").
    reactivated_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    # The booking wizard's state while it is asking (domain.agents.wizard.WizardState as JSON).
    wizard_state: dict[str, Any] | None = Field(default=None, sa_column=_json(nullable=True))
    # Spend since the last reactivation (the per-thread cap reads it) and over the thread's life.
    cost_e10: int = Field(default=0, sa_column=_money())
    total_cost_e10: int = Field(default=0, sa_column=_money())
    # Held by model calls in flight (the cost circuit breaker reserves before a call, settles after).
    reserved_e10: int = Field(default=0, sa_column=_money())
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class AgentSpend(SQLModel, table=True):
    """A tenant's agent spend in one cost day or cost month (in the tenant's time zone)."""

    __tablename__ = "agent_spend"

    tenant_id: str = Field(foreign_key="tenants.id", primary_key=True)
    # "day" or "month"; period_start is the day (YYYY-MM-DD) or the month's first day.
    period: str = Field(primary_key=True)
    period_start: str = Field(primary_key=True)
    spent_e10: int = Field(default=0, sa_column=_money())
    reserved_e10: int = Field(default=0, sa_column=_money())


class AgentCostReservation(SQLModel, table=True):
    """What one model call holds against the caps until it settles (id: ``{run_id}:{seq}``)."""

    __tablename__ = "agent_cost_reservations"

    id: str = Field(primary_key=True)
    tenant_id: str = Field(foreign_key="tenants.id", index=True)
    thread_id: str = Field(foreign_key="agent_threads.id")
    day_start: str
    month_start: str
    amount_e10: int = Field(default=0, sa_column=_money())
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, index=True)


class AgentTurn(SQLModel, table=True):
    """An inbound message waiting for its thread's workflow: the outbox between inbound and agents.

    Written in the transaction that stores the message, so a crash between that
    commit and signalling the thread loses no turn: a sweeper signals what was
    never signalled. ``run_id`` says which run answered it.
    """

    __tablename__ = "agent_turns"
    __table_args__ = (Index("ix_agent_turns_unsignalled", "signalled_at", "created_at"),)

    message_id: str = Field(foreign_key="messages.id", primary_key=True)
    tenant_id: str = Field(foreign_key="tenants.id", index=True)
    thread_id: str = Field(foreign_key="agent_threads.id", index=True)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    signalled_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    run_id: str | None = None
    # Why no run answered it (the thread was muted), when none did.
    skipped_reason: str | None = None


class AgentRun(SQLModel, table=True):
    """One turn of an agent: what it saw, what it cost and how it ended."""

    __tablename__ = "agent_runs"
    __table_args__ = (Index("ix_agent_runs_thread_created", "thread_id", "created_at"),)

    id: str = Field(default_factory=lambda: new_id("run"), primary_key=True)
    tenant_id: str = Field(foreign_key="tenants.id", index=True)
    thread_id: str = Field(foreign_key="agent_threads.id")
    binding_id: str | None = None
    agent_id: str | None = None
    agent_version_id: str | None = None
    provider: str | None = None
    model: str | None = None
    status: str = RUN_RUNNING
    intent: str | None = None
    message_ids: list[str] = Field(default_factory=list, sa_column=_json())
    reply_message_id: str | None = None
    cost_e10: int = Field(default=0, sa_column=_money())
    usage: dict[str, int] = Field(default_factory=dict, sa_column=_json())
    error_message: str | None = None
    # Things worth knowing that did not stop the run (a disabled tool left out, ...).
    notes: list[str] = Field(default_factory=list, sa_column=_json())
    # Set once the run's user messages were added to the thread's history (retry-safe).
    history_loaded_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    workflow_id: str | None = None
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    ended_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class AgentRunStep(SQLModel, table=True):
    """One recorded step of a run: a model call, a tool call, a guardrail decision, the reply."""

    __tablename__ = "agent_run_steps"
    __table_args__ = (UniqueConstraint("run_id", "seq", name="uq_agent_run_steps_run_seq"),)

    id: str = Field(default_factory=lambda: new_id("stp"), primary_key=True)
    tenant_id: str = Field(foreign_key="tenants.id", index=True)
    run_id: str = Field(foreign_key="agent_runs.id", index=True)
    seq: int
    kind: str
    name: str | None = None
    status: str | None = None
    latency_ms: int | None = None
    cost_e10: int = Field(default=0, sa_column=_money())
    data: dict[str, Any] = Field(default_factory=dict, sa_column=_json())
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class AgentEvent(SQLModel, table=True):
    """An audit event of a thread (spec: Agent events); also offered to webhooks as ``agent.<type>``."""

    __tablename__ = "agent_events"
    __table_args__ = (Index("ix_agent_events_tenant_thread", "tenant_id", "thread_id", "created_at"),)

    id: str = Field(default_factory=lambda: new_id("aev"), primary_key=True)
    tenant_id: str = Field(foreign_key="tenants.id", index=True)
    thread_id: str = Field(foreign_key="agent_threads.id")
    run_id: str | None = None
    type: str = Field(index=True)
    properties: dict[str, Any] = Field(default_factory=dict, sa_column=_json())
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
