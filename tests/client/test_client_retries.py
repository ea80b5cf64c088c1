"""The client's retry rules (the spec's retry guidance), against a scripted server.

The real service cannot be made to answer 503 or a short 429 on cue, so a small
ASGI app plays it: it answers from a script with the spec's error body and
records each request. The client's sleep is injected and recorded, so no test
waits on a clock.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from switchboard_client import SwitchboardClient, SwitchboardError
from tests.support.http_server import free_port

MESSAGE = {
    "id": "msg_1",
    "phone_number_id": "800000000001",
    "direction": "outbound",
    "message_type": "text",
    "wa_message_id": "wamid.1",
    "status": "sent",
    "to_phone": "15551230001",
    "created_at": "2026-11-24T12:00:00.000Z",
}
TEXT = {"phone_number_id": "800000000001", "to": "15551230001", "type": "text", "text": {"body": "hi"}}


def error(status: int, message: str, *, code: str | None = None, **extra: Any) -> tuple[int, dict[str, Any]]:
    body: dict[str, Any] = {"statusCode": status, "message": message, "error": "Error", **extra}
    if code:
        body["code"] = code
    return status, body


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes


@dataclass
class ScriptedService:
    """Answers from ``script`` (status, body, headers), then ``MESSAGE``; records every request."""

    script: list[tuple[int, Any, dict[str, str]]] = field(default_factory=list)
    requests: list[Seen] = field(default_factory=list)

    def then(self, status: int, body: Any, **headers: str) -> ScriptedService:
        self.script.append((status, body, {k.replace("_", "-"): v for k, v in headers.items()}))
        return self

    def app(self) -> Starlette:
        async def any_route(request: Request) -> Response:
            self.requests.append(
                Seen(
                    request.method,
                    request.url.path,
                    request.url.query,
                    dict(request.headers),
                    await request.body(),
                )
            )
            status, body, headers = self.script.pop(0) if self.script else (200, MESSAGE, {})
            if isinstance(body, str):
                return Response(body, status_code=status, headers=headers)
            return JSONResponse(body, status_code=status, headers=headers)

        methods = ["GET", "POST", "DELETE"]
        return Starlette(routes=[Route("/{path:path}", any_route, methods=methods)])


@dataclass
class Harness:
    service: ScriptedService
    client: SwitchboardClient
    waits: list[float]


@pytest.fixture
async def harness() -> AsyncIterator[Harness]:
    service = ScriptedService()
    waits: list[float] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)

    client = SwitchboardClient(
        "http://switchboard.test",
        "gsk_live_" + "k" * 32,
        transport=httpx.ASGITransport(app=service.app()),
        sleep=record,
        jitter=lambda: 0.5,
    )
    async with client:
        yield Harness(service, client, waits)


async def test_a_429_waits_retry_after_then_succeeds(harness: Harness):
    harness.service.then(*error(429, "slow down", retry_after_seconds=2), Retry_After="2")
    assert (await harness.client.get_message("msg_1"))["id"] == "msg_1"
    assert harness.waits == [2.0] and len(harness.service.requests) == 2


async def test_a_429_without_the_header_uses_the_bodys_wait(harness: Harness):
    harness.service.then(*error(429, "slow down", retry_after_seconds=3))
    await harness.client.get_message("msg_1")
    assert harness.waits == [3.0]


async def test_a_429_beyond_the_bound_is_raised_without_waiting(harness: Harness):
    harness.service.then(*error(429, "too soon", code="too_many_requests", retry_after_seconds=300))
    with pytest.raises(SwitchboardError) as caught:
        await harness.client.retry_message("msg_1")
    assert (caught.value.status_code, caught.value.code, caught.value.retry_after_seconds) == (
        429,
        "too_many_requests",
        300.0,
    )
    assert harness.waits == [] and len(harness.service.requests) == 1


async def test_5xx_backs_off_doubling_from_one_second(harness: Harness):
    for _ in range(3):
        harness.service.then(*error(503, "upstream unavailable"))
    assert (await harness.client.get_message("msg_1"))["id"] == "msg_1"
    assert harness.waits == [1.0, 2.0, 4.0]


async def test_retries_are_bounded_and_the_last_error_is_raised(harness: Harness):
    for _ in range(10):
        harness.service.then(*error(500, "boom"))
    with pytest.raises(SwitchboardError) as caught:
        await harness.client.get_message("msg_1")
    assert caught.value.status_code == 500 and caught.value.retryable
    assert len(harness.service.requests) == 4 and harness.waits == [1.0, 2.0, 4.0]


async def test_a_send_keeps_one_idempotency_key_across_its_retries(harness: Harness):
    harness.service.then(*error(502, "bad gateway")).then(*error(504, "gateway timeout"))
    sent = await harness.client.send_message(TEXT)
    assert sent["id"] == "msg_1"
    keys = [seen.headers.get("idempotency-key") for seen in harness.service.requests]
    assert len(keys) == 3 and keys[0] and len(set(keys)) == 1
    assert harness.waits == [1.0, 2.0]
    assert json.loads(harness.service.requests[0].body) == TEXT


async def test_a_given_idempotency_key_is_sent_as_is(harness: Harness):
    await harness.client.send_text(
        phone_number_id="800000000001", to="15551230001", body="hi", idempotency_key="k-1"
    )
    (seen,) = harness.service.requests
    assert (seen.method, seen.path, seen.headers["idempotency-key"], seen.headers["x-api-key"]) == (
        "POST",
        "/v1/messages",
        "k-1",
        "gsk_live_" + "k" * 32,
    )
    assert json.loads(seen.body) == TEXT


async def test_request_in_progress_is_retried_shortly(harness: Harness):
    harness.service.then(*error(409, "the same key is still running", code="request_in_progress"))
    await harness.client.send_message(TEXT, idempotency_key="k-2")
    assert harness.waits == [0.75]


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (400, "MISSING_REQUIRED_FIELD"),
        (401, "INVALID_API_KEY"),
        (403, "customer_sending_disabled"),
        (409, "x"),
    ],
)
async def test_other_4xx_are_permanent(harness: Harness, status: int, code: str):
    harness.service.then(*error(status, "no", code=code, details={"field": "to"}))
    with pytest.raises(SwitchboardError) as caught:
        await harness.client.send_message(TEXT)
    assert (caught.value.status_code, caught.value.code, caught.value.details) == (
        status,
        code,
        {"field": "to"},
    )
    assert not caught.value.retryable and harness.waits == [] and len(harness.service.requests) == 1


async def test_a_post_without_a_key_is_not_repeated_after_a_5xx(harness: Harness):
    harness.service.then(*error(500, "boom"))
    with pytest.raises(SwitchboardError):
        await harness.client.test_webhook("wh_1")
    assert harness.waits == [] and len(harness.service.requests) == 1


async def test_a_body_that_is_not_the_spec_shape_still_gives_an_error(harness: Harness):
    harness.service.then(418, "<html>teapot</html>")
    with pytest.raises(SwitchboardError) as caught:
        await harness.client.get_webhook("wh_1")
    assert (caught.value.status_code, caught.value.code, caught.value.message) == (
        418,
        None,
        "<html>teapot</html>",
    )


async def test_pages_are_followed_until_has_more_is_false(harness: Harness):
    def page(n: int, ids: list[str], has_more: bool) -> dict[str, Any]:
        data = [{**MESSAGE, "id": i} for i in ids]
        return {"data": data, "page": n, "per_page": 2, "total": 3, "has_more": has_more}

    harness.service.then(200, page(1, ["a", "b"], True)).then(200, page(2, ["c"], False))
    got = [m["id"] async for m in harness.client.iter_messages(per_page=2, direction="outbound")]
    assert got == ["a", "b", "c"]
    queries = [seen.query for seen in harness.service.requests]
    assert queries == ["direction=outbound&page=1&per_page=2", "direction=outbound&page=2&per_page=2"]


@pytest.mark.parametrize("bad", ["", "a/b", "../x", "a?b", "a#b", "%2e"])
async def test_ids_cannot_change_the_path(harness: Harness, bad: str):
    with pytest.raises(ValueError):
        await harness.client.get_message(bad)
    assert harness.service.requests == []


async def test_send_helpers_refuse_incomplete_arguments_before_any_request(harness: Harness):
    with pytest.raises(ValueError):
        await harness.client.send_text(phone_number_id="800000000001", body="to nobody")
    with pytest.raises(ValueError):
        await harness.client.send_media(
            phone_number_id="800000000001",
            to="15551230001",
            media_type="image",
            link="https://x/a.png",
            media_id="m1",
        )
    assert harness.service.requests == []


async def test_helpers_build_the_specs_payloads(harness: Harness):
    await harness.client.send_template(
        phone_number_id="800000000001", recipient="US.123", name="order_ready", language="en_US"
    )
    await harness.client.send_media(
        phone_number_id="800000000001",
        to="15551230001",
        media_type="document",
        media_id="m1",
        filename="a.pdf",
    )
    template, document = (json.loads(seen.body) for seen in harness.service.requests)
    assert template == {
        "phone_number_id": "800000000001",
        "recipient": "US.123",
        "type": "template",
        "template": {"name": "order_ready", "language": {"code": "en_US"}},
    }
    assert document == {
        "phone_number_id": "800000000001",
        "to": "15551230001",
        "type": "document",
        "document": {"id": "m1", "filename": "a.pdf"},
    }


async def test_connection_failures_of_a_read_are_retried_then_raised():
    waits: list[float] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)

    nobody = f"http://127.0.0.1:{free_port()}"
    async with SwitchboardClient(nobody, "gsk_live_" + "k" * 32, sleep=record, jitter=lambda: 0.5) as client:
        with pytest.raises(httpx.ConnectError):
            await client.list_webhooks()
    assert waits == [1.0, 2.0, 4.0]


def test_an_api_key_is_required():
    with pytest.raises(ValueError):
        SwitchboardClient("http://switchboard.test", "")


async def test_backoff_is_capped_at_sixty_seconds():
    service = ScriptedService()
    for _ in range(9):
        service.then(*error(503, "upstream unavailable"))
    waits: list[float] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)

    transport = httpx.ASGITransport(app=service.app())
    client = SwitchboardClient(
        "http://switchboard.test", "gsk_live_" + "k" * 32, transport=transport, sleep=record, max_retries=9
    )
    async with client:
        assert (await client.get_message("msg_1"))["id"] == "msg_1"
    assert waits[:6] == pytest.approx([1, 2, 4, 8, 16, 32], rel=0.2)
    assert waits[6:] and all(48 <= wait <= 60 for wait in waits[6:])
