"""A fake service (webhook receiver) and a served simulator for the simulator tests."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from typing import Any

import httpx
from fastapi import FastAPI, Request, Response

from switchboard.domain.signatures import verify_hub_signature
from switchboard.simulator.app import create_simulator_app
from switchboard.simulator.config import SimulatorConfig
from tests.support.http_server import serve_app

APP_SECRET = "sim-test-app-secret"
TOKEN = "test-waba-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
PHONE_ID = "106540352242922"
WAIT_S = 5.0
POLL_S = 0.01


@dataclass
class Delivery:
    """One webhook POST the fake service received."""

    raw: bytes
    headers: dict[str, str]

    @property
    def payload(self) -> dict[str, Any]:
        return json.loads(self.raw)

    @property
    def value(self) -> dict[str, Any]:
        return self.payload["entry"][0]["changes"][0]["value"]

    @property
    def field(self) -> str:
        return self.payload["entry"][0]["changes"][0]["field"]

    def signed(self) -> bool:
        return verify_hub_signature(self.raw, self.headers.get("x-hub-signature-256"), APP_SECRET)


@dataclass
class Receiver:
    """Records webhook posts; answers ``fail_first`` of them with 500."""

    fail_first: int = 0
    deliveries: list[Delivery] = field(default_factory=list)
    attempts: int = 0
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    def app(self) -> FastAPI:
        app = FastAPI()

        @app.post("/channel/webhook")
        async def webhook(request: Request) -> Response:
            self.attempts += 1
            if self.attempts <= self.fail_first:
                return Response(status_code=500)
            self.deliveries.append(Delivery(await request.body(), dict(request.headers)))
            self.arrived.set()
            return Response(status_code=200)

        return app

    def statuses(self, wamid: str) -> list[dict[str, Any]]:
        """Status items received for one message, in arrival order."""
        return [
            status
            for delivery in self.deliveries
            if delivery.field == "messages"
            for status in delivery.value.get("statuses", [])
            if status["id"] == wamid
        ]

    async def wait_for(self, predicate: Callable[[], bool]) -> None:
        """Wait until ``predicate`` holds (webhooks arrive in the background)."""
        try:
            async with asyncio.timeout(WAIT_S):
                while True:
                    self.arrived.clear()
                    if predicate():
                        return
                    await self.arrived.wait()
        except TimeoutError:
            raise AssertionError(f"timed out; received {[d.payload for d in self.deliveries]}") from None


@dataclass
class Sim:
    """A running simulator, its client and the fake service behind it."""

    base_url: str
    client: httpx.AsyncClient
    receiver: Receiver
    config: SimulatorConfig

    async def drain(self) -> None:
        """Wait until the simulator has no background webhook jobs left."""
        for _ in range(int(WAIT_S / POLL_S)):
            if not (await self.client.get("/_sim/health")).json()["background_jobs"]:
                return
            await asyncio.sleep(POLL_S)
        raise AssertionError("simulator background jobs did not finish")

    async def send(self, body: dict[str, Any], *, headers: dict[str, str] | None = None) -> httpx.Response:
        """POST a messages-endpoint body for the default test phone number."""
        return await self.client.post(
            f"/v21.0/{PHONE_ID}/messages", json=body, headers=AUTH if headers is None else headers
        )


def text_body(to: str, text: str = "hello") -> dict[str, Any]:
    """A minimal Cloud API text send."""
    return {
        "messaging_product": "whatsapp",
        "recipient_type": "individual",
        "to": to,
        "type": "text",
        "text": {"body": text},
    }


FAST = SimulatorConfig(
    app_secret=APP_SECRET,
    sent_delay_ms=5,
    delivered_delay_ms=5,
    read_delay_ms=5,
    webhook_attempts=3,
    webhook_retry_ms=10,
    webhook_timeout_s=2.0,
)


@asynccontextmanager
async def running_sim(
    *, fail_first: int = 0, webhook_url: str | None = None, **overrides: Any
) -> AsyncIterator[Sim]:
    """Serve a fake service and a simulator posting to it; yield both."""
    receiver = Receiver(fail_first=fail_first)
    async with serve_app(receiver.app()) as receiver_url:
        config = replace(FAST, webhook_url=webhook_url or f"{receiver_url}/channel/webhook", **overrides)
        async with serve_app(create_simulator_app(config)) as sim_url:
            async with httpx.AsyncClient(base_url=sim_url, timeout=10) as client:
                yield Sim(sim_url, client, receiver, config)
