"""The agent runtime's activities: loading runs, model calls, replies and bookkeeping."""

from __future__ import annotations

from typing import Any

from switchboard.activities.agents.model import ModelCallActivities
from switchboard.activities.agents.reply import AgentReplyActivities
from switchboard.activities.agents.runs import AgentRunActivities
from switchboard.activities.agents.timers import ThreadTimerActivities
from switchboard.activities.deps import ActivityDeps
from switchboard.activities.llm.providers import ProviderRegistry, providers_config
from switchboard.activities.llm.rate_cards import load_rate_cards


def build_agent_activities(deps: ActivityDeps) -> list[Any]:
    """Every agent activity, bound to the worker's clients (the provider registry is closed with the deps)."""
    if deps.providers is None:
        deps.providers = ProviderRegistry(providers_config(deps.settings))
    runs = AgentRunActivities(deps)
    model = ModelCallActivities(
        deps, providers=deps.providers, rate_cards=load_rate_cards(deps.settings.rate_card_path)
    )
    reply = AgentReplyActivities(deps)
    timers = ThreadTimerActivities(deps)
    return [
        runs.claim_agent_turns,
        runs.load_agent_run,
        runs.finish_agent_run,
        runs.sweep_agent_turns,
        model.call_agent_model,
        reply.create_agent_reply,
        timers.next_thread_timer,
        timers.fire_thread_timer,
    ]
