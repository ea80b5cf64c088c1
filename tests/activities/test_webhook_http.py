"""The signed POST of one envelope, and the deployment's webhook configuration."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from datetime import timedelta

import httpx
import pytest
from standardwebhooks.webhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError as StandardWebhookError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from switchboard.activities.tools.egress import EgressGuard
from switchboard.activities.tools.http_client import GuardedTransport
from switchboard.activities.webhooks import http as webhook_http
from switchboard.activities.webhooks.config import WebhookConfig, config_from_settings
from switchboard.activities.webhooks.http import (
    DRAIN_BYTES,
    DRAIN_SECONDS,
    delivery_headers,
    envelope_body,
    post_once,
)
from switchboard.domain.signatures import verify_service_signature
from switchboard.domain.webhook_policy import WebhookPolicy
from tests.conftest import make_settings
from tests.support.http_server import free_port, serve_app
from tests.workflows.test_webhook_support import Receiver


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        (
            {"object": "service_events", "event": "webhook.test", "test": True},
            '{"object":"service_events","event":"webhook.test","delivery_id":"dlv_1","test":true}',
        ),
        ({"event": "x", "delivery_id": "stale", "n": "é"}, '{"event":"x","delivery_id":"dlv_1","n":"é"}'),
        ({"kind": "no event key"}, '{"kind":"no event key","delivery_id":"dlv_1"}'),
    ],
)
def test_envelope_body_places_the_delivery_id_after_the_event(payload, expected):
    assert envelope_body(payload, "dlv_1") == expected.encode()


def test_headers_sign_the_exact_body():
    body = envelope_body({"event": "webhook.test"}, "dlv_9")
    now = int(time.time())
    headers = delivery_headers(
        body, secrets=["whsec_abc"], event_kind="webhook.test", delivery_id="dlv_9", timestamp=now
    )
    assert (headers["Content-Type"], headers["X-Service-Event"], headers["X-Service-Delivery"]) == (
        "application/json",
        "webhook.test",
        "dlv_9",
    )
    assert verify_service_signature(body, headers["X-Service-Signature"], "whsec_abc")
    assert (headers["webhook-id"], headers["webhook-timestamp"]) == ("dlv_9", str(now))
    # The Standard Webhooks reference verifier accepts the same request.
    assert Webhook("whsec_abc").verify(body, dict(headers)) == {
        "event": "webhook.test",
        "delivery_id": "dlv_9",
    }


def test_each_active_secret_signs_under_both_schemes():
    """While a rotation's overlap lasts: X-Service-Signature once per secret, one v1 signature per secret."""
    old, new = "whsec_" + "A" * 43 + "=", "whsec_" + "B" * 43 + "="
    body = envelope_body({"event": "webhook.test"}, "dlv_9")
    now = int(time.time())
    headers = delivery_headers(
        body, secrets=[old, new], event_kind="webhook.test", delivery_id="dlv_9", timestamp=now
    )
    legacy = headers.get_list("X-Service-Signature")
    assert len(legacy) == 2
    assert verify_service_signature(body, legacy[0], old) and verify_service_signature(body, legacy[1], new)
    assert len(headers["webhook-signature"].split(" ")) == 2
    plain = {name: headers[name] for name in ("webhook-id", "webhook-timestamp", "webhook-signature")}
    for secret in (old, new):
        assert Webhook(secret).verify(body, plain) == {"event": "webhook.test", "delivery_id": "dlv_9"}
    with pytest.raises(StandardWebhookError):
        Webhook("whsec_" + "C" * 43 + "=").verify(body, plain)
    with pytest.raises(ValueError, match="at least one"):
        delivery_headers(body, secrets=[], event_kind="webhook.test", delivery_id="dlv_9", timestamp=now)


@pytest.fixture
async def receiver() -> AsyncIterator[tuple[Receiver, str]]:
    hook = Receiver()
    async with serve_app(hook.app()) as base_url:
        yield hook, base_url


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as client:
        yield client


