"""A FAKE language model for development: an OpenAI Chat Completions endpoint that answers by rules.

``POST /_fake-model/v1/chat/completions`` lets agents answer offline under
``switchboard dev`` (which points ``OPENAI_BASE_URL`` here when no
``OPENAI_API_KEY`` is set). It is not a model: it never reads meaning, it
applies these rules, in this order, to the request (docs/simulator.md):

1. The system prompt is the router's classifier prompt (``domain.agents.prompt.router_prompt``):
   answer the first declared intent whose name appears in the last user message (any case;
   ``_``, ``-`` and spaces are interchangeable: "pedir turno" names ``pedir_turno``), else
   ``catch_all``.
2. The last message is a tool result: answer ``[fake model] The tool answered: <result>``.
3. Tools are offered and the last user message names one of them (its function name), or says
   ``turno``, ``slot``, ``book``, ``reserv``, ``cita`` or ``appointment``: call that tool (the
   first offered one for a keyword) with arguments built from its JSON schema, see
   :func:`arguments_for`.
4. Otherwise: ``[fake model] You said: <last user message>``.

Usage is reported like OpenAI's (prompt tokens about the request's characters / 4, completion
tokens the answer's characters / 4, nothing cached), so runs show a cost. Any bearer token is
accepted; a missing one is a 401 in OpenAI's error shape.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from switchboard.simulator.clock import now_s

PREFIX = "/_fake-model"
FAKE = "[fake model]"
ROUTER_MARKER = "You classify one customer message"
CATCH_ALL = "catch_all"
TOOL_KEYWORDS = ("turno", "slot", "book", "reserv", "cita", "appointment")
DEMO_DATE = "2026-12-01"
STRING_FORMATS = {
    "date": DEMO_DATE,
    "date-time": f"{DEMO_DATE}T10:00:00Z",
    "time": "10:00",
    "email": "customer@example.com",
}
RESULT_PREVIEW_CHARS = 500
CHARS_PER_TOKEN = 4

router = APIRouter(prefix=PREFIX, tags=["fake model (development only)"])


class FakeModelError(Exception):
    """A request the fake model refuses, answered in OpenAI's error shape."""

    def __init__(self, status: int, message: str, *, kind: str = "invalid_request_error") -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.kind = kind

    def response(self) -> JSONResponse:
        body = {"error": {"message": self.message, "type": self.kind, "param": None, "code": None}}
        return JSONResponse(body, status_code=self.status)


def text_of(content: Any) -> str:
    """A message's text: a string, or the text parts of a content list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    return ""


def _tokens(chars: int) -> int:
    return max(1, math.ceil(chars / CHARS_PER_TOKEN))


def _spaced(text: str) -> str:
    return re.sub(r"[_\-\s]+", " ", text)


def _mentions(text: str, word: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text, flags=re.IGNORECASE) is not None


def declared_intents(system: str) -> list[str]:
    """The intent names listed in a router prompt, in order, without ``catch_all``."""
    _, _, listing = system.partition("Intents:")
    names = [match.group(1).strip() for match in re.finditer(r"^- (\S.*)$", listing, flags=re.MULTILINE)]
    return [name for name in names if name != CATCH_ALL]


def route(system: str, user_text: str) -> str:
    """The first declared intent named in the user's text, else ``catch_all``."""
    for name in declared_intents(system):
        if _mentions(_spaced(user_text), _spaced(name)):
            return name
    return CATCH_ALL


def _value_for(prop: dict[str, Any], user_text: str) -> Any:
    if isinstance(prop.get("enum"), list) and prop["enum"]:
        return prop["enum"][0]
    if "const" in prop:
        return prop["const"]
    kind = prop.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind in ("integer", "number"):
        minimum = prop.get("minimum")
        return minimum if isinstance(minimum, int) and minimum > 1 else 1
    if kind == "boolean":
        return True
    if kind == "array":
        return []
    if kind == "object":
        return {}
    fixed = STRING_FORMATS.get(str(prop.get("format")))
    if fixed is not None:
        return fixed
    limit = prop.get("maxLength")
    return user_text[:limit] if isinstance(limit, int) and limit >= 0 else user_text


