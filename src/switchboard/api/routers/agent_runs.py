"""Agent runs (with their steps) and agent events: why a conversation was answered or handed off."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query

from switchboard.api.deps import Caller, Session
from switchboard.api.pagination import Paging, envelope
from switchboard.api.routing import JsonRoute
from switchboard.domain.errors import ValidationFailed
from switchboard.models.agent_runtime import RUN_STATUSES
from switchboard.models.agent_runtime_api import AgentEventPublic, RunPublic
from switchboard.store.agents.agent_events import list_agent_events
from switchboard.store.agents.runs import get_run, list_runs, run_steps

router = APIRouter(prefix="/v1", tags=["agent runs"], route_class=JsonRoute)


@router.get("/agent-runs")
async def list_agent_runs(
    who: Caller,
    session: Session,
    paging: Paging,
    thread_id: str | None = Query(default=None),
    status: str | None = Query(default=None, description="running, completed, escalated or failed"),
) -> dict[str, Any]:
    """List the tenant's runs, newest first (without steps; read one run for them)."""
    if status is not None and status not in RUN_STATUSES:
        raise ValidationFailed(
            f"status must be one of {', '.join(RUN_STATUSES)}",
            code="VALIDATION_FAILED",
            details={"field": "status", "value": status, "allowed": list(RUN_STATUSES)},
        )
    rows, total = await list_runs(
        session, who.tenant_id, thread_id=thread_id, status=status, page=paging.page, per_page=paging.per_page
    )
    return envelope([RunPublic.of(row) for row in rows], paging=paging, total=total)


@router.get("/agent-runs/{run_id}")
async def get_agent_run(run_id: str, who: Caller, session: Session) -> RunPublic:
    """One run: status, costUsd, usage per dimension, errorMessage and every step in order."""
    run = await get_run(session, who.tenant_id, run_id)
    return RunPublic.of(run, steps=await run_steps(session, run.id))


@router.get("/agent-events")
async def list_events(
    who: Caller,
    session: Session,
    paging: Paging,
    thread_id: str | None = Query(default=None),
    type: str | None = Query(
        default=None, description="e.g. thread.reactivated (the agent. prefix is optional)"
    ),
) -> dict[str, Any]:
    """List the tenant's agent events, newest first."""
    rows, total = await list_agent_events(
        session,
        who.tenant_id,
        thread_id=thread_id,
        event_type=type,
        page=paging.page,
        per_page=paging.per_page,
    )
    return envelope([AgentEventPublic.of(row) for row in rows], paging=paging, total=total)