@pytest.mark.parametrize(
    ("answer", "delay", "status", "error", "timed_out", "retry_after"),
    [
        ((204, {}), 0, 204, None, False, None),
        ((500, {"Retry-After": "120"}), 0, 500, "HTTP 500: receiver says no", False, "120"),
        ((410, {}), 0, 410, "HTTP 410: receiver says no", False, None),
        ((200, {}), 1.0, None, "timeout after 0.3 s", True, None),
    ],
)
async def test_post_once_outcomes(receiver, http, answer, delay, status, error, timed_out, retry_after):
    hook, base_url = receiver
    hook.script, hook.delays = [answer], [delay]
    # Answered cases get room for a loaded CI machine (a 0.3 s limit once timed out a 500 there).
    limit = 0.3 if timed_out else 10.0
    outcome = await post_once(http, f"{base_url}/hook", body=b"{}", headers={}, limit_seconds=limit)
    assert (outcome.status_code, outcome.error, outcome.timed_out, outcome.retry_after) == (
        status,
        error,
        timed_out,
        retry_after,
    )
    assert outcome.latency_ms >= (300 if timed_out else 0)


async def test_redirects_are_recorded_not_followed(receiver, http):
    hook, base_url = receiver
    hook.script = [(307, {"Location": f"{base_url}/other"})]
    outcome = await post_once(http, f"{base_url}/hook", body=b"{}", headers={}, limit_seconds=2)
    assert outcome.status_code == 307
    assert outcome.error.startswith(f"HTTP 307 redirect to {base_url}/other (redirects are not followed)")
    assert hook.at("/other") == []


async def test_a_closed_port_is_a_connection_failure(http):
    outcome = await post_once(
        http, f"http://127.0.0.1:{free_port()}/hook", body=b"{}", headers={}, limit_seconds=2
    )
    assert outcome.status_code is None and outcome.error.startswith("connection failed: ConnectError")


async def test_the_egress_guard_refuses_loopback_outside_development(receiver):
    hook, base_url = receiver
    transport = GuardedTransport(EgressGuard(allow_private=False), limits=httpx.Limits(max_connections=4))
    async with httpx.AsyncClient(transport=transport) as guarded:
        outcome = await post_once(guarded, f"{base_url}/hook", body=b"{}", headers={}, limit_seconds=2)
    assert outcome.status_code is None and "refused" in outcome.error
    assert hook.requests == []


class _KeepAliveReceiver:
    """Answers 200 with a chosen body; records the client port of each request (one port, one connection)."""

    def __init__(self, body: bytes = b"ok", *, trickle_seconds: float = 0.0, forever: bool = False) -> None:
        self.body = body
        self.trickle_seconds = trickle_seconds
        # With ``forever`` the body is a chunk every ``trickle_seconds`` that never ends.
        self.forever = forever
        self.ports: list[int] = []

    def app(self) -> Starlette:
        async def hook(request: Request) -> Response:
            await request.body()
            self.ports.append(request.scope["client"][1])
            if not self.trickle_seconds:
                return Response(self.body, status_code=200)

            async def slowly() -> AsyncIterator[bytes]:
                yield b"first"
                await asyncio.sleep(self.trickle_seconds)
                yield b"late"
                while self.forever:
                    await asyncio.sleep(self.trickle_seconds)
                    yield b"more"

            return StreamingResponse(slowly(), status_code=200)

        return Starlette(routes=[Route("/hook", hook, methods=["POST"])])


@pytest.fixture
async def guarded() -> AsyncIterator[httpx.AsyncClient]:
    """The client as the worker builds it: pooled, through the egress guard (loopback allowed)."""
    transport = GuardedTransport(EgressGuard(allow_private=True), limits=httpx.Limits(max_connections=4))
    async with httpx.AsyncClient(transport=transport) as client:
        yield client


async def test_successive_deliveries_share_one_connection(guarded):
    hook = _KeepAliveReceiver(b'{"received":true}')
    async with serve_app(hook.app()) as base_url:
        outcomes = [
            await post_once(guarded, f"{base_url}/hook", body=b"{}", headers={}, limit_seconds=5)
            for _ in range(3)
        ]
    assert [o.status_code for o in outcomes] == [200, 200, 200]
    assert len(hook.ports) == 3 and len(set(hook.ports)) == 1


