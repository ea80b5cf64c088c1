"""What crosses the Temporal boundary in the agent runtime: ids in, small typed results out.

The thread's history lives in the database (AgentThread.messages); a run
carries the transcript it works on for its own model calls only. Secrets stay
sealed (see activities.tools.payloads); tool responses are capped by the
executor, so a run's history stays far below Temporal's payload limits.
Workflows import this module (pydantic only, no I/O) through ``imports_passed_through``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from switchboard.activities.tools.payloads import ToolBinding, ToolContext
from switchboard.models.llm import LlmMessage, LlmRequest, LlmResponse

StepKind = Literal["guardrail", "router", "wizard", "model_call", "tool_call", "milestone", "reply"]


class ThreadInput(BaseModel):
    """The thread workflow's input; ``pending`` carries unanswered turns across continue-as-new."""

    thread_id: str
    tenant_id: str
    pending: list[str] = Field(default_factory=list)
    search_attributes: bool = True
    # AGENT_DEBOUNCE_SECONDS and AGENT_THREAD_IDLE_SECONDS, read by whoever starts the thread.
    debounce_seconds: float = 2.0
    idle_seconds: float = 3600.0


class ClaimInput(BaseModel):
    thread_id: str
    message_ids: list[str]
    workflow_id_prefix: str = "agent-run-"


class ClaimResult(BaseModel):
    """The run that will answer the claimed turns; no run when none was left to answer."""

    run_id: str | None = None
    message_ids: list[str] = Field(default_factory=list)
    skipped_reason: str | None = None


class RunInput(BaseModel):
    run_id: str
    thread_id: str
    tenant_id: str


class RunTool(BaseModel):
    """A tool as this run uses it: its current declaration, hydrated by slug when the run starts."""

    slug: str
    description: str
    input_schema: dict[str, Any]
    declaration: dict[str, Any]
    method: str
    terminates_thread: bool = False


class UrgencyFinding(BaseModel):
    """The layered detector's verdict on a run's burst (``domain.agents.urgency.UrgencyVerdict``)."""

    category: str
    decided_by: str
    matched: str
    score: float
    language: str


class RunContext(BaseModel):
    """Everything a run decides with, loaded once when it starts.

    ``refusal`` is set when the run must end before doing anything (no enabled
    binding matches any more, a version's tool cannot be used ...); it is the
    readable ``errorMessage``.
    """

    run_id: str
    tenant_id: str
    thread_id: str
    refusal: str | None = None
    binding_id: str | None = None
    provider: str = ""
    model: str = ""
    system_prompt: str = ""
    reglas: dict[str, Any] = Field(default_factory=dict)
    tools: list[RunTool] = Field(default_factory=list)
    binding: ToolBinding | None = None
    tool_context: ToolContext = Field(default_factory=ToolContext)
    history: list[LlmMessage] = Field(default_factory=list)
    user_text: str = ""
    # The burst's messages one by one (user_text joins them): the urgency check reads each alone too.
    user_texts: list[str] = Field(default_factory=list)
    # The layered urgency verdict on the burst (None: routine), made when the context is loaded, where
    # the classifier's model is; ``urgency_assessed`` is False in contexts loaded before it was, whose
    # runs check the rules in the workflow as they did (the recorded context decides which, on replay).
    urgency_assessed: bool = False
    urgency: UrgencyFinding | None = None
    reply_id: str | None = None
    intents: list[dict[str, Any]] = Field(default_factory=list)
    catch_all_action: str = "escalate"
    wizard_enabled: bool = False
    wizard_tool_slug: str | None = None
    wizard_state: dict[str, Any] | None = None
    # The reservation tool (current record), None when it is missing or disabled.
    wizard_tool: RunTool | None = None
    # The latest accepted human-source message of the conversation in the last 24 h (since the last
    # reactivation), if any: the human-intervention scan before the run.
    human_message_at: datetime | None = None
    cap_execucion: int = 6
    cap_conversacion: int = 20
    history_pairs: int = 0
    max_tokens: int = 1024
    phone_number_id: str = ""
    recipient_phone: str | None = None
    recipient_bsuid: str | None = None
    reply_message_id: str = ""


class StepRecord(BaseModel):
    """One step of a run as the API shows it (model calls are recorded by their own activity)."""

    seq: int
    kind: StepKind
    name: str | None = None
    status: str | None = None
    latency_ms: int | None = None
    data: dict[str, Any] = Field(default_factory=dict)


class ModelCallInput(BaseModel):
    run_id: str
    tenant_id: str
    thread_id: str
    seq: int
    # closing: the one call after a milestone tool succeeded, with no tools (workflows/agent_milestone.py).
    purpose: Literal["router", "loop", "closing"]
    provider: str
    request: LlmRequest


class ModelCallResult(BaseModel):
    """The model's answer and what it cost (a decimal string, exact); or, with ``blocked``, the cost cap
    (thread, tenant_day or tenant_month) that stopped the call before it was made."""

    response: LlmResponse | None = None
    cost_usd: str = "0"
    latency_ms: int = 0
    blocked: str | None = None


class ReplyInput(BaseModel):
    run_id: str
    tenant_id: str
    thread_id: str
    # The send payload's type and type object (text, interactive ...), without the addressing.
    content: dict[str, Any]


class ReplyResult(BaseModel):
    """The stored reply's id and whether the send was accepted for sending; ``error`` when refused."""

    message_id: str | None = None
    send_input: dict[str, Any] | None = None
    error: str | None = None


class FinishInput(BaseModel):
    run_id: str
    tenant_id: str
    thread_id: str
    status: Literal["completed", "escalated", "failed"]
    error_message: str | None = None
    intent: str | None = None
    # History entries (LlmMessage dumps) this run adds after its user messages.
    history: list[dict[str, Any]] = Field(default_factory=list)
    # The milestone tool whose success clears the history after the reply.
    milestone_tool: str | None = None
    # The wizard's state after this run: a dict while asking, None when it ended;
    # ``keep_wizard`` leaves the stored state as it is.
    wizard_state: dict[str, Any] | None = None
    keep_wizard: bool = True
    steps: list[StepRecord] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    # The mute-table trigger an escalated run applies: escalation (handoff) unless a guardrail says
    # otherwise (human_message, cost_cap_thread, cost_cap_tenant_day, cost_cap_tenant_month, urgency).
    mute_trigger: str = "escalation"


class SweepTurnsResult(BaseModel):
    signalled: int = 0
    released_reservations: int = 0
    woken_timers: int = 0


class TimersInput(BaseModel):
    thread_id: str
    tenant_id: str


class TimerQuery(BaseModel):
    """The thread and the workflow's clock (activities decide with the workflow's time, not their own)."""

    thread_id: str
    now: datetime


class TimerDue(BaseModel):
    """When the thread's next timer is due (None: nothing to wait for) and what it is for."""

    at: datetime | None = None
    reason: str | None = None
