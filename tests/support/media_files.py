"""A loopback host for link media: a few small files of each media type, and a count of downloads."""

from __future__ import annotations

from collections import Counter

from fastapi import FastAPI, Response

FILES = {
    "photo.jpg": ("image/jpeg", b"\xff\xd8\xff\xe0" + b"j" * 2048),
    "clip.mp4": ("video/mp4", b"\x00\x00\x00\x18ftypmp42" + b"v" * 4096),
    "voice.ogg": ("audio/ogg", b"OggS" + b"a" * 1024),
    "invoice.pdf": ("application/pdf", b"%PDF-1.4" + b"d" * 3000),
    "smile.webp": ("image/webp", b"RIFF\x00\x00\x00\x00WEBP" + b"s" * 900),
}


class FileServer:
    """Serves ``FILES`` under ``/files/{name}`` and counts each name's downloads."""

    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()
        self.base_url = ""

    def app(self) -> FastAPI:
        app = FastAPI()

        @app.get("/files/{name}")
        async def file(name: str) -> Response:
            self.hits[name] += 1
            if name not in FILES:
                return Response(status_code=404)
            mime, content = FILES[name]
            return Response(content=content, media_type=mime)

        return app

    def link(self, name: str) -> str:
        return f"{self.base_url}/files/{name}"
