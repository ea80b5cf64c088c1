"""Loading a run: the binding resolved anew, the version snapshot, tools hydrated by slug, the history.

Bindings are resolved on every turn (a PATCH of a binding's version or a
disabled binding takes effect on the next run); tools are hydrated by slug at
run time, so an edited tool is used in its current form and a disabled one is
left out (noted on the run). The run's user messages join the thread's
history exactly once (``history_loaded_at``), so a retried activity adds
nothing twice.
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from switchboard.activities.agents.payloads import RunContext, RunInput, RunTool, UrgencyFinding
from switchboard.activities.tools.payloads import ToolBinding, ToolContext
from switchboard.domain.agents.history import cap_conversacion, cap_execucion, message_pairs
from switchboard.domain.agents.mute import verdict_details
from switchboard.domain.agents.turns import merge_user_texts, user_text
from switchboard.domain.agents.urgency import assess_urgency_in_burst
from switchboard.domain.errors import NotFound
from switchboard.models.agent_runtime import AgentRun, AgentThread
from switchboard.models.agents import Agent, AgentBinding, AgentTool, AgentVersion
from switchboard.models.base import new_id, utcnow
from switchboard.models.llm import LlmMessage, UserMessage
from switchboard.models.messaging import Conversation, Message
from switchboard.models.tenancy import PhoneNumber, Tenant
from switchboard.models.urgency_model import load_urgency_model
from switchboard.store.agents.guardrails import last_human_message_at, reset_if_inactive
from switchboard.store.agents.threads import history_entries, matching_binding
from switchboard.store.agents.tools import current_tool

_MESSAGES = TypeAdapter(list[LlmMessage])


def transcript(entries: list[dict[str, Any]]) -> list[LlmMessage]:
    """Stored history as model messages; consecutive user messages merge (some providers need turns to alternate)."""
    merged: list[LlmMessage] = []
    for message in _MESSAGES.validate_python(entries):
        previous = merged[-1] if merged else None
        if isinstance(message, UserMessage) and isinstance(previous, UserMessage):
            merged[-1] = UserMessage(text=f"{previous.text}\n{message.text}")
        else:
            merged.append(message)
    return merged


def run_tool(tool: AgentTool) -> RunTool:
    """A tool record as the run uses it; the model sees ``declaration.description``."""
    declaration = tool.declaration or {}
    return RunTool(
        slug=tool.slug,
        description=str(declaration.get("description") or tool.description or tool.name),
        input_schema=declaration.get("input_schema") or {"type": "object", "properties": {}},
        declaration=declaration,
        method=str((declaration.get("request") or {}).get("method", "GET")).upper(),
        terminates_thread=bool(declaration.get("terminates_thread", False)),
    )


async def _tools(session: AsyncSession, tenant_id: str, slugs: list[str]) -> tuple[list[RunTool], list[str]]:
    tools: list[RunTool] = []
    notes: list[str] = []
    for slug in slugs:
        try:
            tool = await current_tool(session, tenant_id, slug)
        except NotFound:
            notes.append(f"tool {slug} no longer exists and was left out")
            continue
        if not tool.enabled:
            notes.append(f"tool {slug} is disabled and was left out")
            continue
        tools.append(run_tool(tool))
    return tools, notes


async def _user_texts(session: AsyncSession, message_ids: list[str]) -> tuple[list[str], str | None]:
    """Each message's text as the model sees it (in order), and the reply id of the last one."""
    texts: list[str] = []
    reply_id: str | None = None
    for message_id in message_ids:
        message = await session.get(Message, message_id)
        if message is None:
            continue
        payload = message.payload or {}
        texts.append(user_text(message.message_type, content=message.content, payload=payload))
        reply_id = payload.get("reply_id") if isinstance(payload.get("reply_id"), str) else None
    return texts, reply_id


