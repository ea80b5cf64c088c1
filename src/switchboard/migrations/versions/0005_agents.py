"""AI-agents catalog: agents, tool records, immutable versions and bindings

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-22 14:12:12.428915
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import switchboard.models.base

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "agent_tools",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("tenant_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("slug", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("description", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("declaration", sa.JSON(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("is_current", sa.Boolean(), nullable=False),
        sa.Column("created_at", switchboard.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("superseded_at", switchboard.models.base.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["tenant_id"], ["tenants.id"], name=op.f("fk_agent_tools_tenant_id_tenants")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent_tools")),
        sa.UniqueConstraint("tenant_id", "slug", "revision", name="uq_agent_tools_slug_revision"),
    )
    with op.batch_alter_table("agent_tools", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_agent_tools_tenant_id"), ["tenant_id"], unique=False)
        batch_op.create_index(
            "uq_agent_tools_current_slug",
            ["tenant_id", "slug"],
            unique=True,
            sqlite_where=sa.text("is_current = 1"),
            postgresql_where=sa.text("is_current"),
        )

    op.create_table(
        "agents",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("tenant_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("provider", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("model", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("description", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("last_version", sa.Integer(), nullable=False),
        sa.Column("created_at", switchboard.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", switchboard.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["tenant_id"], ["tenants.id"], name=op.f("fk_agents_tenant_id_tenants")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agents")),
    )
    with op.batch_alter_table("agents", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_agents_tenant_id"), ["tenant_id"], unique=False)

    op.create_table(
        "agent_versions",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("tenant_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("agent_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("system_prompt", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("tools", sa.JSON(), nullable=False),
        sa.Column("guardrails_config", sa.JSON(), nullable=False),
        sa.Column("routing", sa.JSON(), nullable=False),
        sa.Column("created_at", switchboard.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["agent_id"], ["agents.id"], name=op.f("fk_agent_versions_agent_id_agents")),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"], name=op.f("fk_agent_versions_tenant_id_tenants")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent_versions")),
        sa.UniqueConstraint("agent_id", "version", name="uq_agent_versions_agent_version"),
    )
    with op.batch_alter_table("agent_versions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_agent_versions_agent_id"), ["agent_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_agent_versions_tenant_id"), ["tenant_id"], unique=False)

    op.create_table(
        "agent_bindings",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("tenant_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("agent_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("agent_version_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("scope", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("customer_id", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("phone_number_id", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("base_url", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("params", sa.JSON(), nullable=False),
        sa.Column("reglas", sa.JSON(), nullable=False),
        sa.Column("secrets_encrypted", sa.JSON(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("created_at", switchboard.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", switchboard.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["agent_id"], ["agents.id"], name=op.f("fk_agent_bindings_agent_id_agents")),
        sa.ForeignKeyConstraint(
            ["agent_version_id"],
            ["agent_versions.id"],
            name=op.f("fk_agent_bindings_agent_version_id_agent_versions"),
        ),
        sa.ForeignKeyConstraint(
            ["customer_id"],
            ["customers.id"],
            name=op.f("fk_agent_bindings_customer_id_customers"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["phone_number_id"],
            ["phone_numbers.phone_number_id"],
            name=op.f("fk_agent_bindings_phone_number_id_phone_numbers"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"], name=op.f("fk_agent_bindings_tenant_id_tenants")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent_bindings")),
    )
    with op.batch_alter_table("agent_bindings", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_agent_bindings_agent_id"), ["agent_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_agent_bindings_agent_version_id"), ["agent_version_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_agent_bindings_customer_id"), ["customer_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_agent_bindings_phone_number_id"), ["phone_number_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_agent_bindings_tenant_id"), ["tenant_id"], unique=False)
        batch_op.create_index(
            "ix_agent_bindings_tenant_scope", ["tenant_id", "scope", "enabled"], unique=False
        )

    op.create_table(
        "agent_version_tools",
        sa.Column("agent_version_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("slug", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("tenant_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.ForeignKeyConstraint(
            ["agent_version_id"],
            ["agent_versions.id"],
            name=op.f("fk_agent_version_tools_agent_version_id_agent_versions"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"], name=op.f("fk_agent_version_tools_tenant_id_tenants")
        ),
        sa.PrimaryKeyConstraint("agent_version_id", "slug", name=op.f("pk_agent_version_tools")),
    )
    with op.batch_alter_table("agent_version_tools", schema=None) as batch_op:
        batch_op.create_index("ix_agent_version_tools_tenant_slug", ["tenant_id", "slug"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("agent_version_tools", schema=None) as batch_op:
        batch_op.drop_index("ix_agent_version_tools_tenant_slug")

    op.drop_table("agent_version_tools")
    with op.batch_alter_table("agent_bindings", schema=None) as batch_op:
        batch_op.drop_index("ix_agent_bindings_tenant_scope")
        batch_op.drop_index(batch_op.f("ix_agent_bindings_tenant_id"))
        batch_op.drop_index(batch_op.f("ix_agent_bindings_phone_number_id"))
        batch_op.drop_index(batch_op.f("ix_agent_bindings_customer_id"))
        batch_op.drop_index(batch_op.f("ix_agent_bindings_agent_version_id"))
        batch_op.drop_index(batch_op.f("ix_agent_bindings_agent_id"))

    op.drop_table("agent_bindings")
    with op.batch_alter_table("agent_versions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_agent_versions_tenant_id"))
        batch_op.drop_index(batch_op.f("ix_agent_versions_agent_id"))

    op.drop_table("agent_versions")
    with op.batch_alter_table("agents", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_agents_tenant_id"))

    op.drop_table("agents")
    with op.batch_alter_table("agent_tools", schema=None) as batch_op:
        batch_op.drop_index(
            "uq_agent_tools_current_slug",
            sqlite_where=sa.text("is_current = 1"),
            postgresql_where=sa.text("is_current"),
        )
        batch_op.drop_index(batch_op.f("ix_agent_tools_tenant_id"))

    op.drop_table("agent_tools")
