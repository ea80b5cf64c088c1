"""API shapes of the agent runtime: threads, runs with their steps, and agent events.

Money is shown as an exact decimal string with 10 places (``costUsd``), the
precision it is stored with; clients that need a number parse it themselves,
as with Stripe's ``*_decimal`` fields.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, Field

from switchboard.models.agent_runtime import AgentEvent, AgentRun, AgentRunStep, AgentThread

E10 = Decimal(10) ** 10


def usd(units: int) -> str:
    """1e-10 USD units as a decimal string with 10 places."""
    return format((Decimal(units) / E10).quantize(Decimal(1).scaleb(-10)), "f")


class ThreadPublic(BaseModel):
    """An AgentThread (spec: messages, muted_at, muted_reason, updated_at) with its conversation and cost."""

    id: str
    conversation_id: str
    phone_number_id: str
    contact_id: str | None
    binding_id: str | None
    messages: list[dict[str, Any]]
    message_count: int
    muted: bool
    muted_at: datetime | None
    muted_reason: str | None
    wizard_active: bool
    costUsd: str = Field(description="spend since the last reactivation (the per-thread cap reads it)")
    totalCostUsd: str = Field(description="spend over the thread's life")
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, thread: AgentThread) -> ThreadPublic:
        messages = list(thread.messages or [])
        return cls(
            id=thread.id,
            conversation_id=thread.conversation_id,
            phone_number_id=thread.phone_number_id,
            contact_id=thread.contact_id,
            binding_id=thread.binding_id,
            messages=messages,
            message_count=len(messages),
            muted=thread.muted_at is not None,
            muted_at=thread.muted_at,
            muted_reason=thread.muted_reason,
            wizard_active=thread.wizard_state is not None,
            costUsd=usd(thread.cost_e10),
            totalCostUsd=usd(thread.total_cost_e10),
            created_at=thread.created_at,
            updated_at=thread.updated_at,
        )


class StepPublic(BaseModel):
    """One step of a run: model call (tokens, cost, latency), tool call (class, status code, latency),
    guardrail decision, router, wizard or reply."""

    seq: int
    kind: str
    name: str | None
    status: str | None
    latency_ms: int | None
    costUsd: str | None
    data: dict[str, Any]
    created_at: datetime

    @classmethod
    def of(cls, step: AgentRunStep) -> StepPublic:
        data = {key: value for key, value in (step.data or {}).items() if key != "result"}
        return cls(
            seq=step.seq,
            kind=step.kind,
            name=step.name,
            status=step.status,
            latency_ms=step.latency_ms,
            costUsd=usd(step.cost_e10) if step.kind == "model_call" else None,
            data=data,
            created_at=step.created_at,
        )


class RunPublic(BaseModel):
    """An AgentRun: status, costUsd, usage per dimension, errorMessage and (on GET by id) its steps."""

    id: str
    thread_id: str
    binding_id: str | None
    agent_id: str | None
    agent_version_id: str | None
    provider: str | None
    model: str | None
    status: str
    intent: str | None
    message_ids: list[str]
    reply_message_id: str | None
    costUsd: str
    usage: dict[str, int]
    errorMessage: str | None
    notes: list[str]
    workflow_id: str | None
    created_at: datetime
    ended_at: datetime | None
    steps: list[StepPublic] | None = None

    @classmethod
    def of(cls, run: AgentRun, *, steps: list[AgentRunStep] | None = None) -> RunPublic:
        usage = {key: int((run.usage or {}).get(key, 0)) for key in _DIMENSIONS}
        return cls(
            id=run.id,
            thread_id=run.thread_id,
            binding_id=run.binding_id,
            agent_id=run.agent_id,
            agent_version_id=run.agent_version_id,
            provider=run.provider,
            model=run.model,
            status=run.status,
            intent=run.intent,
            message_ids=list(run.message_ids or []),
            reply_message_id=run.reply_message_id if run.status == "completed" else None,
            costUsd=usd(run.cost_e10),
            usage=usage,
            errorMessage=run.error_message,
            notes=list(run.notes or []),
            workflow_id=run.workflow_id,
            created_at=run.created_at,
            ended_at=run.ended_at,
            steps=[StepPublic.of(step) for step in steps] if steps is not None else None,
        )


_DIMENSIONS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


class AgentEventPublic(BaseModel):
    """An agent event (spec: Agent events): its type, properties, thread and run."""

    id: str
    type: str
    thread_id: str
    run_id: str | None
    properties: dict[str, Any]
    created_at: datetime

    @classmethod
    def of(cls, event: AgentEvent) -> AgentEventPublic:
        return cls(
            id=event.id,
            type=event.type,
            thread_id=event.thread_id,
            run_id=event.run_id,
            properties=dict(event.properties or {}),
            created_at=event.created_at,
        )


class ThreadAction(BaseModel):
    """Body of reactivate and reset-messages (CONTRACTS 7a: who acted)."""

    reason: str = Field(min_length=1, max_length=1000)
    user_id: str | None = Field(default=None, max_length=200)
