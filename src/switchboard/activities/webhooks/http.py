"""One signed POST of an envelope to a tenant endpoint.

The body is serialised once and those exact bytes are signed and sent, under
both schemes: ``X-Service-Signature`` (the spec's, over the body) and the
Standard Webhooks headers (over the delivery id, this attempt's time and the
body), each once per active secret while a rotation's overlap lasts.
Redirects are never followed (a 3xx is a failure, as with Svix, Stripe and
GitHub), the answer's status and headers must arrive within the request
timeout, and the attempt log keeps at most the first 4 KB of an answer's
body. Outside development the destination must resolve to public addresses
only.

A 2xx answer's short body is read to its end even though only its first 4 KB
is kept: httpx closes a connection whose response was not read to the end,
so without this every delivery opened a new connection (a TLS handshake in
production). That read is bounded in bytes and time and can never turn a
success into a failure.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx
from opentelemetry.trace import StatusCode

from switchboard import tracing
from switchboard.activities.tools.egress import EgressRefused
from switchboard.domain import standard_webhooks
from switchboard.domain.signatures import SERVICE_SIGNATURE_HEADER, service_signature

EVENT_HEADER = "X-Service-Event"
DELIVERY_HEADER = "X-Service-Delivery"
USER_AGENT = "Switchboard-Webhooks/1.0"
SNIPPET_BYTES = 512
# The attempt log keeps this much of every answer's body (docs/webhooks.md, "The attempt log").
BODY_BYTES = 4096
# A 2xx body longer than this, or slower than DRAIN_SECONDS, is left unread and its connection closed.
DRAIN_BYTES = 64 * 1024
DRAIN_SECONDS = 1.0


@dataclass(frozen=True)
class PostOutcome:
    """What one POST came back with (``status_code`` None: no HTTP answer)."""

    status_code: int | None
    latency_ms: int
    error: str | None = None
    timed_out: bool = False
    retry_after: str | None = None
    # The answer's first BODY_BYTES as text (None: no answer, or a compressed success's body).
    response_body: str | None = None


def envelope_body(payload: dict[str, Any], delivery_id: str) -> bytes:
    """The envelope as sent: the event's payload with ``delivery_id`` right after ``event``."""
    envelope: dict[str, Any] = {}
    for key, value in payload.items():
        if key == "delivery_id":
            continue
        envelope[key] = value
        if key == "event":
            envelope["delivery_id"] = delivery_id
    envelope.setdefault("delivery_id", delivery_id)
    return json.dumps(envelope, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def delivery_headers(
    body: bytes, *, secrets: Sequence[str], event_kind: str, delivery_id: str, timestamp: int
) -> httpx.Headers:
    """The headers of every delivery (CONTRACTS 5, docs/webhooks.md "Signatures").

    ``secrets`` are the active ones, the replaced secret first while a rotation's overlap lasts:
    ``X-Service-Signature`` then comes once per secret, in that order, and ``webhook-signature``
    holds one signature per secret. ``timestamp`` is this attempt's time in Unix seconds.
    """
    if not secrets:
        raise ValueError("a delivery needs at least one signing secret")
    signatures = [(SERVICE_SIGNATURE_HEADER, service_signature(body, secret)) for secret in secrets]
    return httpx.Headers(
        [
            ("Content-Type", "application/json"),
            ("User-Agent", USER_AGENT),
            *signatures,
            (EVENT_HEADER, event_kind),
            (DELIVERY_HEADER, delivery_id),
            (standard_webhooks.ID_HEADER, delivery_id),
            (standard_webhooks.TIMESTAMP_HEADER, str(timestamp)),
            (
                standard_webhooks.SIGNATURE_HEADER,
                standard_webhooks.signature_header(
                    secrets, msg_id=delivery_id, timestamp=timestamp, body=body
                ),
            ),
        ]
    )


def _text(data: bytes | bytearray) -> str:
    return bytes(data[:BODY_BYTES]).decode("utf-8", "replace").strip()


async def _head_of_body(response: httpx.Response) -> str:
    """A failure's first BODY_BYTES (decoded if compressed), read within the request's own limit."""
    chunks = bytearray()
    async for chunk in response.aiter_bytes():
        chunks.extend(chunk)
        if len(chunks) >= BODY_BYTES:
            break
    return _text(chunks)


async def _drain(response: httpx.Response) -> str | None:
    """Read a success's body to its end so its connection can serve the next POST, or give up on it;
    its first BODY_BYTES as text for the attempt log (None when compressed).

    Raw bytes, never decoded (a compressed answer cannot grow in memory). Any failure only costs the
    connection, whatever raised it (a TLS error mid-body reaches here untranslated): the receiver has
    already said 2xx, and an exception would have the attempt run, and POST, again.
    """
    head = bytearray()
    read = 0
    try:
        async with asyncio.timeout(DRAIN_SECONDS):
            async for chunk in response.aiter_raw():
                if len(head) < BODY_BYTES:
                    head.extend(chunk[: BODY_BYTES - len(head)])
                read += len(chunk)
                if read > DRAIN_BYTES:
                    break  # left unread: httpx closes the connection
    except Exception:  # noqa: BLE001 - cancellation (a BaseException) still propagates
        pass
    return None if response.headers.get("content-encoding") else _text(head)


def _failure_text(response: httpx.Response, snippet: str) -> str:
    text = f"HTTP {response.status_code}"
    if response.is_redirect:
        text += f" redirect to {response.headers.get('location', '?')} (redirects are not followed)"
    return f"{text}: {snippet}" if snippet else text


async def post_once(
    http: httpx.AsyncClient, url: str, *, body: bytes, headers: httpx.Headers, limit_seconds: float
) -> PostOutcome:
    """POST once; any answer or failure is returned, never raised.

    With tracing on, the POST is a span and carries its ``traceparent``, so the receiver can continue
    the trace (the signatures cover the body, the id and the timestamp, not this header).
    """
    if not tracing.enabled():
        return await _post(http, url, body=body, headers=headers, limit_seconds=limit_seconds)
    # The host only: a receiver's URL may carry a token of its own, and spans leave the service.
    attributes = {"http.request.method": "POST", "server.address": urlsplit(url).hostname or ""}
    with tracing.span("webhook POST", attributes) as span:
        assert span is not None
        traced = httpx.Headers(headers)
        traced.update(tracing.outgoing_headers())
        outcome = await _post(http, url, body=body, headers=traced, limit_seconds=limit_seconds)
        if outcome.status_code is not None:
            span.set_attribute("http.response.status_code", outcome.status_code)
        if outcome.error:
            # Not the answer's text: it is the receiver's, and may quote anything.
            failed = f"HTTP {outcome.status_code}" if outcome.status_code is not None else "no answer"
            span.set_status(StatusCode.ERROR, "timeout" if outcome.timed_out else failed)
        return outcome


async def _post(
    http: httpx.AsyncClient, url: str, *, body: bytes, headers: httpx.Headers, limit_seconds: float
) -> PostOutcome:
    started = time.monotonic()

    def elapsed() -> int:
        return int((time.monotonic() - started) * 1000)

    try:
        async with asyncio.timeout(limit_seconds) as deadline:
            async with http.stream(
                "POST",
                url,
                content=body,
                headers=headers,
                timeout=httpx.Timeout(limit_seconds),
                follow_redirects=False,
            ) as response:
                ok = 200 <= response.status_code <= 299
                answered_ms = elapsed()
                answer: str | None = None
                if ok and not deadline.expired():
                    # Answered: the drain has its own bound and the request's limit no longer applies.
                    deadline.reschedule(None)
                    answer = await _drain(response)
                elif not ok:
                    answer = await _head_of_body(response)
    except EgressRefused as exc:
        return PostOutcome(None, elapsed(), error=str(exc)[:500])
    except (TimeoutError, httpx.TimeoutException):
        return PostOutcome(None, elapsed(), error=f"timeout after {limit_seconds:g} s", timed_out=True)
    except httpx.HTTPError as exc:
        return PostOutcome(None, elapsed(), error=f"connection failed: {type(exc).__name__}: {exc}"[:500])
    return PostOutcome(
        response.status_code,
        answered_ms,
        error=None if ok else _failure_text(response, (answer or "")[:SNIPPET_BYTES])[:600],
        retry_after=response.headers.get("retry-after"),
        response_body=answer,
    )
