"""A fake Anthropic Messages API: ``POST /v1/messages``."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from tests.fakes.scripting import ErrorReply, FakeProvider, RawReply, TextReply, ToolCallReply

DEFAULT_USAGE = {"input_tokens": 12, "output_tokens": 6}

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def _message(body: dict[str, Any], content: list[dict[str, Any]], stop: str, usage: Any) -> dict[str, Any]:
    return {
        "id": "msg_fake_01",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "unknown"),
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage or DEFAULT_USAGE,
    }


def build_app(fake: FakeProvider) -> FastAPI:
    """The fake server app, answering from ``fake``'s script."""
    app = FastAPI()

    @app.post("/v1/messages")
    async def messages(request: Request) -> JSONResponse:
        body, reply = await fake.receive(request)
        if isinstance(reply, TextReply):
            content: list[dict[str, Any]] = [{"type": "text", "text": reply.text}]
            return JSONResponse(_message(body, content, reply.stop_reason or "end_turn", reply.usage))
        if isinstance(reply, ToolCallReply):
            content = [{"type": "text", "text": reply.text}] if reply.text else []
            for index, call in enumerate(reply.calls):
                content.append(
                    {
                        "type": "tool_use",
                        "id": call.id or f"toolu_fake_{index}",
                        "name": call.name,
                        "input": call.arguments,
                    }
                )
            return JSONResponse(_message(body, content, "tool_use", reply.usage))
        if isinstance(reply, ErrorReply):
            error = {"type": _ERROR_TYPES.get(reply.status, "api_error"), "message": reply.message}
            return JSONResponse(
                {"type": "error", "error": error}, status_code=reply.status, headers=reply.headers
            )
        assert isinstance(reply, RawReply)
        return JSONResponse(reply.body, status_code=reply.status)

    return app
