"""The one client for the upstream channel's HTTP API (WhatsApp Cloud API wire format, CONTRACTS 4).

The API's short calls (media uploads, usernames, template submissions and
syncs, read receipts) and the activities' durable ones (sends, link media,
the periodic template sync) all go through this class, so the URL, the
unsealed WABA token and the classification of a failure are built in one
place. The HTTP client is injected: production passes the shared pooled
client, a test may pass one with its own transport.

Failures follow httpx's model, one hierarchy under ``ChannelError``, each
carrying the classified ``UpstreamFailure``. Nothing here decides what a
failure means to a caller: the API edge renders it as the spec's error body,
the activities hand retryable ones to Temporal and return permanent ones.

The token never leaves in a failure: an upstream (or a proxy before it) may
echo the request's ``Authorization`` header in its error, and an httpx error
may quote a header it refused, so every failure is built from text with the
token blanked out (domain.redaction) and chains no exception that still holds
it. This is the one place for it because it is the one place the token is
unsealed: sends, media uploads, template syncs and the API's own calls alike.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import httpx

from switchboard import tracing
from switchboard.domain.failure_types import UPSTREAM_PROTOCOL_ERROR_CODE
from switchboard.domain.redaction import Redactor
from switchboard.domain.secrets_box import open_sealed
from switchboard.domain.upstream_errors import (
    UpstreamFailure,
    classify_transport_failure,
    classify_upstream_error,
)
from switchboard.models.tenancy import Waba
from switchboard.settings import Settings

# How much of a non-JSON error body is kept as the failure's message.
_TEXT_LIMIT = 500


class ChannelError(Exception):
    """The upstream call failed; ``failure`` says how (status, code, retryable)."""

    def __init__(self, failure: UpstreamFailure) -> None:
        super().__init__(failure.error_message)
        self.failure = failure


class ChannelUnreachable(ChannelError):
    """No HTTP answer: the upstream timed out (504) or could not be reached (503). Always retryable."""


class ChannelRefused(ChannelError):
    """The upstream answered with an error status.

    ``body`` is the decoded JSON error envelope, or None when the answer was not
    JSON (a proxy's HTML page, say); the failure is classified either way.
    """

    def __init__(self, failure: UpstreamFailure, *, status_code: int, body: Any | None) -> None:
        super().__init__(failure)
        self.status_code = status_code
        self.body = body


class ChannelProtocolError(ChannelError):
    """The upstream said yes but its answer lacks what the call needs (a media id, say). Not retryable."""

    def __init__(self, detail: str) -> None:
        super().__init__(
            UpstreamFailure(
                code=UPSTREAM_PROTOCOL_ERROR_CODE,
                status_code=502,
                error_title="Upstream answered unexpectedly",
                error_message=f"the upstream answered in a way the service cannot use: {detail}",
                retryable=False,
            )
        )


def json_or_none(response: httpx.Response) -> Any | None:
    """The response's JSON body, or None when it is not JSON."""
    try:
        return response.json()
    except ValueError:
        return None


class ChannelTransportFailure(Exception):
    """The cause of a ChannelUnreachable: the httpx error's type and its text, the token blanked out."""


def refusal(response: httpx.Response, *, secrets: Collection[str]) -> ChannelRefused:
    """The classified error for an unsuccessful answer, ``secrets`` (the token sent) blanked out of it."""
    redactor = Redactor(secrets)
    body = redactor.value(json_or_none(response))
    text = redactor.text(response.text)[:_TEXT_LIMIT] if body is None else ""
    classified = body if body is not None else {"error": {"message": text}}
    failure = classify_upstream_error(response.status_code, classified)
    return ChannelRefused(failure, status_code=response.status_code, body=body)


class ChannelClient:
    """The upstream's HTTP API, authenticated with a WABA's sealed token."""

    def __init__(self, http: httpx.AsyncClient, settings: Settings, *, timeout: float | None = None) -> None:
        self._http = http
        self._settings = settings
        # None keeps the injected client's own timeout (the activities' pooled client sets one).
        self._timeout = timeout
        self.base = f"{settings.channel_api_base_url.rstrip('/')}/{settings.channel_api_version}"

    def token(self, waba: Waba) -> str:
        """The WABA's access token, unsealed for this call only (bound to the WABA id)."""
        return open_sealed(
            self._settings.secrets_key_bytes,
            waba.access_token_encrypted,
            associated_data=f"waba:{waba.waba_id}",
        )

    async def request(self, waba: Waba, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """One authenticated call, any status; no answer at all raises ChannelUnreachable."""
        return await self._request(self.token(waba), method, path, **kwargs)

    async def _request(self, token: str, method: str, path: str, **kwargs: Any) -> httpx.Response:
        if self._timeout is not None:
            kwargs.setdefault("timeout", self._timeout)
        headers = {"Authorization": f"Bearer {token}"}
        url = f"{self.base}/{path.lstrip('/')}"
        try:
            traced = {"http.request.method": method, "url.full": url} if tracing.enabled() else None
            with tracing.span("channel " + method, traced) as span:
                response = await self._http.request(method, url, headers=headers, **kwargs)
                if span is not None:
                    span.set_attribute("http.response.status_code", response.status_code)
                return response
        except httpx.TransportError as exc:
            # The httpx error (and its own causes) may quote a header: only its redacted text is chained.
            cause = ChannelTransportFailure(f"{type(exc).__name__}: {Redactor((token,)).text(str(exc))}")
            timed_out = isinstance(exc, httpx.TimeoutException)
            raise ChannelUnreachable(classify_transport_failure(timed_out=timed_out)) from cause

    async def call(self, waba: Waba, method: str, path: str, **kwargs: Any) -> Any:
        """One authenticated call whose successful JSON body is returned; errors raise ChannelRefused."""
        token = self.token(waba)
        response = await self._request(token, method, path, **kwargs)
        if not response.is_success:
            raise refusal(response, secrets=(token,))
        body = json_or_none(response)
        if body is None:
            raise ChannelProtocolError(f"a {response.status_code} answer that is not JSON")
        return body

    async def upload_media(
        self, waba: Waba, *, phone_number_id: str, content: bytes, mime_type: str, filename: str
    ) -> str:
        """POST a file to the phone's media endpoint; the upstream's reusable media id."""
        body = await self.call(
            waba,
            "POST",
            f"{phone_number_id}/media",
            data={"messaging_product": "whatsapp", "type": mime_type},
            files={"file": (filename, content, mime_type)},
        )
        media_id = body.get("id") if isinstance(body, dict) else None
        if not media_id:
            raise ChannelProtocolError("a media upload answered without an id")
        return str(media_id)
