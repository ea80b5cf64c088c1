"""agent runtime: threads, turns, runs, steps, events; tenants' platform_managed and timezone

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24 12:55:49.494569
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import switchboard.models.base

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tenants", schema=None) as batch_op:
        batch_op.add_column(sa.Column("platform_managed", sa.Boolean(), server_default="0", nullable=False))
        batch_op.add_column(
            sa.Column("timezone", sqlmodel.sql.sqltypes.AutoString(), server_default="UTC", nullable=False)
        )
    op.create_table(
        "agent_threads",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("tenant_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("conversation_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("phone_number_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("contact_id", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("binding_id", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("messages", sa.JSON(), nullable=False),
        sa.Column("muted_at", switchboard.models.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column("muted_reason", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("reactivated_at", switchboard.models.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column("wizard_state", sa.JSON(), nullable=True),
        sa.Column("cost_e10", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("total_cost_e10", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("reserved_e10", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("created_at", switchboard.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", switchboard.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["conversation_id"],
            ["conversations.id"],
            name=op.f("fk_agent_threads_conversation_id_conversations"),
        ),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"], name=op.f("fk_agent_threads_tenant_id_tenants")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent_threads")),
        sa.UniqueConstraint("conversation_id", name="uq_agent_threads_conversation"),
    )
    with op.batch_alter_table("agent_threads", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_agent_threads_binding_id"), ["binding_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_agent_threads_tenant_id"), ["tenant_id"], unique=False)
        batch_op.create_index("ix_agent_threads_tenant_muted", ["tenant_id", "muted_at"], unique=False)

    op.create_table(
        "agent_events",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("tenant_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("thread_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("run_id", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("type", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("properties", sa.JSON(), nullable=False),
        sa.Column("created_at", switchboard.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"], name=op.f("fk_agent_events_tenant_id_tenants")
        ),
        sa.ForeignKeyConstraint(
            ["thread_id"], ["agent_threads.id"], name=op.f("fk_agent_events_thread_id_agent_threads")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent_events")),
    )
    with op.batch_alter_table("agent_events", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_agent_events_tenant_id"), ["tenant_id"], unique=False)
        batch_op.create_index(
            "ix_agent_events_tenant_thread", ["tenant_id", "thread_id", "created_at"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_agent_events_type"), ["type"], unique=False)

    op.create_table(
        "agent_runs",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("tenant_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("thread_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("binding_id", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("agent_id", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("agent_version_id", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("provider", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("model", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("intent", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("message_ids", sa.JSON(), nullable=False),
        sa.Column("reply_message_id", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("cost_e10", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("usage", sa.JSON(), nullable=False),
        sa.Column("error_message", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("notes", sa.JSON(), nullable=False),
        sa.Column("history_loaded_at", switchboard.models.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column("workflow_id", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("created_at", switchboard.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("ended_at", switchboard.models.base.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["tenant_id"], ["tenants.id"], name=op.f("fk_agent_runs_tenant_id_tenants")),
        sa.ForeignKeyConstraint(
            ["thread_id"], ["agent_threads.id"], name=op.f("fk_agent_runs_thread_id_agent_threads")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent_runs")),
    )
    with op.batch_alter_table("agent_runs", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_agent_runs_tenant_id"), ["tenant_id"], unique=False)
        batch_op.create_index("ix_agent_runs_thread_created", ["thread_id", "created_at"], unique=False)

    op.create_table(
        "agent_turns",
        sa.Column("message_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("tenant_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("thread_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("created_at", switchboard.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("signalled_at", switchboard.models.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column("run_id", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("skipped_reason", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.ForeignKeyConstraint(
            ["message_id"], ["messages.id"], name=op.f("fk_agent_turns_message_id_messages")
        ),
        sa.ForeignKeyConstraint(["tenant_id"], ["tenants.id"], name=op.f("fk_agent_turns_tenant_id_tenants")),
        sa.ForeignKeyConstraint(
            ["thread_id"], ["agent_threads.id"], name=op.f("fk_agent_turns_thread_id_agent_threads")
        ),
        sa.PrimaryKeyConstraint("message_id", name=op.f("pk_agent_turns")),
    )
    with op.batch_alter_table("agent_turns", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_agent_turns_tenant_id"), ["tenant_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_agent_turns_thread_id"), ["thread_id"], unique=False)
        batch_op.create_index("ix_agent_turns_unsignalled", ["signalled_at", "created_at"], unique=False)

    op.create_table(
        "agent_run_steps",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("tenant_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("run_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("latency_ms", sa.Integer(), nullable=True),
        sa.Column("cost_e10", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("created_at", switchboard.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"], ["agent_runs.id"], name=op.f("fk_agent_run_steps_run_id_agent_runs")
        ),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"], name=op.f("fk_agent_run_steps_tenant_id_tenants")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent_run_steps")),
        sa.UniqueConstraint("run_id", "seq", name="uq_agent_run_steps_run_seq"),
    )
    with op.batch_alter_table("agent_run_steps", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_agent_run_steps_run_id"), ["run_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_agent_run_steps_tenant_id"), ["tenant_id"], unique=False)
    op.create_table(
        "agent_spend",
        sa.Column("tenant_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("period", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("period_start", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("spent_e10", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("reserved_e10", sa.BigInteger(), server_default="0", nullable=False),
        sa.ForeignKeyConstraint(["tenant_id"], ["tenants.id"], name=op.f("fk_agent_spend_tenant_id_tenants")),
        sa.PrimaryKeyConstraint("tenant_id", "period", "period_start", name=op.f("pk_agent_spend")),
    )
    op.create_table(
        "agent_cost_reservations",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("tenant_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("thread_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("day_start", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("month_start", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("amount_e10", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("created_at", switchboard.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"], name=op.f("fk_agent_cost_reservations_tenant_id_tenants")
        ),
        sa.ForeignKeyConstraint(
            ["thread_id"],
            ["agent_threads.id"],
            name=op.f("fk_agent_cost_reservations_thread_id_agent_threads"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent_cost_reservations")),
    )
    with op.batch_alter_table("agent_cost_reservations", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_agent_cost_reservations_created_at"), ["created_at"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_agent_cost_reservations_tenant_id"), ["tenant_id"], unique=False)


def downgrade() -> None:
    op.drop_table("agent_cost_reservations")
    op.drop_table("agent_spend")
    with op.batch_alter_table("tenants", schema=None) as batch_op:
        batch_op.drop_column("timezone")
        batch_op.drop_column("platform_managed")
    with op.batch_alter_table("agent_run_steps", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_agent_run_steps_tenant_id"))
        batch_op.drop_index(batch_op.f("ix_agent_run_steps_run_id"))

    op.drop_table("agent_run_steps")
    with op.batch_alter_table("agent_turns", schema=None) as batch_op:
        batch_op.drop_index("ix_agent_turns_unsignalled")
        batch_op.drop_index(batch_op.f("ix_agent_turns_thread_id"))
        batch_op.drop_index(batch_op.f("ix_agent_turns_tenant_id"))

    op.drop_table("agent_turns")
    with op.batch_alter_table("agent_runs", schema=None) as batch_op:
        batch_op.drop_index("ix_agent_runs_thread_created")
        batch_op.drop_index(batch_op.f("ix_agent_runs_tenant_id"))

    op.drop_table("agent_runs")
    with op.batch_alter_table("agent_events", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_agent_events_type"))
        batch_op.drop_index("ix_agent_events_tenant_thread")
        batch_op.drop_index(batch_op.f("ix_agent_events_tenant_id"))

    op.drop_table("agent_events")
    with op.batch_alter_table("agent_threads", schema=None) as batch_op:
        batch_op.drop_index("ix_agent_threads_tenant_muted")
        batch_op.drop_index(batch_op.f("ix_agent_threads_tenant_id"))
        batch_op.drop_index(batch_op.f("ix_agent_threads_binding_id"))

    op.drop_table("agent_threads")