async def test_a_long_success_body_is_left_unread_and_still_a_success(guarded):
    hook = _KeepAliveReceiver(b"x" * (DRAIN_BYTES * 4))
    async with serve_app(hook.app()) as base_url:
        first = await post_once(guarded, f"{base_url}/hook", body=b"{}", headers={}, limit_seconds=5)
        second = await post_once(guarded, f"{base_url}/hook", body=b"{}", headers={}, limit_seconds=5)
    assert (first.status_code, first.error, second.status_code) == (200, None, 200)
    # Its connection was closed, not kept with half a body in it.
    assert len(set(hook.ports)) == 2


async def test_the_request_limit_stops_at_the_answer(guarded, monkeypatch):
    # The body stalls after its first chunk, longer than the request's limit. With the drain's own bound
    # out of the way, only the request limit still running after the answer could turn this into a timeout.
    monkeypatch.setattr(webhook_http, "DRAIN_SECONDS", 30.0)
    hook = _KeepAliveReceiver(trickle_seconds=30)
    async with serve_app(hook.app()) as base_url:
        started = time.monotonic()
        outcome = await post_once(guarded, f"{base_url}/hook", body=b"{}", headers={}, limit_seconds=3)
        took = time.monotonic() - started
    assert (outcome.status_code, outcome.error, outcome.timed_out) == (200, None, False)
    # The client's per-read timeout (the request's limit, per read) ended the stalled read.
    assert took < 20
    assert outcome.latency_ms < 3000


async def test_a_success_that_trickles_forever_is_cut_at_the_drain_bound(guarded):
    # Each chunk arrives well within the client's per-read timeout: only DRAIN_SECONDS ends the read.
    hook = _KeepAliveReceiver(trickle_seconds=0.2, forever=True)
    async with serve_app(hook.app()) as base_url:
        started = time.monotonic()
        outcome = await post_once(guarded, f"{base_url}/hook", body=b"{}", headers={}, limit_seconds=10)
        took = time.monotonic() - started
    assert (outcome.status_code, outcome.error, outcome.timed_out) == (200, None, False)
    assert DRAIN_SECONDS <= took < DRAIN_SECONDS + 4


async def test_a_success_whose_connection_drops_mid_body_is_still_a_success(guarded):
    async def answer_then_hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\npartial")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer_then_hang_up, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        outcome = await post_once(
            guarded, f"http://127.0.0.1:{port}/hook", body=b"{}", headers={}, limit_seconds=5
        )
    finally:
        server.close()
        await server.wait_closed()
    assert (outcome.status_code, outcome.error, outcome.timed_out) == (200, None, False)


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({}, WebhookConfig()),
        (
            {"webhook_retry_schedule_seconds": "0, 5, 60", "webhook_jitter_ratio": 0.1},
            WebhookConfig(policy=WebhookPolicy(retry_schedule_seconds=(0, 5, 60), jitter_ratio=0.1)),
        ),
        (
            {
                "webhook_retry_schedule_seconds": "[0, 30]",
                "webhook_auto_disable_after_seconds": 3600,
                "webhook_alert_min_attempts": 2,
                "webhook_health_check_interval_seconds": 0,
            },
            WebhookConfig(
                policy=WebhookPolicy(retry_schedule_seconds=(0, 30), auto_disable_after=timedelta(hours=1)),
                alert_min_attempts=2,
                health_check_interval=timedelta(0),
            ),
        ),
        (
            {"webhook_retry_schedule_seconds": "[0, 1.5]", "webhook_request_timeout_seconds": None},
            WebhookConfig(policy=WebhookPolicy(retry_schedule_seconds=(0, 1.5))),
        ),
    ],
)
def test_config_reads_the_settings_that_are_set(fields, expected):
    assert config_from_settings(make_settings("sqlite+aiosqlite://", "127.0.0.1:1", **fields)) == expected


@pytest.mark.parametrize("schedule", ["", "[]", "0,-5", '[1, "x"]'])
def test_a_bad_schedule_is_refused(schedule):
    with pytest.raises(ValueError):
        config_from_settings(
            make_settings("sqlite+aiosqlite://", "127.0.0.1:1", webhook_retry_schedule_seconds=schedule)
        )


def test_envelope_is_valid_json_for_nested_payloads():
    payload = {"event": "channel.message.received", "message": {"text": {"body": "hola ñandú"}}}
    assert json.loads(envelope_body(payload, "dlv_2"))["message"]["text"]["body"] == "hola ñandú"
