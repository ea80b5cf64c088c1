"""Agents: a name and the language model it runs on (provider and model checked against the rate cards)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, status

from switchboard.api.deps import Caller, Session
from switchboard.api.pagination import Paging, envelope
from switchboard.api.routers.agent_providers import RateCards, require_known_model
from switchboard.api.routing import JsonRoute
from switchboard.models.agents_api import AgentCreate, AgentPublic, AgentUpdate, Deleted
from switchboard.store import agents as store

router = APIRouter(prefix="/v1/agents", tags=["agents"], route_class=JsonRoute)


@router.post("", status_code=status.HTTP_201_CREATED)
async def create_agent(body: AgentCreate, who: Caller, session: Session, book: RateCards) -> AgentPublic:
    """Create an agent; an unknown provider or a model absent from the rate card is a 422 listing the known models."""
    require_known_model(book, body.provider, body.model)
    agent = await store.create_agent(
        session,
        who.tenant_id,
        name=body.name,
        provider=body.provider,
        model=body.model,
        description=body.description,
    )
    return AgentPublic.of(agent)


@router.get("")
async def list_agents(who: Caller, session: Session, paging: Paging) -> dict[str, Any]:
    """List the tenant's agents."""
    rows, total = await store.list_agents(session, who.tenant_id, page=paging.page, per_page=paging.per_page)
    return envelope([AgentPublic.of(a) for a in rows], paging=paging, total=total)


@router.get("/{agent_id}")
async def get_agent(agent_id: str, who: Caller, session: Session) -> AgentPublic:
    """One agent."""
    return AgentPublic.of(await store.get_agent(session, who.tenant_id, agent_id))


@router.patch("/{agent_id}")
async def update_agent(
    agent_id: str, body: AgentUpdate, who: Caller, session: Session, book: RateCards
) -> AgentPublic:
    """Change an agent's name, description, provider or model (checked against the rate cards)."""
    changes = body.model_dump(exclude_unset=True)
    if "provider" in changes or "model" in changes:
        current = await store.get_agent(session, who.tenant_id, agent_id)
        require_known_model(
            book, changes.get("provider", current.provider), changes.get("model", current.model)
        )
    return AgentPublic.of(await store.update_agent(session, who.tenant_id, agent_id, changes))


@router.delete("/{agent_id}")
async def delete_agent(agent_id: str, who: Caller, session: Session) -> Deleted:
    """Delete an agent with its versions; 409 while any binding of it is enabled."""
    await store.delete_agent(session, who.tenant_id, agent_id)
    return Deleted(id=agent_id)


def catalog_routers() -> list[APIRouter]:
    """Every router of the AI-agents catalog, for api.routers.all_routers."""
    from switchboard.api.routers import agent_bindings, agent_providers, agent_tools, agent_versions

    return [router, agent_tools.router, agent_versions.router, agent_bindings.router, agent_providers.router]
