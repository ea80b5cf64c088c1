"""The Chat Completions message shape shared by OpenAI and Mistral."""

from __future__ import annotations

import json
from typing import Any

from switchboard.models.llm import AssistantMessage, LlmRequest, ToolResultMessage, UserMessage

# Chat Completions has no error flag on tool results; the prefix tells the model.
ERROR_PREFIX = "Error: "


def wire_messages(request: LlmRequest, *, name_tool_results: bool = False) -> list[dict[str, Any]]:
    """The ``messages`` list: system first, one ``role: tool`` entry per tool result."""
    wire: list[dict[str, Any]] = []
    if request.system:
        wire.append({"role": "system", "content": request.system})
    for message in request.messages:
        if isinstance(message, UserMessage):
            wire.append({"role": "user", "content": message.text})
        elif isinstance(message, ToolResultMessage):
            content = f"{ERROR_PREFIX}{message.content}" if message.is_error else message.content
            entry: dict[str, Any] = {"role": "tool", "tool_call_id": message.tool_call_id, "content": content}
            if name_tool_results:
                entry["name"] = message.tool_name
            wire.append(entry)
        elif isinstance(message, AssistantMessage):
            entry = {"role": "assistant", "content": message.text}
            if message.tool_calls:
                entry["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
                    }
                    for call in message.tool_calls
                ]
            wire.append(entry)
    return wire


def wire_tools(request: LlmRequest) -> list[dict[str, Any]]:
    """Tools in the ``{"type": "function", "function": {...}}`` shape."""
    return [
        {
            "type": "function",
            "function": {"name": tool.name, "description": tool.description, "parameters": tool.parameters},
        }
        for tool in request.tools
    ]
