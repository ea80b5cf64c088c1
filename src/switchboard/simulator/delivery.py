"""Posting signed webhooks to the service, retrying a few times, then dropping."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

import httpx

from switchboard.domain.signatures import HUB_SIGNATURE_HEADER, hub_signature
from switchboard.simulator.state import DeliveryRecord, SimState

log = logging.getLogger("switchboard.simulator")

USER_AGENT = "facebookexternalua"


def encode_webhook(payload: dict[str, Any]) -> bytes:
    """Serialise a webhook the way the channel does: ASCII-only with escaped slashes.

    The channel escapes non-ASCII characters and ``/``, so a receiver that
    re-serialises the JSON before checking the signature gets a different digest.
    """
    text = json.dumps(payload, ensure_ascii=True, separators=(",", ":"))
    return text.replace("/", "\\/").encode("ascii")


class WebhookPoster:
    """Signs and posts webhook envelopes to the configured service URL."""

    def __init__(self, client: httpx.AsyncClient, state: SimState) -> None:
        self._client = client
        self._state = state

    async def post(
        self, payload: dict[str, Any], *, kind: str, wamid: str | None = None, status: str | None = None
    ) -> DeliveryRecord:
        """Deliver one envelope; never raises, records the outcome in the delivery log."""
        config = self._state.config
        body = encode_webhook(payload)
        headers = {
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            HUB_SIGNATURE_HEADER: hub_signature(body, config.app_secret),
        }
        record = DeliveryRecord(
            kind=kind, url=config.webhook_url, delivered=False, attempts=0, at=int(time.time()), wamid=wamid
        )
        record.status = status
        attempts = max(1, config.webhook_attempts)
        for attempt in range(1, attempts + 1):
            record.attempts = attempt
            try:
                response = await self._client.post(
                    config.webhook_url, content=body, headers=headers, timeout=config.webhook_timeout_s
                )
            except httpx.HTTPError as exc:
                record.status_code, record.error = None, f"{type(exc).__name__}: {exc}"
            else:
                record.status_code, record.error = response.status_code, None
                if response.is_success:
                    record.delivered = True
                    break
                record.error = f"HTTP {response.status_code}"
            if attempt < attempts:
                await asyncio.sleep(config.webhook_retry_ms / 1000 * 2 ** (attempt - 1))
        if not record.delivered:
            # The service may simply be down (dev restarts); the channel gives up the same way.
            log.warning(
                "simulator dropped %s webhook after %d attempts: %s (wamid=%s status=%s)",
                kind,
                record.attempts,
                record.error,
                wamid,
                status,
            )
        self._state.deliveries.append(record)
        return record
