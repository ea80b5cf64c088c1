"""Agent versions: immutable snapshots of prompt, tool slugs, guardrails and routing."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, status

from switchboard.api.deps import Caller, Session
from switchboard.api.pagination import Paging, envelope
from switchboard.api.routing import JsonRoute
from switchboard.domain.errors import MethodNotAllowed
from switchboard.models.agents_api import Deleted, VersionCreate, VersionPublic, as_sent
from switchboard.store import agents as store

router = APIRouter(prefix="/v1", tags=["agent versions"], route_class=JsonRoute)


@router.post("/agents/{agent_id}/versions", status_code=status.HTTP_201_CREATED)
async def create_version(agent_id: str, body: VersionCreate, who: Caller, session: Session) -> VersionPublic:
    """Snapshot a new immutable version, numbered from 1 per agent; every tool slug must exist."""
    version = await store.create_version(
        session,
        who.tenant_id,
        agent_id,
        system_prompt=body.system_prompt,
        tools=list(body.tools),
        guardrails_config=as_sent(body.guardrails_config),
        routing=as_sent(body.routing) if body.routing is not None else {},
    )
    return VersionPublic.of(version)


@router.get("/agents/{agent_id}/versions")
async def list_versions(agent_id: str, who: Caller, session: Session, paging: Paging) -> dict[str, Any]:
    """List an agent's versions in version order."""
    rows, total = await store.list_versions(
        session, who.tenant_id, agent_id, page=paging.page, per_page=paging.per_page
    )
    return envelope([VersionPublic.of(v) for v in rows], paging=paging, total=total)


@router.get("/agent-versions/{version_id}")
async def get_version(version_id: str, who: Caller, session: Session) -> VersionPublic:
    """One version."""
    return VersionPublic.of(await store.get_version(session, who.tenant_id, version_id))


@router.patch("/agent-versions/{version_id}", status_code=status.HTTP_405_METHOD_NOT_ALLOWED)
async def update_version(version_id: str, who: Caller, session: Session) -> None:
    """Always 405: versions are immutable; create a new version and point bindings at it."""
    await store.get_version(session, who.tenant_id, version_id)
    raise MethodNotAllowed(
        "agent versions are immutable; create a new version and PATCH the bindings to point at it",
        code="AGENT_VERSION_IMMUTABLE",
        headers={"Allow": "GET, DELETE"},
    )


@router.delete("/agent-versions/{version_id}")
async def delete_version(version_id: str, who: Caller, session: Session) -> Deleted:
    """Delete a version; 409 while any binding references it."""
    await store.delete_version(session, who.tenant_id, version_id)
    return Deleted(id=version_id)
