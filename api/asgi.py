"""ASGI entry point for multi-process servers (`uvicorn api.asgi:app --workers N`)."""

from api.app import create_app
from settings import Settings

app = create_app(Settings())
