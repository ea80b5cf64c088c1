"""Media types the channel accepts and their size caps (Cloud API media limits)."""

from __future__ import annotations

from switchboard.domain.errors import ValidationFailed

MB = 1024 * 1024

_DOCUMENT_TYPES = frozenset(
    {
        "text/plain",
        "application/pdf",
        "application/vnd.ms-excel",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "application/msword",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "application/vnd.ms-powerpoint",
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    }
)

ALLOWED: dict[str, tuple[frozenset[str], int]] = {
    "audio": (frozenset({"audio/aac", "audio/amr", "audio/mpeg", "audio/mp4", "audio/ogg"}), 16 * MB),
    "document": (_DOCUMENT_TYPES, 100 * MB),
    "image": (frozenset({"image/jpeg", "image/png"}), 5 * MB),
    # Animated stickers may be 500 KB; static ones 100 KB. We cannot tell them
    # apart without decoding, so the larger cap applies.
    "sticker": (frozenset({"image/webp"}), 500 * 1024),
    "video": (frozenset({"video/mp4", "video/3gpp"}), 16 * MB),
}


def media_kind_for(mime_type: str) -> str | None:
    """The send type that accepts this MIME type, if any."""
    base = mime_type.split(";", 1)[0].strip().lower()
    for kind, (types, _) in ALLOWED.items():
        if base in types:
            return kind
    return None


def check_media(media_type: str, mime_type: str, size_bytes: int, *, field: str = "file") -> str:
    """The normalized MIME type when it fits ``media_type``'s rules; 400 otherwise."""
    base = mime_type.split(";", 1)[0].strip().lower()
    if media_type not in ALLOWED:
        raise ValidationFailed(
            f"{media_type} is not a media type", code="INVALID_MESSAGE_TYPE", details={"field": "type"}
        )
    types, cap = ALLOWED[media_type]
    if base not in types:
        raise ValidationFailed(
            f"content type {base or 'none'} is not accepted for {media_type}",
            code="UNSUPPORTED_MEDIA_TYPE",
            details={"field": field, "value": base, "accepted": sorted(types)},
        )
    if size_bytes > cap:
        raise ValidationFailed(
            f"{media_type} is {size_bytes} bytes; the limit is {cap}",
            code="MEDIA_TOO_LARGE",
            details={"field": field, "limit_bytes": cap},
        )
    if size_bytes == 0:
        raise ValidationFailed("the media file is empty", code="MEDIA_TOO_LARGE", details={"field": field})
    return base


def max_bytes(media_type: str) -> int:
    """The size cap of a media type (the largest cap for unknown types)."""
    return ALLOWED.get(media_type, (frozenset(), 100 * MB))[1]
