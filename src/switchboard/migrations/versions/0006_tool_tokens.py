"""tool_tokens: the shared cache of jwt_from_token_endpoint tokens

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import switchboard.models.base

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "tool_tokens",
        sa.Column("tenant_id", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("tool_slug", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("cache_key", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("token_sealed", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("expires_at", switchboard.models.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column("lease_owner", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("lease_until", switchboard.models.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column("updated_at", switchboard.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("tenant_id", "tool_slug", "cache_key", name=op.f("pk_tool_tokens")),
    )
    with op.batch_alter_table("tool_tokens", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_tool_tokens_expires_at"), ["expires_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("tool_tokens", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tool_tokens_expires_at"))
    op.drop_table("tool_tokens")