def arguments_for(schema: dict[str, Any], user_text: str) -> dict[str, Any]:
    """Arguments for each required property: enums their first value, dates 2026-12-01, integers 1,
    booleans true, other strings the user's text (optional properties are left out)."""
    properties = _object(schema.get("properties"))
    required = schema.get("required")
    return {
        name: _value_for(_object(properties.get(name)), user_text)
        for name in (required if isinstance(required, list) else [])
        if isinstance(name, str)
    }


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _functions(tools: Any) -> list[dict[str, Any]]:
    found = []
    for tool in tools if isinstance(tools, list) else []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            found.append(function)
    return found


def choose_tool(tools: Any, user_text: str) -> dict[str, Any] | None:
    """The offered tool the user's text names, else the first one when a booking keyword appears."""
    functions = _functions(tools)
    for function in functions:
        if _mentions(user_text, function["name"]):
            return function
    lowered = user_text.casefold()
    if functions and any(keyword in lowered for keyword in TOOL_KEYWORDS):
        return functions[0]
    return None


def _digest(body: dict[str, Any]) -> str:
    canonical = json.dumps(body, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def complete(body: dict[str, Any], *, now: int) -> dict[str, Any]:
    """The chat.completion object answering one request, by the rules of this module."""
    messages = body.get("messages")
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise FakeModelError(400, "you must provide a model parameter")
    if not isinstance(messages, list) or not messages or not all(isinstance(m, dict) for m in messages):
        raise FakeModelError(400, "messages must be a non-empty list of message objects")
    if body.get("stream"):
        raise FakeModelError(400, "the fake model does not stream; send stream=false")
    system = "\n".join(
        text_of(m.get("content")) for m in messages if m.get("role") in ("system", "developer")
    )
    users = [text_of(m.get("content")) for m in messages if m.get("role") == "user"]
    user_text = users[-1].strip() if users else ""
    last = messages[-1]
    digest = _digest(body)
    tool_calls: list[dict[str, Any]] = []
    content: str | None
    if ROUTER_MARKER in system:
        content = route(system, user_text)
    elif last.get("role") == "tool":
        content = f"{FAKE} The tool answered: {_clip(text_of(last.get('content')), RESULT_PREVIEW_CHARS)}"
    elif (function := choose_tool(body.get("tools"), user_text)) is not None:
        arguments = json.dumps(
            arguments_for(_object(function.get("parameters")), user_text), ensure_ascii=False
        )
        tool_calls.append(
            {
                "id": f"call_fake_{digest[:16]}",
                "type": "function",
                "function": {"name": function["name"], "arguments": arguments},
            }
        )
        content = None
    else:
        content = f"{FAKE} You said: {user_text}"
    finish = "tool_calls" if tool_calls else "stop"
    limit = body.get("max_completion_tokens") or body.get("max_tokens")
    if content is not None and isinstance(limit, int) and limit > 0 and _tokens(len(content)) > limit:
        content, finish = content[: limit * CHARS_PER_TOKEN], "length"
    answered = content if content is not None else json.dumps(tool_calls, ensure_ascii=False)
    prompt_tokens = _tokens(len(json.dumps([messages, body.get("tools") or []], ensure_ascii=False)))
    completion_tokens = _tokens(len(answered))
    return {
        "id": f"chatcmpl-fake-{digest[:24]}",
        "object": "chat.completion",
        "created": now,
        "model": model,
        "system_fingerprint": "fake-model",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": content,
                    "refusal": None,
                    **({"tool_calls": tool_calls} if tool_calls else {}),
                },
                "logprobs": None,
                "finish_reason": finish,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0},
        },
    }


@router.post("/v1/chat/completions")
async def chat_completions(request: Request) -> JSONResponse:
    """OpenAI Chat Completions, answered by fixed rules (development only; see docs/simulator.md)."""
    try:
        if not request.headers.get("authorization", "").lower().startswith("bearer "):
            raise FakeModelError(401, "missing bearer token (any value works)", kind="invalid_api_key")
        try:
            body = json.loads(await request.body())
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise FakeModelError(400, f"the body is not JSON: {exc}") from exc
        if not isinstance(body, dict):
            raise FakeModelError(400, "the body must be a JSON object")
        return JSONResponse(complete(body, now=now_s()))
    except FakeModelError as error:
        return error.response()
