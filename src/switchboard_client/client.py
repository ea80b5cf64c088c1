"""An async client for Switchboard's tenant API, with the spec's retry guidance built in.

Retries (bounded by ``max_retries``):

- 429: wait ``Retry-After`` (or the body's ``retry_after_seconds``), when that
  wait is at most ``max_retry_wait_seconds``; a longer wait (a daily limit, the
  retry endpoint's 5-minute guard) is raised at once.
- 500, 502, 503, 504 and transport failures: exponential backoff with jitter,
  1 s doubling, capped at 60 s; only for requests that are safe to repeat
  (GET, DELETE, and sends, which always carry an Idempotency-Key).
- 409 ``request_in_progress`` (the same Idempotency-Key still running): 0.5 to
  1 s, then again.
- Every other 4xx is permanent and raised as SwitchboardError.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from types import TracebackType
from typing import Any, cast

import httpx

from switchboard_client.errors import SwitchboardError
from switchboard_client.retry import RetryPolicy
from switchboard_client.types import (
    AgentEvent,
    CreatedWebhook,
    Direction,
    MediaType,
    Message,
    Page,
    Webhook,
    WebhookTestDispatch,
)

__all__ = ["SwitchboardClient"]

__version__ = "0.1.0"
DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=10.0)
_SAFE_METHODS = frozenset({"GET", "HEAD", "DELETE"})


class SwitchboardClient:
    """The tenant API over one httpx.AsyncClient; use ``async with`` or call ``aclose()``."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        max_retries: int = 3,
        max_retry_wait_seconds: float = 60.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        jitter: Callable[[], float] = random.random,
    ) -> None:
        if not api_key:
            raise ValueError("an API key (gsk_live_... or gsk_test_...) is required")
        self._http = httpx.AsyncClient(
            base_url=base_url.rstrip("/"),
            transport=transport,
            timeout=timeout,
            headers={"X-API-Key": api_key, "User-Agent": f"switchboard-client-python/{__version__}"},
        )
        self._retry = RetryPolicy(max(0, max_retries), max_retry_wait_seconds, jitter)
        self._sleep = sleep

    async def __aenter__(self) -> SwitchboardClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    # Messages

    async def send_message(
        self, payload: Mapping[str, Any], *, idempotency_key: str | None = None
    ) -> Message:
        """POST /v1/messages with any send payload (the spec's Send payload, by ``type``).

        Without ``idempotency_key`` a fresh one is made, so the client's own
        retries can never send twice; pass your own to make retries across
        processes safe too. A 202 answer is a queued message (status ``queued``).
        """
        key = idempotency_key or str(uuid.uuid4())
        return cast(
            Message, await self._request("POST", "/v1/messages", json=dict(payload), idempotency_key=key)
        )

    async def send_text(
        self,
        *,
        phone_number_id: str,
        body: str,
        to: str | None = None,
        recipient: str | None = None,
        preview_url: bool | None = None,
        idempotency_key: str | None = None,
    ) -> Message:
        """Send a text message to ``to`` (digits, E.164 without +) or a BSUID ``recipient``."""
        text: dict[str, Any] = {"body": body}
        if preview_url is not None:
            text["preview_url"] = preview_url
        payload = _addressed(phone_number_id, to, recipient, {"type": "text", "text": text})
        return await self.send_message(payload, idempotency_key=idempotency_key)

    async def send_template(
        self,
        *,
        phone_number_id: str,
        name: str,
        language: str,
        components: list[dict[str, Any]] | None = None,
        to: str | None = None,
        recipient: str | None = None,
        idempotency_key: str | None = None,
    ) -> Message:
        """Send an approved template; ``components`` carry its parameters in the spec's shape."""
        template: dict[str, Any] = {"name": name, "language": {"code": language}}
        if components:
            template["components"] = components
        payload = _addressed(phone_number_id, to, recipient, {"type": "template", "template": template})
        return await self.send_message(payload, idempotency_key=idempotency_key)

    async def send_media(
        self,
        *,
        phone_number_id: str,
        media_type: MediaType,
        link: str | None = None,
        media_id: str | None = None,
        caption: str | None = None,
        filename: str | None = None,
        to: str | None = None,
        recipient: str | None = None,
        idempotency_key: str | None = None,
    ) -> Message:
        """Send an image, video, audio, document or sticker by public ``link`` or uploaded ``media_id``."""
        if (link is None) == (media_id is None):
            raise ValueError("give exactly one of link and media_id")
        media: dict[str, Any] = {"link": link} if link is not None else {"id": media_id}
        if caption is not None:
            media["caption"] = caption
        if filename is not None:
            media["filename"] = filename
        payload = _addressed(phone_number_id, to, recipient, {"type": media_type, media_type: media})
        return await self.send_message(payload, idempotency_key=idempotency_key)

    async def get_message(self, message_id: str) -> Message:
        """GET /v1/messages/{id}."""
        return cast(Message, await self._request("GET", f"/v1/messages/{_segment(message_id)}"))

    async def list_messages(
        self,
        *,
        phone_number_id: str | None = None,
        direction: Direction | None = None,
        status: str | None = None,
        since: str | None = None,
        until: str | None = None,
        contact_phone: str | None = None,
        conversation_id: str | None = None,
        page: int = 1,
        per_page: int = 20,
    ) -> Page[Message]:
        """One page of GET /v1/messages, newest first (``since``/``until``: ISO date or datetime)."""
        params = {
            "phone_number_id": phone_number_id,
            "direction": direction,
            "status": status,
            "since": since,
            "until": until,
            "contact_phone": contact_phone,
            "conversation_id": conversation_id,
        }
        return await self._page("/v1/messages", params, page=page, per_page=per_page)

    async def iter_messages(self, *, per_page: int = 100, **filters: Any) -> AsyncIterator[Message]:
        """Every message matching ``filters`` (those of ``list_messages``), page after page."""
        page = 1
        while True:
            batch = await self.list_messages(page=page, per_page=per_page, **filters)
            for message in batch.data:
                yield message
            if not batch.has_more or not batch.data:
                return
            page += 1

    async def retry_message(self, message_id: str) -> Message:
        """POST /v1/messages/{id}/retry: send a failed message again (the service deduplicates repeats)."""
        path = f"/v1/messages/{_segment(message_id)}/retry"
        return cast(Message, await self._request("POST", path, safe_to_repeat=True))

    # Webhooks

    async def create_webhook(
        self,
        url: str,
        *,
        events: list[str] | None = None,
        phone_number_id: str | None = None,
        description: str | None = None,
    ) -> CreatedWebhook:
        """POST /v1/webhooks; keep the answer's ``secret`` (shown only here) to verify deliveries."""
        body: dict[str, Any] = {"url": url}
        for name, value in (
            ("events", events),
            ("phone_number_id", phone_number_id),
            ("description", description),
        ):
            if value is not None:
                body[name] = value
        return cast(CreatedWebhook, await self._request("POST", "/v1/webhooks", json=body))

    async def list_webhooks(
        self, *, phone_number_id: str | None = None, page: int = 1, per_page: int = 20
    ) -> Page[Webhook]:
        """One page of GET /v1/webhooks."""
        return await self._page(
            "/v1/webhooks", {"phone_number_id": phone_number_id}, page=page, per_page=per_page
        )

    async def get_webhook(self, webhook_id: str) -> Webhook:
        """GET /v1/webhooks/{id}."""
        return cast(Webhook, await self._request("GET", f"/v1/webhooks/{_segment(webhook_id)}"))

    async def delete_webhook(self, webhook_id: str) -> None:
        """DELETE /v1/webhooks/{id}; its pending retries stop."""
        await self._request("DELETE", f"/v1/webhooks/{_segment(webhook_id)}")

    async def rotate_webhook_secret(
        self, webhook_id: str, *, overlap_seconds: int | None = None
    ) -> CreatedWebhook:
        """POST /v1/webhooks/{id}/rotate-secret: a new ``secret`` (shown only here); the old one keeps
        signing beside it for ``overlap_seconds`` (default 24 h), so verify with both until you switch."""
        path = f"/v1/webhooks/{_segment(webhook_id)}/rotate-secret"
        body = {} if overlap_seconds is None else {"overlap_seconds": overlap_seconds}
        return cast(CreatedWebhook, await self._request("POST", path, json=body))

    async def list_webhook_deliveries(
        self,
        webhook_id: str,
        *,
        status: str | None = None,
        event: str | None = None,
        since: str | None = None,
        page: int = 1,
        per_page: int = 20,
    ) -> Page[dict[str, Any]]:
        """One page of GET /v1/webhooks/{id}/deliveries (the attempt log), newest first."""
        path = f"/v1/webhooks/{_segment(webhook_id)}/deliveries"
        filters = {"status": status, "event": event, "since": since}
        return await self._page(path, filters, page=page, per_page=per_page)

    async def get_webhook_delivery(self, delivery_id: str) -> dict[str, Any]:
        """GET /v1/webhook-deliveries/{id}: one delivery with every attempt."""
        return cast(
            dict[str, Any], await self._request("GET", f"/v1/webhook-deliveries/{_segment(delivery_id)}")
        )

    async def recover_webhook(
        self, webhook_id: str, *, since: str, until: str | None = None
    ) -> dict[str, Any]:
        """POST /v1/webhooks/{id}/recover: resend every delivery that ended failed in [since, until)."""
        body = {"since": since} if until is None else {"since": since, "until": until}
        path = f"/v1/webhooks/{_segment(webhook_id)}/recover"
        return cast(dict[str, Any], await self._request("POST", path, json=body))

    async def resend_webhook_delivery(self, delivery_id: str) -> dict[str, Any]:
        """POST /v1/webhook-deliveries/{id}/resend: send one settled delivery again, under its own id."""
        path = f"/v1/webhook-deliveries/{_segment(delivery_id)}/resend"
        return cast(dict[str, Any], await self._request("POST", path))

    async def get_webhook_recovery(self, recovery_id: str) -> dict[str, Any]:
        """GET /v1/webhook-recoveries/{id}: a recovery's progress."""
        return cast(
            dict[str, Any], await self._request("GET", f"/v1/webhook-recoveries/{_segment(recovery_id)}")
        )

    async def test_webhook(self, webhook_id: str) -> WebhookTestDispatch:
        """POST /v1/webhooks/{id}/test: dispatch a ``webhook.test`` event to this webhook."""
        path = f"/v1/webhooks/{_segment(webhook_id)}/test"
        return cast(WebhookTestDispatch, await self._request("POST", path))

    # Events

    async def list_agent_events(
        self, *, thread_id: str | None = None, type: str | None = None, page: int = 1, per_page: int = 20
    ) -> Page[AgentEvent]:
        """One page of GET /v1/agent-events, newest first (``type`` e.g. ``thread.reactivated``)."""
        params = {"thread_id": thread_id, "type": type}
        return await self._page("/v1/agent-events", params, page=page, per_page=per_page)

    # Transport

    async def _page(self, path: str, params: Mapping[str, Any], *, page: int, per_page: int) -> Page[Any]:
        query = {k: v for k, v in params.items() if v is not None}
        body = await self._request("GET", path, params={**query, "page": page, "per_page": per_page})
        return Page(
            data=list(body["data"]),
            page=int(body["page"]),
            per_page=int(body["per_page"]),
            total=int(body["total"]),
            has_more=bool(body["has_more"]),
        )

    async def _request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
        safe_to_repeat: bool = False,
    ) -> Any:
        """One call with the bounded retries of the module docstring; the parsed JSON answer."""
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
        repeatable = method in _SAFE_METHODS or idempotency_key is not None or safe_to_repeat
        attempt = 0
        while True:
            try:
                response = await self._http.request(method, path, json=json, params=params, headers=headers)
            except httpx.TransportError:
                wait = self._retry.wait_after_transport_error(attempt=attempt, repeatable=repeatable)
                if wait is None:
                    raise
            else:
                if response.is_success:
                    return response.json() if response.content else None
                error = SwitchboardError.from_response(response)
                wait = self._retry.wait_after(
                    error, attempt=attempt, repeatable=repeatable, has_key=idempotency_key is not None
                )
                if wait is None:
                    raise error
            await self._sleep(wait)
            attempt += 1


def _addressed(
    phone_number_id: str, to: str | None, recipient: str | None, rest: dict[str, Any]
) -> dict[str, Any]:
    if to is None and recipient is None:
        raise ValueError("give to (a phone number) or recipient (a BSUID)")
    payload: dict[str, Any] = {"phone_number_id": phone_number_id}
    if to is not None:
        payload["to"] = to
    if recipient is not None:
        payload["recipient"] = recipient
    return {**payload, **rest}


def _segment(value: str) -> str:
    """A path segment, refused when it could change the path (an id is never empty or slashed)."""
    if not value or any(c in value for c in "/?#%\\") or value in (".", ".."):
        raise ValueError(f"not a valid id: {value!r}")
    return value
