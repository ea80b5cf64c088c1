"""Media: link downloads (once per link and phone) and uploads to the upstream.

A link is fetched by the service through the egress guard (no private,
loopback or metadata addresses: a tenant's URL must not reach our network),
checked (content type, size cap, streamed so an oversized file is cut off
early) and uploaded, and the upstream media id is
kept, so the same link sent again reuses the id instead of downloading again.
"""

from __future__ import annotations

import hashlib
import logging
from datetime import timedelta

import httpx
from temporalio import activity

from switchboard.activities.channel import channel_client, failure_info, raise_retryable, waba_for
from switchboard.activities.channel_client import ChannelError
from switchboard.activities.deps import ActivityDeps
from switchboard.activities.tools.egress import EgressRefused
from switchboard.domain.errors import ValidationFailed
from switchboard.domain.media import check_media, max_bytes
from switchboard.domain.upstream_errors import classify_transport_failure
from switchboard.models.base import utcnow
from switchboard.models.messaging import MediaAsset
from switchboard.models.send import MediaPrepare, MediaPrepared, UpstreamFailureInfo
from switchboard.store import messages
from switchboard.store.database import unit_of_work

log = logging.getLogger("switchboard.media")

# Upstream keeps media 30 days; reuse a cached id for a little less than that.
REUSE_WINDOW = timedelta(days=29)


def _refused(message: str, code: str) -> MediaPrepared:
    return MediaPrepared(
        failure=UpstreamFailureInfo(code=code, status_code=400, error_title=message, error_message=message)
    )


class MediaActivities:
    """Download-and-upload of link media (client files are uploaded by the API through the same client)."""

    def __init__(self, deps: ActivityDeps) -> None:
        self._deps = deps
        self.client = channel_client(deps)

    @activity.defn(name="media_prepare_link")
    async def prepare_link(self, request: MediaPrepare) -> MediaPrepared:
        """The upstream media id for a link: cached, or downloaded once and uploaded."""
        async with self._deps.sessions() as session:
            cached = await messages.cached_media(
                session,
                phone_number_id=request.phone_number_id,
                source_url=request.link,
                since=utcnow() - REUSE_WINDOW,
            )
        if cached is not None:
            return MediaPrepared(media_id=cached.media_id)
        try:
            content, mime_type = await self._download(request.link, request.media_type)
            check_media(request.media_type, mime_type, len(content), field=f"{request.media_type}.link")
        except ValidationFailed as exc:
            return _refused(exc.message, exc.code or "MEDIA_DOWNLOAD_FAILED")
        waba = await waba_for(self._deps, request.waba_id)
        try:
            media_id = await self.client.upload_media(
                waba,
                phone_number_id=request.phone_number_id,
                content=content,
                mime_type=mime_type,
                filename=request.link.rsplit("/", 1)[-1][:100] or "media",
            )
        except ChannelError as exc:
            if exc.failure.retryable:
                raise_retryable(exc.failure)
            return MediaPrepared(failure=failure_info(exc.failure))
        async with unit_of_work(self._deps.sessions) as session:
            session.add(
                MediaAsset(
                    tenant_id=request.tenant_id,
                    phone_number_id=request.phone_number_id,
                    media_id=media_id,
                    mime_type=mime_type,
                    size_bytes=len(content),
                    sha256=hashlib.sha256(content).hexdigest(),
                    source_url=request.link,
                )
            )
        return MediaPrepared(media_id=media_id)

    async def _download(self, link: str, media_type: str) -> tuple[bytes, str]:
        cap = max_bytes(media_type)
        try:
            async with self._deps.egress_http.stream("GET", link, timeout=30.0) as response:
                if not response.is_success:
                    raise ValidationFailed(
                        f"downloading the media link answered {response.status_code}",
                        code="MEDIA_DOWNLOAD_FAILED",
                    )
                mime_type = response.headers.get("content-type", "application/octet-stream")
                chunks: list[bytes] = []
                size = 0
                async for chunk in response.aiter_bytes():
                    size += len(chunk)
                    if size > cap:
                        raise ValidationFailed(
                            f"the media link is larger than {cap} bytes", code="MEDIA_TOO_LARGE"
                        )
                    chunks.append(chunk)
        except EgressRefused as exc:
            raise ValidationFailed(
                f"the media link is not allowed: {exc}", code="MEDIA_DOWNLOAD_FAILED"
            ) from exc
        except httpx.TimeoutException:
            raise_retryable(classify_transport_failure(timed_out=True))
        except httpx.TransportError as exc:
            raise ValidationFailed(
                f"the media link could not be fetched: {exc}", code="MEDIA_DOWNLOAD_FAILED"
            ) from exc
        return b"".join(chunks), mime_type
