"""Media storage rules: allowed MIME types, size limits and expiring download URLs."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from switchboard.simulator.state import MediaItem, SimState

_MB = 1024 * 1024
# Documented upload limits per MIME type (stickers: the animated limit).
MIME_LIMITS: dict[str, int] = {
    **dict.fromkeys(("audio/aac", "audio/amr", "audio/mpeg", "audio/mp4", "audio/ogg"), 16 * _MB),
    **dict.fromkeys(
        (
            "text/plain",
            "application/pdf",
            "application/vnd.ms-excel",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "application/msword",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "application/vnd.ms-powerpoint",
            "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        ),
        100 * _MB,
    ),
    "image/jpeg": 5 * _MB,
    "image/png": 5 * _MB,
    "image/webp": 500 * 1024,
    "video/mp4": 16 * _MB,
    "video/3gpp": 16 * _MB,
}

DOWNLOAD_PATH = "/whatsapp_business/attachments/"


def base_mime(mime_type: str) -> str:
    """The MIME type without parameters (``audio/ogg; codecs=opus`` -> ``audio/ogg``)."""
    return mime_type.split(";", 1)[0].strip().lower()


def upload_problem(mime_type: str, size: int) -> str | None:
    """Why an upload would be refused with 131053, or None when it is acceptable."""
    limit = MIME_LIMITS.get(base_mime(mime_type))
    if limit is None:
        allowed = ", ".join(MIME_LIMITS)
        return f"Param file must be a file with one of the following types: {allowed}. Received {mime_type}."
    if size == 0:
        return "The uploaded file is empty."
    if size > limit:
        return f"File size {size} bytes is over the {limit} bytes allowed for {base_mime(mime_type)}."
    return None


def url_hash(secret: str, media_id: str, expires_at: int) -> str:
    """The tamper check of a download URL."""
    message = f"{media_id}.{expires_at}".encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()[:32]


def download_url(state: SimState, item: MediaItem, *, base_url: str, now: int) -> str:
    """A lookaside-style URL valid for ``media_url_ttl_s`` seconds."""
    config = state.config
    expires_at = now + config.media_url_ttl_s
    base = (config.public_base_url or base_url).rstrip("/")
    signature = url_hash(config.app_secret, item.id, expires_at)
    return f"{base}{DOWNLOAD_PATH}?mid={item.id}&ext={expires_at}&hash={signature}"


def media_info(state: SimState, item: MediaItem, *, base_url: str, now: int) -> dict[str, Any]:
    """The ``GET /{media_id}`` answer."""
    return {
        "messaging_product": "whatsapp",
        "url": download_url(state, item, base_url=base_url, now=now),
        "mime_type": item.mime_type,
        "sha256": item.sha256,
        "file_size": str(len(item.data)),
        "id": item.id,
    }


def store_media(
    state: SimState,
    *,
    media_id: str,
    phone_number_id: str,
    mime_type: str,
    data: bytes,
    now: int,
    filename: str | None,
) -> MediaItem:
    """Keep a media object and return it."""
    item = MediaItem(
        id=media_id,
        phone_number_id=phone_number_id,
        mime_type=mime_type,
        data=data,
        sha256=hashlib.sha256(data).hexdigest(),
        created_at=now,
        filename=filename,
    )
    state.media[media_id] = item
    return item
