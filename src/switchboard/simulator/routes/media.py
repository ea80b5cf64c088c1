"""Media upload and download (``POST /{phone_number_id}/media`` and the download URL)."""

from __future__ import annotations

import hmac
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException

from switchboard.simulator.clock import now_s
from switchboard.simulator.graph_errors import (
    GraphError,
    invalid_parameter,
    media_upload_error,
    missing_parameter,
)
from switchboard.simulator.ids import numeric_id
from switchboard.simulator.media import DOWNLOAD_PATH, store_media, upload_problem, url_hash
from switchboard.simulator.routes.common import State, Token, check_bearer

router = APIRouter()
download_router = APIRouter()


@router.post("/{version}/{phone_number_id}/media")
async def upload_media(phone_number_id: str, request: Request, state: State, _token: Token) -> dict[str, Any]:
    """Store an uploaded file (multipart: file, type, messaging_product) and answer its media id."""
    try:
        form = await request.form()
    except MultiPartException as exc:
        raise invalid_parameter(f"The request must be multipart/form-data: {exc}") from exc
    if form.get("messaging_product") != "whatsapp":
        raise missing_parameter("messaging_product")
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        raise missing_parameter("file")
    declared = form.get("type")
    mime_type = declared if isinstance(declared, str) and declared else upload.content_type
    if not mime_type:
        raise missing_parameter("type")
    data = await upload.read()
    problem = upload_problem(mime_type, len(data))
    if problem is not None:
        raise media_upload_error(problem)
    item = store_media(
        state,
        media_id=numeric_id(),
        phone_number_id=phone_number_id,
        mime_type=mime_type,
        data=data,
        now=now_s(),
        filename=upload.filename,
    )
    return {"id": item.id}


@download_router.get(DOWNLOAD_PATH)
async def download_media(
    request: Request,
    state: State,
    mid: Annotated[str, Query()],
    ext: Annotated[int, Query()],
    hash: Annotated[str, Query()],
) -> Response:
    """Serve a media file to a holder of a fresh URL and a bearer token (404 once expired)."""
    check_bearer(request)
    item = state.media.get(mid)
    expected = url_hash(state.config.app_secret, mid, ext)
    if item is None or ext < now_s() or not hmac.compare_digest(expected, hash):
        raise GraphError(
            404, 100, "The media URL has expired or does not exist.", error_type="GraphMethodException"
        )
    headers = {"Content-Length": str(len(item.data))}
    if item.filename:
        headers["Content-Disposition"] = f'attachment; filename="{item.filename}"'
    return Response(content=item.data, media_type=item.mime_type, headers=headers)
