"""Tool records: one current record per slug, edits append a new record, older ones stay readable by id."""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import CursorResult, delete, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import col, select

from switchboard.domain.errors import Conflict
from switchboard.models.agents import AgentTool, AgentVersion, AgentVersionTool
from switchboard.models.base import utcnow
from switchboard.store.pagination import paginate
from switchboard.store.scoping import get_owned, owned

# A concurrent edit of the same slug can win the race between reading the
# current record and superseding it; re-reading and retrying a few times is enough.
_REVISE_ATTEMPTS = 5


async def current_tool(session: AsyncSession, tenant_id: str, slug: str) -> AgentTool:
    """The current record of the tenant's tool with this slug, else NotFound."""
    return await get_owned(
        session, AgentTool, tenant_id, slug, resource="agent tool", slug=slug, is_current=True
    )


async def tool_record(session: AsyncSession, tenant_id: str, record_id: str) -> AgentTool:
    """Any record (current or superseded) of the tenant's tools, by record id."""
    return await get_owned(session, AgentTool, tenant_id, record_id, resource="agent tool record")


async def list_current_tools(
    session: AsyncSession, tenant_id: str, *, page: int, per_page: int, enabled: bool | None = None
) -> tuple[list[AgentTool], int]:
    """One page of the current record of each slug, by slug."""
    stmt = owned(AgentTool, tenant_id).where(col(AgentTool.is_current).is_(True))
    if enabled is not None:
        stmt = stmt.where(col(AgentTool.enabled).is_(enabled))
    return await paginate(session, stmt.order_by(AgentTool.slug), page=page, per_page=per_page)


async def tool_history(
    session: AsyncSession, tenant_id: str, slug: str, *, page: int, per_page: int
) -> tuple[list[AgentTool], int]:
    """Every record of one slug, newest revision first; NotFound when the slug has no current record."""
    await current_tool(session, tenant_id, slug)
    stmt = owned(AgentTool, tenant_id).where(AgentTool.slug == slug).order_by(col(AgentTool.revision).desc())
    return await paginate(session, stmt, page=page, per_page=per_page)


async def create_tool(
    session: AsyncSession,
    tenant_id: str,
    *,
    slug: str,
    name: str,
    description: str,
    declaration: dict[str, Any],
    enabled: bool,
) -> AgentTool:
    """Insert revision 1 of a new slug; 409 when the tenant already has a current tool with it."""
    taken = await session.execute(
        owned(AgentTool, tenant_id).where(AgentTool.slug == slug, col(AgentTool.is_current).is_(True))
    )
    if taken.scalars().first() is not None:
        raise _slug_taken(slug)
    tool = AgentTool(
        tenant_id=tenant_id,
        slug=slug,
        name=name,
        description=description,
        declaration=declaration,
        enabled=enabled,
    )
    session.add(tool)
    try:
        await session.flush()
    except IntegrityError as exc:
        raise _slug_taken(slug) from exc
    return tool


async def revise_tool(session: AsyncSession, tenant_id: str, slug: str, changes: dict[str, Any]) -> AgentTool:
    """Supersede the current record with a new one carrying ``changes``; the new record becomes current."""
    for _ in range(_REVISE_ATTEMPTS):
        current = await current_tool(session, tenant_id, slug)
        now = utcnow()
        superseded = cast(
            "CursorResult[Any]",
            await session.execute(
                update(AgentTool)
                .where(col(AgentTool.id) == current.id, col(AgentTool.is_current).is_(True))
                .values(is_current=False, superseded_at=now)
                .execution_options(synchronize_session=False)
            ),
        )
        if superseded.rowcount != 1:
            continue
        # Mirror the conditional UPDATE in the loaded object without marking it dirty.
        set_committed_value(current, "is_current", False)
        set_committed_value(current, "superseded_at", now)
        fields = {
            "name": current.name,
            "description": current.description,
            "declaration": current.declaration,
            "enabled": current.enabled,
            **changes,
        }
        tool = AgentTool(
            tenant_id=tenant_id, slug=slug, revision=current.revision + 1, created_at=now, **fields
        )
        session.add(tool)
        await session.flush()
        return tool
    raise Conflict(f"agent tool {slug} is being edited concurrently; retry", code="CONCURRENT_UPDATE")


async def delete_tool(session: AsyncSession, tenant_id: str, slug: str) -> None:
    """Delete every record of a slug; 409 while any of the tenant's versions references it."""
    await current_tool(session, tenant_id, slug)
    referencing = (
        (
            await session.execute(
                select(AgentVersion.id)
                .join(AgentVersionTool, col(AgentVersionTool.agent_version_id) == AgentVersion.id)
                .where(AgentVersionTool.tenant_id == tenant_id, AgentVersionTool.slug == slug)
                .order_by(AgentVersion.id)
            )
        )
        .scalars()
        .all()
    )
    if referencing:
        raise Conflict(
            f"agent tool {slug} is referenced by agent versions; delete those versions first",
            code="TOOL_IN_USE",
            details={"slug": slug, "agent_version_ids": list(referencing)},
        )
    await session.execute(
        delete(AgentTool).where(col(AgentTool.tenant_id) == tenant_id, col(AgentTool.slug) == slug)
    )
    await session.flush()


def _slug_taken(slug: str) -> Conflict:
    return Conflict(
        f"an agent tool with slug {slug} already exists", code="TOOL_SLUG_TAKEN", details={"slug": slug}
    )
