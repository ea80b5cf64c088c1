"""Scripted replies and request recording shared by the fake provider servers.

A test scripts what the next calls answer (text, tool calls, an error, a slow
or malformed answer), runs the real SDK against the fake, then asserts on the
wire bodies the fake recorded.
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from fastapi import Request


@dataclass(frozen=True)
class FakeToolCall:
    """One tool call the fake model asks for; ``arguments`` may be a dict or raw text."""

    name: str
    arguments: dict[str, Any] | str
    id: str | None = None
    # Gemini 3+ attaches an opaque signature that must come back verbatim.
    thought_signature: str | None = None


@dataclass(frozen=True)
class TextReply:
    """A final text answer; ``usage`` is the provider's wire usage object (a default when None)."""

    text: str
    usage: dict[str, Any] | None = None
    stop_reason: str | None = None


@dataclass(frozen=True)
class ToolCallReply:
    """An answer that asks for one or more tool calls, with optional text before them."""

    calls: list[FakeToolCall]
    text: str | None = None
    usage: dict[str, Any] | None = None


@dataclass(frozen=True)
class ErrorReply:
    """An HTTP error in the provider's own error envelope."""

    status: int
    message: str = "scripted error"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class EchoHeadersReply:
    """An error (rendered as ErrorReply) whose message echoes the request's credential headers, as
    proxies and gateways do: ``authorization``, ``x-api-key``, ``x-goog-api-key`` and the query string."""

    status: int
    message: str = "upstream gateway refused the request"
    headers: dict[str, str] = field(default_factory=dict)


ECHOED_HEADERS = ("authorization", "x-api-key", "x-goog-api-key", "api-key")


@dataclass(frozen=True)
class RawReply:
    """Any status and body as-is (malformed answers)."""

    status: int
    body: Any


@dataclass(frozen=True)
class SlowReply:
    """Wait, then answer ``then`` (for client timeouts)."""

    delay_seconds: float
    then: Reply


Reply = TextReply | ToolCallReply | ErrorReply | EchoHeadersReply | RawReply | SlowReply


@dataclass(frozen=True)
class RecordedRequest:
    """One request the fake received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


class FakeProvider:
    """The script of replies and the log of requests of one fake server."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self._script: deque[Reply] = deque()

    def script(self, *replies: Reply) -> None:
        """Queue replies for the next calls, in order."""
        self._script.extend(replies)

    @property
    def last_body(self) -> Any:
        """The JSON body of the latest request."""
        return self.requests[-1].body

    async def receive(self, request: Request) -> tuple[Any, Reply]:
        """Record the request and return its body and the reply to render (after any delay)."""
        body = await request.json()
        self.requests.append(
            RecordedRequest(
                method=request.method,
                path=request.url.path,
                headers={key.lower(): value for key, value in request.headers.items()},
                body=body,
            )
        )
        reply: Reply = self._script.popleft() if self._script else TextReply("ok")
        while isinstance(reply, SlowReply):
            await asyncio.sleep(reply.delay_seconds)
            reply = reply.then
        if isinstance(reply, EchoHeadersReply):
            reply = ErrorReply(reply.status, _echo(reply.message, request), reply.headers)
        return body, reply


def _echo(message: str, request: Request) -> str:
    """``message`` followed by the request's credential headers and query, first so no length limit cuts them."""
    echoed = [f"{name}: {request.headers[name]}" for name in ECHOED_HEADERS if name in request.headers]
    if request.url.query:
        echoed.append(f"query: {request.url.query}")
    return f"{message} (request {'; '.join(echoed)})"
