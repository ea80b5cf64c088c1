"""SQL for the AI-agents catalog: agents, tool records, versions, bindings and binding secrets."""

from __future__ import annotations

from switchboard.store.agents.agents import create_agent, delete_agent, get_agent, list_agents, update_agent
from switchboard.store.agents.bindings import (
    binding_guardrails,
    create_binding,
    delete_binding,
    get_binding,
    list_bindings,
    update_binding,
)
from switchboard.store.agents.secrets import load_binding_secrets, set_binding_secrets
from switchboard.store.agents.tools import (
    create_tool,
    current_tool,
    delete_tool,
    list_current_tools,
    revise_tool,
    tool_history,
    tool_record,
)
from switchboard.store.agents.versions import create_version, delete_version, get_version, list_versions

__all__ = [
    "binding_guardrails",
    "create_agent",
    "create_binding",
    "create_tool",
    "create_version",
    "current_tool",
    "delete_agent",
    "delete_binding",
    "delete_tool",
    "delete_version",
    "get_agent",
    "get_binding",
    "get_version",
    "list_agents",
    "list_bindings",
    "list_current_tools",
    "list_versions",
    "load_binding_secrets",
    "revise_tool",
    "set_binding_secrets",
    "tool_history",
    "tool_record",
    "update_agent",
    "update_binding",
]
