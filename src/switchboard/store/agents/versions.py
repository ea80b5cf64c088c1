"""Agent versions: immutable snapshots numbered from 1 per agent; deletable only while no binding uses them."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col, select

from switchboard.domain.errors import Conflict, Unprocessable
from switchboard.models.agents import Agent, AgentBinding, AgentTool, AgentVersion, AgentVersionTool
from switchboard.store.agents.agents import get_agent
from switchboard.store.pagination import paginate
from switchboard.store.scoping import get_owned, owned


async def get_version(session: AsyncSession, tenant_id: str, version_id: str) -> AgentVersion:
    """The tenant's agent version, else NotFound."""
    return await get_owned(session, AgentVersion, tenant_id, version_id, resource="agent version")


async def list_versions(
    session: AsyncSession, tenant_id: str, agent_id: str, *, page: int, per_page: int
) -> tuple[list[AgentVersion], int]:
    """One page of an agent's versions in version order; NotFound for another tenant's agent."""
    await get_agent(session, tenant_id, agent_id)
    stmt = (
        owned(AgentVersion, tenant_id)
        .where(AgentVersion.agent_id == agent_id)
        .order_by(col(AgentVersion.version))
    )
    return await paginate(session, stmt, page=page, per_page=per_page)


async def create_version(
    session: AsyncSession,
    tenant_id: str,
    agent_id: str,
    *,
    system_prompt: str,
    tools: list[str],
    guardrails_config: dict[str, Any],
    routing: dict[str, Any],
) -> AgentVersion:
    """Snapshot a new version with the next number; every tool slug must be a current tool of the tenant."""
    agent = await get_agent(session, tenant_id, agent_id)
    await _require_tools(session, tenant_id, tools)
    # One UPDATE both reserves the number and serializes concurrent creations on
    # the agent row (PostgreSQL row lock, SQLite write lock), so numbers never collide.
    number = (
        await session.execute(
            update(Agent)
            .where(col(Agent.id) == agent.id, col(Agent.tenant_id) == tenant_id)
            .values(last_version=col(Agent.last_version) + 1)
            .returning(col(Agent.last_version))
            .execution_options(synchronize_session=False)
        )
    ).scalar_one()
    version = AgentVersion(
        tenant_id=tenant_id,
        agent_id=agent.id,
        version=number,
        system_prompt=system_prompt,
        tools=tools,
        guardrails_config=guardrails_config,
        routing=routing,
    )
    session.add(version)
    await session.flush()
    session.add_all(
        AgentVersionTool(agent_version_id=version.id, slug=slug, tenant_id=tenant_id) for slug in tools
    )
    await session.flush()
    return version


async def delete_version(session: AsyncSession, tenant_id: str, version_id: str) -> None:
    """Delete a version; 409 while any binding (enabled or not) references it."""
    version = await get_version(session, tenant_id, version_id)
    bound = (
        (
            await session.execute(
                select(AgentBinding.id)
                .where(AgentBinding.tenant_id == tenant_id, AgentBinding.agent_version_id == version.id)
                .order_by(AgentBinding.id)
            )
        )
        .scalars()
        .all()
    )
    if bound:
        raise Conflict(
            f"agent version {version.id} is referenced by bindings; point them at another version first",
            code="VERSION_IN_USE",
            details={"binding_ids": list(bound)},
        )
    await session.execute(
        delete(AgentVersionTool).where(col(AgentVersionTool.agent_version_id) == version.id)
    )
    await session.delete(version)
    await session.flush()


async def _require_tools(session: AsyncSession, tenant_id: str, slugs: list[str]) -> None:
    duplicates = sorted({slug for slug in slugs if slugs.count(slug) > 1})
    if duplicates:
        raise Unprocessable(
            f"tools lists {', '.join(duplicates)} more than once",
            code="DUPLICATE_TOOL",
            details={"field": "tools", "slugs": duplicates},
        )
    if not slugs:
        return
    found = set(
        (
            await session.execute(
                select(AgentTool.slug).where(
                    AgentTool.tenant_id == tenant_id,
                    col(AgentTool.is_current).is_(True),
                    col(AgentTool.slug).in_(slugs),
                )
            )
        ).scalars()
    )
    missing = [slug for slug in slugs if slug not in found]
    if missing:
        raise Unprocessable(
            f"unknown agent tool {missing[0]}"
            if len(missing) == 1
            else f"unknown agent tools {', '.join(missing)}",
            code="UNKNOWN_TOOL",
            details={"field": "tools", "slug": missing[0], "slugs": missing},
        )
