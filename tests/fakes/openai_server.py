"""A fake OpenAI Chat Completions API: ``POST /v1/chat/completions``."""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from tests.fakes.scripting import ErrorReply, FakeProvider, RawReply, TextReply, ToolCallReply

DEFAULT_USAGE = {"prompt_tokens": 12, "completion_tokens": 6, "total_tokens": 18}

_ERROR_TYPES = {400: "invalid_request_error", 401: "invalid_api_key", 429: "rate_limit_exceeded"}


def completion(body: dict[str, Any], message: dict[str, Any], finish: str, usage: Any) -> dict[str, Any]:
    """A chat.completion object around one choice (also the Mistral shape)."""
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1_790_000_000,
        "model": body.get("model", "unknown"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": usage or DEFAULT_USAGE,
    }


def tool_calls(reply: ToolCallReply, *, json_string_arguments: bool = True) -> list[dict[str, Any]]:
    """Tool calls in the Chat Completions shape."""
    calls = []
    for index, call in enumerate(reply.calls):
        arguments = call.arguments
        if json_string_arguments and isinstance(arguments, dict):
            arguments = json.dumps(arguments)
        calls.append(
            {
                "id": call.id or f"call_fake_{index}",
                "type": "function",
                "function": {"name": call.name, "arguments": arguments},
            }
        )
    return calls


def build_app(fake: FakeProvider) -> FastAPI:
    """The fake server app, answering from ``fake``'s script."""
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat_completions(request: Request) -> JSONResponse:
        body, reply = await fake.receive(request)
        if isinstance(reply, TextReply):
            message: dict[str, Any] = {"role": "assistant", "content": reply.text, "refusal": None}
            return JSONResponse(completion(body, message, reply.stop_reason or "stop", reply.usage))
        if isinstance(reply, ToolCallReply):
            message = {"role": "assistant", "content": reply.text, "tool_calls": tool_calls(reply)}
            return JSONResponse(completion(body, message, "tool_calls", reply.usage))
        if isinstance(reply, ErrorReply):
            error_type = _ERROR_TYPES.get(reply.status, "server_error")
            error = {"message": reply.message, "type": error_type, "param": None, "code": error_type}
            return JSONResponse({"error": error}, status_code=reply.status, headers=reply.headers)
        assert isinstance(reply, RawReply)
        return JSONResponse(reply.body, status_code=reply.status)

    return app
