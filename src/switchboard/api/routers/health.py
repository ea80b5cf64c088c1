"""Liveness that means something: the database and Temporal both answer, and agent turns reach their
threads."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from sqlalchemy import text

from switchboard.api.deps import State
from switchboard.domain.error_body import error_body
from switchboard.models.base import utcnow
from switchboard.store.agents.threads import stale_turn_count

router = APIRouter(tags=["health"])

# The turn sweeper re-signals a turn after AGENT_TURN_SWEEP_AFTER_SECONDS (10 s by default): one still
# unsignalled after five minutes is not waiting for the sweeper, it is one the workers cannot signal.
STALE_TURN_SECONDS = 300


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


async def _agent_turns(state: Any) -> str:
    """ "ok", or how many customer messages wait for an agent no worker could tell (a worker whose
    namespace lacks the search attributes it sets, say): the API serves, but agents do not answer."""
    try:
        async with state.sessions() as session:
            stale = await asyncio.wait_for(
                stale_turn_count(session, recorded_before=utcnow() - timedelta(seconds=STALE_TURN_SECONDS)),
                timeout=2,
            )
    except Exception:  # noqa: BLE001 - the database check reports an unreachable database
        return "unknown"
    if stale:
        return f"degraded: {stale} agent turns never signalled after {STALE_TURN_SECONDS} s (see the worker's log)"
    return "ok"


@router.get("/healthz", response_model=None)
async def healthz(state: State) -> dict[str, str] | JSONResponse:
    """200 when the database and Temporal are reachable (``status`` degraded when agent turns are not
    reaching their threads); 503 otherwise."""
    database, temporal = await asyncio.gather(_database_ok(state), _temporal_ok(state))
    checks = {
        "database": "ok" if database else "unreachable",
        "temporal": "ok" if temporal else "unreachable",
    }
    if database and temporal:
        checks["agent_turns"] = await _agent_turns(state)
        return {"status": "ok" if checks["agent_turns"] == "ok" else "degraded", **checks}
    return JSONResponse(error_body(503, "a dependency is unreachable", details=checks), status_code=503)
