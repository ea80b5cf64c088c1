"""inbound item ledger and the raw-envelope sweeper index

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22 15:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import switchboard.models.base

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "inbound_items",
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("payload_id", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("applied_at", switchboard.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_inbound_items")),
    )
    with op.batch_alter_table("inbound_items", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_inbound_items_applied_at"), ["applied_at"], unique=False)
    with op.batch_alter_table("raw_inbound", schema=None) as batch_op:
        batch_op.create_index("ix_raw_inbound_unprocessed", ["processed_at", "received_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("raw_inbound", schema=None) as batch_op:
        batch_op.drop_index("ix_raw_inbound_unprocessed")
    with op.batch_alter_table("inbound_items", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_inbound_items_applied_at"))
    op.drop_table("inbound_items")
