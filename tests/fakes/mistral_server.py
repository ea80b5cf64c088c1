"""A fake Mistral chat API: ``POST /v1/chat/completions`` (server_url is the root)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from tests.fakes.openai_server import completion, tool_calls
from tests.fakes.scripting import ErrorReply, FakeProvider, RawReply, TextReply, ToolCallReply

DEFAULT_USAGE = {"prompt_tokens": 12, "completion_tokens": 6, "total_tokens": 18}


def build_app(fake: FakeProvider) -> FastAPI:
    """The fake server app, answering from ``fake``'s script."""
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat_completions(request: Request) -> JSONResponse:
        body, reply = await fake.receive(request)
        if isinstance(reply, TextReply):
            message: dict[str, Any] = {
                "role": "assistant",
                "content": reply.text,
                "tool_calls": None,
                "prefix": False,
            }
            return JSONResponse(
                completion(body, message, reply.stop_reason or "stop", reply.usage or DEFAULT_USAGE)
            )
        if isinstance(reply, ToolCallReply):
            # Mistral sends arguments as an object or as JSON text; the script decides which.
            calls = tool_calls(reply, json_string_arguments=False)
            message = {"role": "assistant", "content": reply.text or "", "tool_calls": calls, "prefix": False}
            return JSONResponse(completion(body, message, "tool_calls", reply.usage or DEFAULT_USAGE))
        if isinstance(reply, ErrorReply):
            error = {
                "object": "error",
                "message": reply.message,
                "type": "invalid_request_error",
                "code": "3000",
            }
            return JSONResponse(error, status_code=reply.status, headers=reply.headers)
        assert isinstance(reply, RawReply)
        return JSONResponse(reply.body, status_code=reply.status)

    return app
