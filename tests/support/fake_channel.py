"""A scriptable fake of the upstream Cloud API on loopback, recording what it received.

Tests assert the exact Cloud API bodies the service sends, and script answers
per recipient: errors, delays, or a gate that holds a request until released.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse


def cloud_error(
    code: int, message: str = "error", *, subcode: int | None = None, details: str = ""
) -> dict[str, Any]:
    """A Cloud API error envelope."""
    error: dict[str, Any] = {
        "message": message,
        "type": "OAuthException",
        "code": code,
        "fbtrace_id": "Afake",
    }
    if subcode is not None:
        error["error_subcode"] = subcode
    if details:
        error["error_data"] = {"messaging_product": "whatsapp", "details": details}
    return {"error": error}


@dataclass
class Scripted:
    status: int
    body: dict[str, Any]
    delay: float = 0.0


@dataclass
class FakeChannel:
    """State and scripts of the fake upstream."""

    sends: list[dict[str, Any]] = field(default_factory=list)
    # Wall-clock arrival time (time.time()) of each entry of ``sends``, for throughput checks.
    send_times: list[float] = field(default_factory=list)
    auth_headers: list[str] = field(default_factory=list)
    uploads: list[dict[str, Any]] = field(default_factory=list)
    # When set, every media upload is answered with it and not stored (an upstream failing for good).
    upload_answer: Scripted | None = None
    refused_uploads: int = 0
    templates: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))
    template_creates: list[dict[str, Any]] = field(default_factory=list)
    username_requests: list[dict[str, Any]] = field(default_factory=list)
    username_script: deque[Scripted] = field(default_factory=deque)
    # Answers for mark-read and template-create calls (afterwards they succeed).
    read_script: deque[Scripted] = field(default_factory=deque)
    template_script: deque[Scripted] = field(default_factory=deque)
    # Answers for template listings per WABA (afterwards they list ``templates``), and the WABAs listed.
    template_list_script: dict[str, deque[Scripted]] = field(default_factory=lambda: defaultdict(deque))
    template_lists: list[str] = field(default_factory=list)
    scripts: dict[str, deque[Scripted]] = field(default_factory=lambda: defaultdict(deque))
    gate: asyncio.Event | None = None
    gate_entered: asyncio.Event = field(default_factory=asyncio.Event)
    _ids: Any = field(default_factory=lambda: itertools.count(1))

    def script(self, to: str, *answers: Scripted) -> None:
        """Queue answers for sends to ``to`` (digits); afterwards sends succeed."""
        self.scripts[to].extend(answers)

    def sends_to(self, to: str) -> list[dict[str, Any]]:
        return [s for s in self.sends if s.get("to", "").lstrip("+") == to]

    def hold(self) -> asyncio.Event:
        """Hold every send request at the door until the returned event is set."""
        self.gate = asyncio.Event()
        self.gate_entered.clear()
        return self.gate

    def app(self) -> FastAPI:
        app = FastAPI()

        @app.post("/{version}/{phone_number_id}/messages")
        async def messages(phone_number_id: str, request: Request) -> JSONResponse:
            body = await request.json()
            self.auth_headers.append(request.headers.get("authorization", ""))
            if body.get("status") == "read":
                self.sends.append({"_phone_number_id": phone_number_id, **body})
                if self.read_script:
                    answer = self.read_script.popleft()
                    return JSONResponse(answer.body, status_code=answer.status)
                return JSONResponse({"success": True})
            if self.gate is not None:
                self.gate_entered.set()
                await self.gate.wait()
            self.sends.append({"_phone_number_id": phone_number_id, **body})
            self.send_times.append(time.time())
            to = str(body.get("to", "")).lstrip("+")
            queue = self.scripts.get(to)
            if queue:
                answer = queue.popleft()
                if answer.delay:
                    await asyncio.sleep(answer.delay)
                return JSONResponse(answer.body, status_code=answer.status)
            wamid = f"wamid.FAKE{next(self._ids):06d}"
            return JSONResponse(
                {
                    "messaging_product": "whatsapp",
                    "contacts": [{"input": body.get("to"), "wa_id": to}],
                    "messages": [{"id": wamid}],
                }
            )

        @app.post("/{version}/{phone_number_id}/media")
        async def media(phone_number_id: str, request: Request) -> JSONResponse:
            form = await request.form()
            if self.upload_answer is not None:
                self.refused_uploads += 1
                return JSONResponse(self.upload_answer.body, status_code=self.upload_answer.status)
            upload = form["file"]
            content = await upload.read()  # type: ignore[union-attr]
            self.uploads.append(
                {
                    "phone_number_id": phone_number_id,
                    "type": form.get("type"),
                    "size": len(content),
                    "filename": upload.filename,
                }
            )  # type: ignore[union-attr]
            return JSONResponse({"id": f"media-{next(self._ids)}"})

        @app.get("/{version}/{waba_id}/message_templates")
        async def list_templates(waba_id: str, request: Request) -> JSONResponse:
            self.template_lists.append(waba_id)
            queue = self.template_list_script.get(waba_id)
            if queue:
                answer = queue.popleft()
                return JSONResponse(answer.body, status_code=answer.status)
            # Cursor paging as the upstream does it: ``next`` only while more pages follow.
            everything = self.templates[waba_id]
            limit = int(request.query_params.get("limit") or 25)
            start = int(request.query_params.get("after") or 0)
            paging: dict[str, Any] = {}
            if start + limit < len(everything):
                after = str(start + limit)
                paging = {
                    "cursors": {"before": str(start), "after": after},
                    "next": f"{request.url}&after={after}",
                }
            return JSONResponse({"data": everything[start : start + limit], "paging": paging})

        @app.post("/{version}/{waba_id}/message_templates")
        async def create_template(waba_id: str, request: Request) -> JSONResponse:
            body = await request.json()
            self.template_creates.append({"waba_id": waba_id, **body})
            if self.template_script:
                answer = self.template_script.popleft()
                return JSONResponse(answer.body, status_code=answer.status)
            return JSONResponse(
                {"id": f"tpl-{next(self._ids)}", "status": "PENDING", "category": body.get("category")}
            )

        @app.post("/{version}/{phone_number_id}/username")
        async def username(phone_number_id: str, request: Request) -> JSONResponse:
            body = await request.json()
            self.username_requests.append({"phone_number_id": phone_number_id, **body})
            if self.username_script:
                answer = self.username_script.popleft()
                return JSONResponse(answer.body, status_code=answer.status)
            return JSONResponse({"status": "approved", "username": body.get("username")})

        return app
