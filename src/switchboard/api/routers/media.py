"""Media uploads: POST /v1/media (reusable id) and POST /v1/messages/upload-media (upload and send)."""

from __future__ import annotations

import hashlib
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Header, UploadFile
from fastapi.responses import JSONResponse

from switchboard.api import sending, upstream
from switchboard.api.deps import Caller, State
from switchboard.domain.errors import ValidationFailed
from switchboard.domain.media import check_media, max_bytes, media_kind_for
from switchboard.models.base import new_id
from switchboard.models.messaging import MediaAsset
from switchboard.store import messages
from switchboard.store.database import unit_of_work

router = APIRouter(tags=["media"])

_CHUNK = 1024 * 1024


async def _read_capped(file: UploadFile, cap: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while chunk := await file.read(_CHUNK):
        size += len(chunk)
        if size > cap:
            raise ValidationFailed(
                f"the file is larger than {cap} bytes",
                code="MEDIA_TOO_LARGE",
                details={"field": "file", "limit_bytes": cap},
            )
        chunks.append(chunk)
    return b"".join(chunks)


def accepted_kind(mime_type: str) -> str:
    """The media send type for a MIME type, or 400 UNSUPPORTED_MEDIA_TYPE."""
    kind = media_kind_for(mime_type)
    if kind is None:
        raise ValidationFailed(
            f"{mime_type} is not a media type the channel accepts",
            code="UNSUPPORTED_MEDIA_TYPE",
            details={"field": "type", "value": mime_type},
        )
    return kind


async def upload_to_channel(
    state: Any, who: Any, phone_number_id: str, file: UploadFile, mime_type: str
) -> str:
    """Check and upload one file for a phone; returns the upstream media id (stored for reuse)."""
    kind = accepted_kind(mime_type)
    content = await _read_capped(file, max_bytes(kind))
    normalized = check_media(kind, mime_type, len(content))
    async with state.sessions() as session:
        phone = await messages.phone_for_send(session, who.tenant_id, phone_number_id)
    media_id = await upstream.upload_media(
        state, phone, content=content, mime_type=normalized, filename=file.filename or "upload"
    )
    async with unit_of_work(state.sessions) as session:
        session.add(
            MediaAsset(
                tenant_id=who.tenant_id,
                phone_number_id=phone.phone_number_id,
                media_id=media_id,
                mime_type=normalized,
                size_bytes=len(content),
                sha256=hashlib.sha256(content).hexdigest(),
            )
        )
    return media_id


@router.post("/v1/media", status_code=201)
async def upload_media(
    state: State,
    who: Caller,
    phone_number_id: Annotated[str, Form()],
    file: Annotated[UploadFile, File()],
    type: Annotated[str, Form(description="MIME type of the file")],
) -> dict[str, Any]:
    """Upload a file once; the returned id can be sent many times (the upstream keeps it 30 days)."""
    if who.is_sandbox:
        # Same checks as live (phone ownership, type, size), then nothing is uploaded.
        async with state.sessions() as session:
            await messages.phone_for_send(session, who.tenant_id, phone_number_id)
        kind = accepted_kind(type)
        check_media(kind, type, len(await _read_capped(file, max_bytes(kind))))
        return {"id": f"sandbox-media-{new_id('x')[2:]}", "sandbox": True}
    return {"id": await upload_to_channel(state, who, phone_number_id, file, type)}


@router.post("/v1/messages/upload-media", status_code=201, response_model=None)
async def upload_and_send(
    state: State,
    who: Caller,
    phone_number_id: Annotated[str, Form()],
    to: Annotated[str, Form(description="recipient phone; BSUID addressing is not accepted for uploads")],
    file: Annotated[UploadFile, File()],
    type: Annotated[str, Form(description="MIME type of the file")],
    caption: Annotated[str | None, Form()] = None,
    filename: Annotated[str | None, Form()] = None,
    idempotency_key: Annotated[str | None, Header(alias="Idempotency-Key", max_length=255)] = None,
) -> JSONResponse:
    """Upload a file and send it as the matching media message in one call."""
    kind = accepted_kind(type)
    media: dict[str, Any] = {"id": "pending-upload"}
    if caption and kind != "sticker" and kind != "audio":
        media["caption"] = caption
    if filename and kind == "document":
        media["filename"] = filename
    body = {"phone_number_id": phone_number_id, "to": to, "type": kind, kind: media}
    # Validate the send (addressing, phone ownership) before spending an upload.
    sending.parse_send_request(body)
    if who.is_sandbox:
        check_media(kind, type, len(await _read_capped(file, max_bytes(kind))))
    else:
        media["id"] = await upload_to_channel(state, who, phone_number_id, file, type)
    ctx = sending.SendContext(
        idempotency_key=idempotency_key, require_to=True, request_path="/v1/messages/upload-media"
    )
    return await sending.submit(state, who, body, ctx)
