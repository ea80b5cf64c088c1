"""The AI-agents catalog: agents, tool records, immutable versions and bindings."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Column, Index, UniqueConstraint, text
from sqlmodel import Field, SQLModel

from switchboard.models.base import UTCDateTime, new_id, utcnow


class BindingScope(StrEnum):
    tenant = "tenant"
    customer = "customer"
    phone_number = "phone_number"


def _json(*, nullable: bool = False) -> Column:
    return Column(JSON, nullable=nullable)


class Agent(SQLModel, table=True):
    """A tenant's agent: a name and the language model it runs on (spec: Agent)."""

    __tablename__ = "agents"

    id: str = Field(default_factory=lambda: new_id("agt"), primary_key=True)
    tenant_id: str = Field(foreign_key="tenants.id", index=True)
    name: str
    provider: str
    model: str
    description: str | None = None
    # The last version number handed out. It is bumped with one UPDATE so that
    # concurrent creations serialize on the agent row and a deleted version's
    # number is never handed out again.
    last_version: int = 0
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class AgentTool(SQLModel, table=True):
    """One immutable record of a tool; an edit adds a record with the same slug that becomes current."""

    __tablename__ = "agent_tools"
    __table_args__ = (
        # Only one current record per slug; superseded records keep their slug for history.
        Index(
            "uq_agent_tools_current_slug",
            "tenant_id",
            "slug",
            unique=True,
            sqlite_where=text("is_current = 1"),
            postgresql_where=text("is_current"),
        ),
        UniqueConstraint("tenant_id", "slug", "revision", name="uq_agent_tools_slug_revision"),
    )

    id: str = Field(default_factory=lambda: new_id("tool"), primary_key=True)
    tenant_id: str = Field(foreign_key="tenants.id", index=True)
    slug: str
    revision: int = 1
    name: str
    description: str = ""
    # Stored normalized (every default filled in) by domain.tools.validate_declaration.
    declaration: dict[str, Any] = Field(sa_column=_json())
    enabled: bool = True
    is_current: bool = True
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    superseded_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class AgentVersion(SQLModel, table=True):
    """An immutable snapshot of an agent's prompt, tool slugs, guardrails and routing."""

    __tablename__ = "agent_versions"
    __table_args__ = (UniqueConstraint("agent_id", "version", name="uq_agent_versions_agent_version"),)

    id: str = Field(default_factory=lambda: new_id("agv"), primary_key=True)
    tenant_id: str = Field(foreign_key="tenants.id", index=True)
    agent_id: str = Field(foreign_key="agents.id", index=True)
    version: int
    system_prompt: str
    tools: list[str] = Field(sa_column=_json())
    guardrails_config: dict[str, Any] = Field(sa_column=_json())
    routing: dict[str, Any] = Field(sa_column=_json())
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class AgentVersionTool(SQLModel, table=True):
    """Which tool slugs a version references, so "is this slug in use?" is one indexed query."""

    __tablename__ = "agent_version_tools"
    __table_args__ = (Index("ix_agent_version_tools_tenant_slug", "tenant_id", "slug"),)

    agent_version_id: str = Field(foreign_key="agent_versions.id", primary_key=True, ondelete="CASCADE")
    slug: str = Field(primary_key=True)
    tenant_id: str = Field(foreign_key="tenants.id")


class AgentBinding(SQLModel, table=True):
    """Deploys one version to a scope (tenant, customer or phone number) with params, reglas and secrets."""

    __tablename__ = "agent_bindings"
    __table_args__ = (Index("ix_agent_bindings_tenant_scope", "tenant_id", "scope", "enabled"),)

    id: str = Field(default_factory=lambda: new_id("agb"), primary_key=True)
    tenant_id: str = Field(foreign_key="tenants.id", index=True)
    name: str
    # Denormalized from the version so "does this agent have enabled bindings?" needs no join.
    agent_id: str = Field(foreign_key="agents.id", index=True)
    agent_version_id: str = Field(foreign_key="agent_versions.id", index=True)
    scope: str
    customer_id: str | None = Field(default=None, foreign_key="customers.id", index=True, ondelete="CASCADE")
    phone_number_id: str | None = Field(
        default=None, foreign_key="phone_numbers.phone_number_id", index=True, ondelete="CASCADE"
    )
    base_url: str | None = None
    # As the tenant sent them (documented keys validated, other keys kept for
    # {{binding.params.*}}); defaults are applied when read, so a changed
    # AGENT_INACTIVE_RESET_DAYS reaches bindings that never set the key.
    params: dict[str, Any] = Field(sa_column=_json())
    reglas: dict[str, Any] = Field(sa_column=_json())
    # Secret name -> AES-256-GCM sealed value (associated data: the binding id). Never returned.
    secrets_encrypted: dict[str, str] = Field(default_factory=dict, sa_column=_json())
    enabled: bool = True
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
