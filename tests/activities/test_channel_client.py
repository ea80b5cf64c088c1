"""The one upstream channel client against a real HTTP server on loopback.

The server speaks the Cloud API's shapes (success bodies, error envelopes), so
the client's URL building, token unsealing and failure classification are
exercised through real sockets; each edge's mapping (API error bodies,
Temporal retries) is covered by the API and workflow tests.
"""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from switchboard.activities.channel_client import (
    ChannelClient,
    ChannelProtocolError,
    ChannelRefused,
    ChannelUnreachable,
)
from switchboard.domain.secrets_box import seal
from switchboard.models.tenancy import Waba
from switchboard.settings import Settings
from tests.conftest import make_settings
from tests.support.http_server import free_port, serve_app

TOKEN = "EAAG-live-token"


@dataclass
class Upstream:
    """Answers every request with ``reply`` and remembers what it saw."""

    reply: Callable[[Request], Response] = lambda _: JSONResponse({"success": True})
    delay: float = 0.0
    seen: list[tuple[str, str, str | None]] = field(default_factory=list)

    def app(self) -> Starlette:
        async def handle(request: Request) -> Response:
            await request.body()
            await asyncio.sleep(self.delay)
            self.seen.append((request.method, request.url.path, request.headers.get("authorization")))
            return self.reply(request)

        return Starlette(routes=[Route("/{path:path}", handle, methods=["GET", "POST"])])


@pytest.fixture
async def upstream() -> AsyncIterator[tuple[Upstream, str]]:
    fake = Upstream()
    async with serve_app(fake.app()) as url:
        yield fake, url


def settings_for(url: str) -> Settings:
    return make_settings("sqlite+aiosqlite:///:memory:", "127.0.0.1:1", channel_api_base_url=url)


def waba(settings: Settings) -> Waba:
    sealed = seal(settings.secrets_key_bytes, TOKEN, associated_data="waba:1234")
    return Waba(tenant_id="t", waba_id="1234", access_token_encrypted=sealed)


async def test_a_call_is_authenticated_with_the_unsealed_token_and_returns_json(
    upstream: tuple[Upstream, str],
) -> None:
    fake, url = upstream
    settings = settings_for(url)
    async with httpx.AsyncClient() as http:
        body = await ChannelClient(http, settings).call(waba(settings), "POST", "/555/messages", json={})
    assert body == {"success": True}
    assert fake.seen == [("POST", f"/{settings.channel_api_version}/555/messages", f"Bearer {TOKEN}")]


async def test_an_error_envelope_is_refused_with_its_classification(upstream: tuple[Upstream, str]) -> None:
    fake, url = upstream
    envelope = {"error": {"message": "Rate limit hit", "type": "OAuthException", "code": 130429}}
    fake.reply = lambda _: JSONResponse(envelope, status_code=400)
    settings = settings_for(url)
    async with httpx.AsyncClient() as http:
        with pytest.raises(ChannelRefused) as refused:
            await ChannelClient(http, settings).call(waba(settings), "POST", "555/messages", json={})
    assert refused.value.status_code == 400 and refused.value.body == envelope
    assert refused.value.failure.upstream_code == 130429
    assert refused.value.failure.retryable is True


async def test_an_error_that_is_not_json_keeps_no_body_but_is_classified(
    upstream: tuple[Upstream, str],
) -> None:
    fake, url = upstream
    fake.reply = lambda _: PlainTextResponse("<html>bad gateway</html>", status_code=502)
    settings = settings_for(url)
    async with httpx.AsyncClient() as http:
        with pytest.raises(ChannelRefused) as refused:
            await ChannelClient(http, settings).call(waba(settings), "GET", "1234/message_templates")
    assert refused.value.body is None and refused.value.status_code == 502
    assert refused.value.failure.retryable is True


async def test_an_upload_without_a_media_id_is_a_protocol_error(upstream: tuple[Upstream, str]) -> None:
    fake, url = upstream
    fake.reply = lambda _: JSONResponse({"ok": True})
    settings = settings_for(url)
    async with httpx.AsyncClient() as http:
        client = ChannelClient(http, settings)
        with pytest.raises(ChannelProtocolError) as protocol:
            await client.upload_media(
                waba(settings), phone_number_id="555", content=b"x", mime_type="image/png", filename="a.png"
            )
        fake.reply = lambda _: JSONResponse({"id": "media-1"})
        media_id = await client.upload_media(
            waba(settings), phone_number_id="555", content=b"x", mime_type="image/png", filename="a.png"
        )
    assert (protocol.value.failure.status_code, protocol.value.failure.retryable) == (502, False)
    assert media_id == "media-1"


async def test_a_refused_connection_is_unreachable_503() -> None:
    settings = settings_for(f"http://127.0.0.1:{free_port()}")
    async with httpx.AsyncClient() as http:
        with pytest.raises(ChannelUnreachable) as unreachable:
            await ChannelClient(http, settings).call(waba(settings), "POST", "555/messages", json={})
    assert (unreachable.value.failure.status_code, unreachable.value.failure.retryable) == (503, True)


async def test_no_answer_within_the_timeout_is_unreachable_504(upstream: tuple[Upstream, str]) -> None:
    fake, url = upstream
    fake.delay = 3.0
    settings = settings_for(url)
    async with httpx.AsyncClient() as http:
        with pytest.raises(ChannelUnreachable) as unreachable:
            await ChannelClient(http, settings, timeout=0.2).call(
                waba(settings), "POST", "555/messages", json={}
            )
    assert (unreachable.value.failure.status_code, unreachable.value.failure.retryable) == (504, True)


def _chain_text(error: BaseException) -> str:
    """What a traceback prints of the error and every exception chained to it."""
    return "".join(traceback.format_exception(error))


@pytest.mark.parametrize(
    "reply",
    [
        lambda request: JSONResponse(
            {
                "error": {
                    "message": f"refused; it carried Authorization: {request.headers['authorization']}",
                    "code": 131008,
                    "error_data": {"details": f"echo {request.headers['authorization']}"},
                }
            },
            status_code=400,
        ),
        lambda request: PlainTextResponse(f"proxy saw {request.headers['authorization']}", status_code=502),
    ],
    ids=["error-envelope", "plain-text"],
)
async def test_an_error_echoing_the_token_is_refused_without_it(
    upstream: tuple[Upstream, str], reply: Callable[[Request], Response]
) -> None:
    fake, url = upstream
    fake.reply = reply
    settings = settings_for(url)
    async with httpx.AsyncClient() as http:
        with pytest.raises(ChannelRefused) as caught:
            await ChannelClient(http, settings).call(waba(settings), "POST", "/555/messages", json={})
    refused = caught.value
    assert "[redacted]" in refused.failure.error_message
    for text in (refused.failure.error_message, repr(refused.body), _chain_text(refused)):
        assert TOKEN not in text


async def test_a_transport_error_quoting_the_token_is_chained_without_it() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.LocalProtocolError(f"Illegal header value b'{request.headers['authorization']}'")

    settings = settings_for("http://upstream.test")
    async with httpx.AsyncClient(transport=httpx.MockTransport(refuse)) as http:
        with pytest.raises(ChannelUnreachable) as caught:
            await ChannelClient(http, settings).call(waba(settings), "POST", "/555/messages", json={})
    text = _chain_text(caught.value)
    assert TOKEN not in text
    assert "LocalProtocolError: Illegal header value b'Bearer [redacted]'" in text