async def load_run_context(
    session: AsyncSession,
    request: RunInput,
    *,
    default_max_tokens: int,
    default_inactive_days: int,
    event_ids: list[str],
) -> tuple[RunContext, list[str]]:
    """The run's context, and the notes to keep on the run; events raised go to ``event_ids``; the caller commits."""
    run = await session.get(AgentRun, request.run_id, with_for_update=True)
    thread = await session.get(AgentThread, request.thread_id, with_for_update=True)
    if run is None or thread is None or run.tenant_id != request.tenant_id:
        raise LookupError(f"run {request.run_id} or thread {request.thread_id} not found")
    base = RunContext(run_id=run.id, tenant_id=run.tenant_id, thread_id=thread.id)
    conversation = await session.get(Conversation, thread.conversation_id)
    phone = await _phone(session, thread.phone_number_id)
    if conversation is None or phone is None:
        return base.model_copy(
            update={"refusal": "the conversation or its phone number no longer exists"}
        ), []
    texts, reply_id = await _user_texts(session, list(run.message_ids))
    text = merge_user_texts(texts)
    if run.history_loaded_at is None:
        # First load: the inactivity check (before updated_at moves), then the turn joins the history.
        now = utcnow()
        event_ids.extend(
            await reset_if_inactive(session, thread, now=now, default_days=default_inactive_days)
        )
        prior = history_entries(thread)
        thread.messages = [*prior, UserMessage(text=text).model_dump(mode="json")]
        thread.updated_at = now
        run.history_loaded_at = now
        run.reply_message_id = new_id("msg", at=now)
    else:
        # A retried load: the turn is already the history's last entry.
        prior = history_entries(thread)[:-1]
    binding = await matching_binding(
        session, tenant_id=run.tenant_id, phone_number_id=phone.phone_number_id, customer_id=phone.customer_id
    )
    if binding is None:
        return base.model_copy(update={"refusal": "no enabled agent binding matches this conversation"}), []
    version = await session.get(AgentVersion, binding.agent_version_id)
    agent = await session.get(Agent, binding.agent_id)
    if version is None or agent is None:
        return base.model_copy(update={"refusal": f"binding {binding.id} points at a missing version"}), []
    run.binding_id, run.agent_id, run.agent_version_id = binding.id, agent.id, version.id
    run.provider, run.model = agent.provider, agent.model
    thread.binding_id = binding.id
    tools, notes = await _tools(session, run.tenant_id, list(version.tools or []))
    params = dict(binding.params or {})
    wizard_slug = params.get("wizardReserveToolSlug") if params.get("wizardEnabled") else None
    wizard_tool = None
    if isinstance(wizard_slug, str):
        wizard_tools, wizard_notes = await _tools(session, run.tenant_id, [wizard_slug])
        wizard_tool = wizard_tools[0] if wizard_tools else None
        notes.extend(note for note in wizard_notes if note not in notes)
    history = transcript(prior)
    tenant = await session.get(Tenant, run.tenant_id)
    guardrails = dict(version.guardrails_config or {})
    context = base.model_copy(
        update={
            "binding_id": binding.id,
            "provider": agent.provider,
            "model": agent.model,
            "system_prompt": version.system_prompt,
            "reglas": dict(binding.reglas or {}),
            "tools": tools,
            "binding": _tool_binding(binding),
            "tool_context": ToolContext(
                customer_id=conversation.customer_id,
                contact_phone=conversation.contact_phone,
                conversation_id=conversation.id,
            ),
            "history": history,
            "user_text": text,
            "user_texts": texts,
            "urgency_assessed": True,
            "urgency": _urgency(texts),
            "reply_id": reply_id,
            "intents": list((version.routing or {}).get("intents") or []),
            "catch_all_action": str(params.get("catchAllAction") or "escalate"),
            "wizard_enabled": bool(params.get("wizardEnabled")),
            "wizard_tool_slug": wizard_slug if isinstance(wizard_slug, str) else None,
            "wizard_state": thread.wizard_state,
            "wizard_tool": wizard_tool,
            "human_message_at": await last_human_message_at(session, thread, now=utcnow()),
            "cap_execucion": cap_execucion(guardrails),
            "cap_conversacion": cap_conversacion(
                params, guardrails, platform_managed=bool(tenant and tenant.platform_managed)
            ),
            "history_pairs": message_pairs(prior),
            "max_tokens": default_max_tokens,
            "phone_number_id": phone.phone_number_id,
            "recipient_phone": conversation.contact_phone,
            "recipient_bsuid": conversation.contact_bsuid if not conversation.contact_phone else None,
            "reply_message_id": run.reply_message_id or "",
        }
    )
    return context, notes


def _tool_binding(binding: AgentBinding) -> ToolBinding:
    return ToolBinding(
        binding_id=binding.id,
        base_url=binding.base_url or "",
        params=dict(binding.params or {}),
        sealed_secrets=dict(binding.secrets_encrypted or {}),
    )


async def _phone(session: AsyncSession, phone_number_id: str) -> PhoneNumber | None:
    stmt = select(PhoneNumber).where(col(PhoneNumber.phone_number_id) == phone_number_id)
    return (await session.execute(stmt)).scalars().first()


def _urgency(texts: list[str]) -> UrgencyFinding | None:
    """The layered detector's verdict on the burst, recorded with the context so a replay reads it back."""
    verdict = assess_urgency_in_burst(texts, load_urgency_model())
    return None if verdict is None else UrgencyFinding(**verdict_details(verdict))
