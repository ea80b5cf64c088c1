"""The interactive API docs (/docs, /redoc), served with their assets from the installed package.

FastAPI's defaults load Swagger UI and ReDoc from a CDN, so /docs is a blank page wherever the
browser cannot reach it (an office proxy, an air-gapped deployment, this project's own machines).
The assets come from the ``fastapi-standalone-docs`` package (its static files only: it is not
asked to patch FastAPI), mounted under each page's own path.
"""

from __future__ import annotations

from pathlib import Path

import fastapi_standalone_docs
from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

DOCS_URL = "/docs"
REDOC_URL = "/redoc"
_ASSETS = Path(fastapi_standalone_docs.__path__[0]) / "static"


def install_api_docs(app: FastAPI) -> None:
    """Serve /docs (Swagger UI) and /redoc (ReDoc) for the app's /openapi.json, every asset local."""
    app.mount(f"{DOCS_URL}/assets", StaticFiles(directory=_ASSETS / "swagger"), name="swagger-assets")
    app.mount(f"{REDOC_URL}/assets", StaticFiles(directory=_ASSETS / "redoc"), name="redoc-assets")
    app.mount(f"{DOCS_URL}/icons", StaticFiles(directory=_ASSETS / "fastapi"), name="docs-icons")
    favicon = f"{DOCS_URL}/icons/favicon.png"
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get(DOCS_URL, include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{app.title} API",
            swagger_js_url=f"{DOCS_URL}/assets/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_URL}/assets/swagger-ui.css",
            swagger_favicon_url=favicon,
        )

    @app.get(REDOC_URL, include_in_schema=False)
    async def redoc() -> HTMLResponse:
        return get_redoc_html(
            openapi_url=openapi_url,
            title=f"{app.title} API",
            redoc_js_url=f"{REDOC_URL}/assets/redoc.standalone.js",
            redoc_favicon_url=favicon,
            with_google_fonts=False,
        )
