"""The tenant's HTTP tool catalog: immutable records, one current record per slug."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, status

from switchboard.api.deps import Caller, OwnerOrAdmin, Session
from switchboard.api.pagination import Paging, envelope
from switchboard.api.routing import JsonRoute
from switchboard.domain.tools import validate_declaration
from switchboard.models.agents_api import ToolCreate, ToolDeleted, ToolPublic, ToolUpdate
from switchboard.store import agents as store

router = APIRouter(prefix="/v1/agent-tools", tags=["agent tools"], route_class=JsonRoute)


@router.post("", status_code=status.HTTP_201_CREATED)
async def create_tool(body: ToolCreate, who: OwnerOrAdmin, session: Session) -> ToolPublic:
    """Declare a tool; the declaration is validated and stored normalized; 409 when the slug is taken."""
    tool = await store.create_tool(
        session,
        who.tenant_id,
        slug=body.slug,
        name=body.name,
        description=body.description,
        declaration=validate_declaration(body.declaration),
        enabled=body.enabled,
    )
    return ToolPublic.of(tool)


@router.get("")
async def list_tools(
    who: Caller, session: Session, paging: Paging, enabled: bool | None = Query(default=None)
) -> dict[str, Any]:
    """List the current record of each of the tenant's tools, by slug."""
    rows, total = await store.list_current_tools(
        session, who.tenant_id, page=paging.page, per_page=paging.per_page, enabled=enabled
    )
    return envelope([ToolPublic.of(t) for t in rows], paging=paging, total=total)


@router.get("/records/{record_id}")
async def get_tool_record(record_id: str, who: Caller, session: Session) -> ToolPublic:
    """Any record of a tool by its record id, superseded ones included."""
    return ToolPublic.of(await store.tool_record(session, who.tenant_id, record_id))


@router.get("/{slug}")
async def get_tool(slug: str, who: Caller, session: Session) -> ToolPublic:
    """The current record of a tool."""
    return ToolPublic.of(await store.current_tool(session, who.tenant_id, slug))


@router.get("/{slug}/records")
async def list_tool_records(slug: str, who: Caller, session: Session, paging: Paging) -> dict[str, Any]:
    """Every record of a tool, newest revision first."""
    rows, total = await store.tool_history(
        session, who.tenant_id, slug, page=paging.page, per_page=paging.per_page
    )
    return envelope([ToolPublic.of(t) for t in rows], paging=paging, total=total)


@router.patch("/{slug}")
async def update_tool(slug: str, body: ToolUpdate, who: OwnerOrAdmin, session: Session) -> ToolPublic:
    """Edit a tool: a new immutable record with the same slug becomes current; the old one stays readable."""
    changes = body.model_dump(exclude_unset=True)
    if "declaration" in changes:
        changes["declaration"] = validate_declaration(changes["declaration"])
    return ToolPublic.of(await store.revise_tool(session, who.tenant_id, slug, changes))


@router.delete("/{slug}")
async def delete_tool(slug: str, who: OwnerOrAdmin, session: Session) -> ToolDeleted:
    """Delete every record of a tool; 409 while any agent version references the slug."""
    await store.delete_tool(session, who.tenant_id, slug)
    return ToolDeleted(slug=slug)
