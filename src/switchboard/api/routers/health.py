"""Liveness that means something: the database and Temporal both answer."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from sqlalchemy import text

from switchboard.api.deps import State
from switchboard.domain.error_body import error_body

router = APIRouter(tags=["health"])


async def _database_ok(state: Any) -> bool:
    try:
        async with state.engine.connect() as conn:
            await asyncio.wait_for(conn.execute(text("SELECT 1")), timeout=2)
        return True
    except Exception:  # noqa: BLE001 - any failure means "not reachable" here
        return False


async def _temporal_ok(state: Any) -> bool:
    try:
        return bool(await asyncio.wait_for(state.temporal.service_client.check_health(), timeout=2))
    except Exception:  # noqa: BLE001
        return False


@router.get("/healthz", response_model=None)
async def healthz(state: State) -> dict[str, str] | JSONResponse:
    """200 only when the database and Temporal are reachable; 503 otherwise."""
    database, temporal = await asyncio.gather(_database_ok(state), _temporal_ok(state))
    checks = {
        "database": "ok" if database else "unreachable",
        "temporal": "ok" if temporal else "unreachable",
    }
    if database and temporal:
        return {"status": "ok", **checks}
    return JSONResponse(error_body(503, "a dependency is unreachable", details=checks), status_code=503)
