"""A fake upstream channel whose errors echo the request's ``Authorization`` header back.

Proxies and gateways in front of the Cloud API do this; the service must keep
the WABA token it sent out of everything it stores, raises or logs. Sends are
answered from a script of ``EchoedError``s (a Cloud API error envelope whose
message and details quote the header, or an HTML page that dumps it), then
succeed.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response


@dataclass(frozen=True)
class EchoedError:
    """One error answer: ``code`` is the Cloud API error code (JSON), or None for an HTML page."""

    status: int
    code: int | None = None


@dataclass
class EchoChannel:
    """The script of error answers and the Authorization headers the fake received."""

    script: deque[EchoedError] = field(default_factory=deque)
    auth_headers: list[str] = field(default_factory=list)

    def answer(self, *errors: EchoedError) -> None:
        """Queue error answers for the next sends; afterwards sends succeed."""
        self.script.extend(errors)

    def app(self) -> FastAPI:
        app = FastAPI()

        @app.post("/{version}/{phone_number_id}/messages")
        async def messages(request: Request) -> Response:
            body: dict[str, Any] = await request.json()
            auth = request.headers.get("authorization", "")
            self.auth_headers.append(auth)
            if not self.script:
                to = str(body.get("to", "")).lstrip("+")
                wamid = f"wamid.ECHO{len(self.auth_headers):06d}"
                return JSONResponse(
                    {
                        "messaging_product": "whatsapp",
                        "contacts": [{"input": to, "wa_id": to}],
                        "messages": [{"id": wamid}],
                    }
                )
            error = self.script.popleft()
            if error.code is None:
                page = f"<html><body><h1>Bad gateway</h1><pre>Authorization: {auth}</pre></body></html>"
                return HTMLResponse(page, status_code=error.status)
            envelope = {
                "message": f"(#{error.code}) request refused; it carried Authorization: {auth}",
                "type": "OAuthException",
                "code": error.code,
                "error_data": {"messaging_product": "whatsapp", "details": f"echo of {auth}"},
                "fbtrace_id": "Aecho",
            }
            return JSONResponse({"error": envelope}, status_code=error.status)

        return app
