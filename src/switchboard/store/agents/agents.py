"""Agents: create, read, update, and delete unless an enabled binding still deploys one of its versions."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col, select

from switchboard.domain.errors import Conflict
from switchboard.models.agents import Agent, AgentBinding, AgentVersion, AgentVersionTool
from switchboard.models.base import utcnow
from switchboard.store.pagination import paginate
from switchboard.store.scoping import get_owned, owned


async def get_agent(session: AsyncSession, tenant_id: str, agent_id: str) -> Agent:
    """The tenant's agent, else NotFound."""
    return await get_owned(session, Agent, tenant_id, agent_id, resource="agent")


async def list_agents(
    session: AsyncSession, tenant_id: str, *, page: int, per_page: int
) -> tuple[list[Agent], int]:
    """One page of the tenant's agents, oldest first, and their total."""
    stmt = owned(Agent, tenant_id).order_by(Agent.id)
    return await paginate(session, stmt, page=page, per_page=per_page)


async def create_agent(
    session: AsyncSession, tenant_id: str, *, name: str, provider: str, model: str, description: str | None
) -> Agent:
    """Insert an agent (provider and model already checked against the rate cards)."""
    agent = Agent(tenant_id=tenant_id, name=name, provider=provider, model=model, description=description)
    session.add(agent)
    await session.flush()
    return agent


async def update_agent(
    session: AsyncSession, tenant_id: str, agent_id: str, changes: dict[str, Any]
) -> Agent:
    """Apply the given field changes to the tenant's agent."""
    agent = await get_agent(session, tenant_id, agent_id)
    for field, value in changes.items():
        setattr(agent, field, value)
    agent.updated_at = utcnow()
    await session.flush()
    return agent


async def delete_agent(session: AsyncSession, tenant_id: str, agent_id: str) -> None:
    """Delete an agent with its versions and disabled bindings; 409 while a binding of it is enabled."""
    agent = await get_agent(session, tenant_id, agent_id)
    enabled = (
        (
            await session.execute(
                select(AgentBinding.id)
                .where(AgentBinding.tenant_id == tenant_id, AgentBinding.agent_id == agent.id)
                .where(col(AgentBinding.enabled).is_(True))
                .order_by(AgentBinding.id)
            )
        )
        .scalars()
        .all()
    )
    if enabled:
        raise Conflict(
            f"agent {agent.id} has enabled bindings; disable or delete them first",
            code="AGENT_HAS_ENABLED_BINDINGS",
            details={"binding_ids": list(enabled)},
        )
    version_ids = select(AgentVersion.id).where(AgentVersion.agent_id == agent.id).scalar_subquery()
    await session.execute(delete(AgentBinding).where(col(AgentBinding.agent_id) == agent.id))
    await session.execute(
        delete(AgentVersionTool).where(col(AgentVersionTool.agent_version_id).in_(version_ids))
    )
    await session.execute(delete(AgentVersion).where(col(AgentVersion.agent_id) == agent.id))
    await session.delete(agent)
    await session.flush()
