"""A fake Gemini API: ``POST /{v1,v1beta}/models/{model}:generateContent`` (camelCase JSON)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from tests.fakes.scripting import ErrorReply, FakeProvider, RawReply, TextReply, ToolCallReply

DEFAULT_USAGE = {"promptTokenCount": 12, "candidatesTokenCount": 6, "totalTokenCount": 18}

_STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}


def _response(model: str, parts: list[dict[str, Any]], finish: str, usage: Any) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0}],
        "usageMetadata": usage or DEFAULT_USAGE,
        "modelVersion": model,
        "responseId": "fake-response",
    }


def build_app(fake: FakeProvider) -> FastAPI:
    """The fake server app, answering from ``fake``'s script."""
    app = FastAPI()

    @app.post("/{version}/models/{model_action}")
    async def generate_content(version: str, model_action: str, request: Request) -> JSONResponse:
        model, _, action = model_action.partition(":")
        if version not in ("v1", "v1beta") or action != "generateContent":
            return JSONResponse(
                {"error": {"code": 404, "message": "no such method", "status": "NOT_FOUND"}}, 404
            )
        _, reply = await fake.receive(request)
        if isinstance(reply, TextReply):
            parts = [{"text": reply.text}]
            return JSONResponse(_response(model, parts, reply.stop_reason or "STOP", reply.usage))
        if isinstance(reply, ToolCallReply):
            parts = [{"text": reply.text}] if reply.text else []
            for call in reply.calls:
                function_call: dict[str, Any] = {"name": call.name, "args": call.arguments}
                if call.id:
                    function_call["id"] = call.id
                part: dict[str, Any] = {"functionCall": function_call}
                if call.thought_signature:
                    part["thoughtSignature"] = call.thought_signature
                parts.append(part)
            return JSONResponse(_response(model, parts, "STOP", reply.usage))
        if isinstance(reply, ErrorReply):
            status = _STATUSES.get(reply.status, "INTERNAL")
            error = {"code": reply.status, "message": reply.message, "status": status}
            return JSONResponse({"error": error}, status_code=reply.status, headers=reply.headers)
        assert isinstance(reply, RawReply)
        return JSONResponse(reply.body, status_code=reply.status)

    return app
